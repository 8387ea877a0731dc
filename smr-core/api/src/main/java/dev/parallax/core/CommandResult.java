package dev.parallax.core;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The outcome of executing one command: a reply, or an error that the state machine raised by
 * throwing. Errors are deterministic (same command, same state, same message), so every replica
 * returns the same result.
 *
 * <p>Immutable and thread-safe (the reply is a read-only view).
 */
public final class CommandResult {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    private final ByteBuffer reply;
    private final String error;

    private CommandResult(ByteBuffer reply, String error) {
        this.reply = reply;
        this.error = error;
    }

    /** A successful result carrying {@code reply} (from position to limit, not copied). */
    public static CommandResult ok(ByteBuffer reply) {
        return new CommandResult(Objects.requireNonNull(reply, "reply").slice().asReadOnlyBuffer(), null);
    }

    /** An error result with a message for the client. */
    public static CommandResult error(String message) {
        return new CommandResult(EMPTY, Objects.requireNonNull(message, "message"));
    }

    /**
     * The result of a command whose execution threw {@code failure}: the message names the
     * exception type and its message, which are deterministic for a deterministic state machine.
     */
    public static CommandResult failed(RuntimeException failure) {
        String msg = failure.getMessage();
        return error(failure.getClass().getSimpleName() + (msg == null ? "" : ": " + msg));
    }

    public boolean isError() {
        return error != null;
    }

    /** The reply (empty for an error), a fresh read-only view. */
    public ByteBuffer reply() {
        return reply.duplicate();
    }

    /** The error message, or {@code null} for a successful result. */
    public String error() {
        return error;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommandResult r && reply.equals(r.reply) && Objects.equals(error, r.error);
    }

    @Override
    public int hashCode() {
        return reply.hashCode() * 31 + Objects.hashCode(error);
    }

    @Override
    public String toString() {
        return isError() ? "Error[" + error + "]" : "Ok[" + reply.remaining() + " B]";
    }
}
