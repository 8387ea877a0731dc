package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandInvoker;
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
 * {@code parallax kv --cluster ... get|set|del|incr|exists|mget|mset|strlen|dbsize|flushall ...}: sends one command to the
 * replicated key-value store and prints the reply the way redis-cli does. Exit code 0 on a reply,
 * 1 if the store rejected the command, 2 for a usage error (a cluster file it refuses included).
 * Blocks up to 30 s for the reply.
 *
 * <p>With {@code --cluster} the command goes to the default group. With {@code --config FILE}
 * instead, the cluster file gives the client endpoints, the CA to trust with {@code tls.client=on},
 * and the routing ({@link KvRouting#invoker}: by key over the groups of {@code ordering=multi-ring} or {@code multicast});
 * a cluster running {@code execution=p-smr} needs it, since there the groups a command carries
 * decide which workers execute it (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6).
 */
@Command(name = "kv", mixinStandardHelpOptions = true,
        description = "Send one command to the replicated key-value store: get KEY | set KEY VALUE | del KEY... | incr KEY "
                + "| exists KEY... | mget KEY... | mset KEY VALUE... | strlen KEY | dbsize | flushall")
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

    @Option(names = "--cluster",
            description = "Client endpoints of the replicas: 0=host:port,1=host:port,... (or --config).")
    String cluster;

    @Option(names = "--config", description = "The cluster's configuration file instead of --cluster: its client "
            + "endpoints, its CA with tls.client=on, and its routing by key (needed with execution=p-smr).")
    java.nio.file.Path config;

    @Option(names = "--cacert", description = "Talk TLS to the replicas (their tls.client=on), trusting this CA "
            + "certificate (PEM), e.g. the ca.crt of ./parallax certs.")
    java.nio.file.Path cacert;

    @Parameters(index = "0", description = "get, set, del, incr, exists, mget, mset, strlen, dbsize or flushall")
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
            err.println("unknown operation '" + op + "'; use get, set, del, incr, exists, mget, mset, strlen, dbsize or flushall");
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
        if ((cluster == null) == (config == null)) {
            err.println("give either --cluster or --config");
            return 2;
        }
        ClusterFile file = null;
        if (config != null) {
            try {
                file = ClusterFile.load(config);
            } catch (IllegalArgumentException | java.io.IOException e) {
                err.println(e instanceof java.io.IOException ? "cannot read " + config + ": " + e : e.getMessage());
                return 2;
            }
        }
        if (file != null && KvRouting.partitioned(file)) {
            // S-SMR: one client per partition, each command to a replica of a partition it involves.
            try (dev.parallax.core.client.PartitionedInvoker invoker = KvRouting.partitionedInvoker(file, -1,
                    b -> { if (cacert != null) { b.tlsTrust(cacert); } })) {
                return send(invoker, command);
            }
        }
        ClientConfig.Builder clientConfig = ClientConfig.builder(file == null ? ClusterMembers.parse(cluster)
                : file.replica(0).clientMembers());
        if (cacert != null) {
            clientConfig.tlsTrust(cacert);
        } else if (file != null) {
            file.clientTrust().ifPresent(clientConfig::tlsTrust);
        }
        try (SmrClient client = SmrClient.connect(clientConfig.build())) {
            return send(file == null ? client : KvRouting.invoker(file, client), command);
        }
    }

    /** Sends {@code command} (a read as a query), prints the reply or the error; the exit code. */
    private int send(CommandInvoker invoker, KvCommand command) throws Exception {
        try {
            ByteBuffer bytes = command.encode();
            ByteBuffer reply = (command.op().isReadOnly() ? invoker.query(bytes) : invoker.invoke(bytes)).get(30, TimeUnit.SECONDS);
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
