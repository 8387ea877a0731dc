package dev.parallax.examples.kv;

import dev.parallax.core.client.ClusterUnavailableException;
import dev.parallax.core.client.CommandRejectedException;
import dev.parallax.core.client.OutcomeUnknownException;
import dev.parallax.examples.net.Failures;
import java.util.regex.Pattern;

/**
 * The texts of the front end's error replies, in Redis' words where Redis has them. Stateless and
 * thread-safe.
 */
final class RespErrors {
    /**
     * The executor reports a state machine exception as {@code "SimpleClassName: message"}
     * ({@link dev.parallax.core.CommandResult#failed}); clients should see only the message.
     */
    private static final Pattern EXCEPTION_PREFIX = Pattern.compile("^[A-Za-z_$][\\w$]*(Exception|Error): ");
    /** Redis error replies start with an upper-case code word: ERR, WRONGTYPE, NOPROTO... */
    private static final Pattern ERROR_CODE = Pattern.compile("^[A-Z][A-Z_]+( |$)");
    private static final int MAX_ARGS_CHARS = 128;

    private RespErrors() {
    }

    /**
     * The kind of failure an invoker reported, for metrics: UNKNOWN is a command sent but not
     * answered in time (it may or may not have executed), UNAVAILABLE one that did not execute.
     */
    enum Kind { REJECTED, UNKNOWN, UNAVAILABLE, INTERNAL }

    static Kind kindOf(Throwable failure) {
        Throwable t = Failures.unwrap(failure);
        if (t instanceof CommandRejectedException) {
            return Kind.REJECTED;
        }
        if (t instanceof OutcomeUnknownException) {
            return Kind.UNKNOWN;
        }
        if (t instanceof ClusterUnavailableException) {
            return Kind.UNAVAILABLE;
        }
        return Kind.INTERNAL;
    }

    /**
     * The error reply for a failed invocation; the caller logs INTERNAL ones. A command whose
     * outcome is unknown gets {@code ERR UNKNOWN outcome: ...}, never a reply that claims it failed
     * (it may have executed, or may still); CLUSTERDOWN is kept for commands that were not sent.
     */
    static String forFailure(Throwable failure) {
        Throwable t = Failures.unwrap(failure);
        switch (kindOf(t)) {
            case REJECTED:
                return rejection(t.getMessage());
            case UNKNOWN:
                return "ERR UNKNOWN outcome: " + (t.getMessage() == null
                        ? "the command may or may not have executed" : t.getMessage());
            case UNAVAILABLE:
                return "CLUSTERDOWN " + (t.getMessage() == null ? "the cluster is unavailable" : t.getMessage());
            default:
                return "ERR internal error";
        }
    }

    /** A state machine's rejection as a Redis error: its message, with an ERR code if it has none. */
    static String rejection(String message) {
        String m = message == null ? "command rejected" : EXCEPTION_PREFIX.matcher(message).replaceFirst("");
        return ERROR_CODE.matcher(m).find() ? m : "ERR " + m;
    }

    /** Redis 7's reply to an unknown command: the name and up to 128 characters of arguments. */
    static String unknownCommand(RespRequest request) {
        StringBuilder args = new StringBuilder();
        for (int i = 1; i < request.argc() && args.length() < MAX_ARGS_CHARS; i++) {
            String arg = request.text(i);
            int room = MAX_ARGS_CHARS - args.length();
            args.append('\'').append(arg, 0, Math.min(arg.length(), room)).append("' ");
        }
        String name = request.text(0);
        return "ERR unknown command '" + name.substring(0, Math.min(name.length(), MAX_ARGS_CHARS))
                + "', with args beginning with: " + args;
    }

    static String wrongArity(String command) {
        return "ERR wrong number of arguments for '" + command + "' command";
    }

    static String unknownSubcommand(String command, String subcommand, String supported) {
        return "ERR unknown subcommand '" + subcommand + "' for '" + command + "' (this server supports "
                + supported + ")";
    }
}
