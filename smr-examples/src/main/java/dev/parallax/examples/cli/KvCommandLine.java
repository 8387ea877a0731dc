package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvReply;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code parallax kv --cluster ... get|set|del|incr|exists|mget|mset|dbsize|flushall ...}: sends one command to the
 * replicated key-value store and prints the reply the way redis-cli does. Exit code 0 on a reply,
 * 1 if the store rejected the command, 2 for a usage error. Blocks up to 30 s for the reply.
 */
@Command(name = "kv", mixinStandardHelpOptions = true,
        description = "Send one command to the replicated key-value store: get KEY | set KEY VALUE | del KEY... | incr KEY "
                + "| exists KEY... | mget KEY... | mset KEY VALUE... | dbsize | flushall")
final class KvCommandLine implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    /** A client printing on standard output and error (picocli's constructor). */
    KvCommandLine() {
        this(System.out, System.err);
    }

    /** A client printing replies on {@code out} and errors on {@code err} (tests capture them). */
    KvCommandLine(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Option(names = "--cluster", required = true,
            description = "Client endpoints of the replicas: 0=host:port,1=host:port,...")
    String cluster;

    @Option(names = "--cacert", description = "Talk TLS to the replicas (their tls.client=on), trusting this CA "
            + "certificate (PEM), e.g. the ca.crt of ./parallax certs.")
    java.nio.file.Path cacert;

    @Parameters(index = "0", description = "get, set, del, incr, exists, mget, mset, dbsize or flushall")
    String op;

    @Parameters(index = "1..*", arity = "0..*", description = "keys (and the value, for set); none for dbsize "
            + "and flushall")
    List<String> args;

    @Override
    public Integer call() throws Exception {
        KvOp kvOp;
        try {
            kvOp = KvOp.valueOf(op.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            err.println("unknown operation '" + op + "'; use get, set, del, incr, exists, mget, mset, dbsize or flushall");
            return 2;
        }
        byte[][] bytes = (args == null ? List.<String>of() : args).stream().map(a -> a.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        KvCommand command;
        try {
            command = KvCommand.of(kvOp, bytes);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        ClientConfig.Builder config = ClientConfig.builder(ClusterMembers.parse(cluster));
        if (cacert != null) {
            config.tlsTrust(cacert);
        }
        try (SmrClient client = SmrClient.connect(config.build())) {
            ByteBuffer reply = client.invoke(command.encode()).get(30, TimeUnit.SECONDS);
            out.println(render(KvReply.decode(reply)));
            return 0;
        } catch (ExecutionException e) {
            err.println("(error) " + e.getCause().getMessage());
            return 1;
        }
    }

    static String render(KvReply r) {
        if (r instanceof KvReply.Ok) {
            return "OK";
        } else if (r instanceof KvReply.Nil) {
            return "(nil)";
        } else if (r instanceof KvReply.Int i) {
            return "(integer) " + i.value();
        } else if (r instanceof KvReply.Bulk b) {
            return "\"" + new String(b.value(), StandardCharsets.UTF_8) + "\"";
        } else if (r instanceof KvReply.Multi m) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < m.elements().size(); i++) {
                sb.append(i + 1).append(") ").append(render(m.elements().get(i))).append('\n');
            }
            return sb.toString().stripTrailing();
        }
        return r.toString();
    }
}
