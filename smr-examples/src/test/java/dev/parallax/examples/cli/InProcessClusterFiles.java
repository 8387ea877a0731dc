package dev.parallax.examples.cli;

import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.testkit.Await;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.ToLongFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the in-JVM cluster tests of this package share: the cluster-file settings of a cluster whose
 * replicas run in the test's JVM, a wait for the replicas of each partition to converge, and
 * {@code parallax kv --config} run in process. Test code; stateless, so thread-safe; the waits
 * block the calling thread.
 */
final class InProcessClusterFiles {
    /** Replicas per partition of an S-SMR cluster (seed 004 (S-SMR) §VI: three per ring). */
    static final int REPLICAS_PER_PARTITION = 3;

    private InProcessClusterFiles() {
    }

    /**
     * Sets test ring timeouts on {@code p}: heartbeat 30 ms, suspect 300 ms, retransmit 100 ms,
     * catch-up 50 ms, restart hold 500 ms and a lambda of 2000 idle instances/s, so that a ring
     * notices a lost member and skips idle instances fast yet stays up on a loaded machine.
     */
    static void putTestRingTimeouts(Properties p) {
        p.setProperty("ring.heartbeat.ms", "30");
        p.setProperty("ring.suspect.ms", "300");
        p.setProperty("ring.retransmit.ms", "100");
        p.setProperty("ring.catchup.ms", "50");
        p.setProperty("ring.restart.hold.ms", "500");
        p.setProperty("ring.lambda", "2000");
    }

    /**
     * The settings of an S-SMR cluster (seed 004 (S-SMR) §IV) of {@code partitions} partitions ×
     * {@value #REPLICAS_PER_PARTITION} replicas on ports of 127.0.0.1 free now: {@code execution=s-smr}
     * over {@code ordering=multi-ring} with one U-Ring ring per partition, {@link #putTestRingTimeouts},
     * {@code threads=compact}, one client I/O thread and durable state under {@code dataDir}. The
     * caller adds its service and front ends.
     */
    static Properties ssmr(int partitions, Path dataDir) {
        int n = REPLICAS_PER_PARTITION * partitions;
        Properties p = new Properties();
        p.setProperty("members", LocalPorts.endpoints(n));
        p.setProperty("clients", LocalPorts.endpoints(n));
        p.setProperty("client.io.threads", "1");
        p.setProperty("execution", "s-smr");
        p.setProperty("ordering", "multi-ring");
        p.setProperty("multiring.kind", "u-ring");
        p.setProperty("multiring.rings", Integer.toString(partitions));
        putTestRingTimeouts(p);
        p.setProperty("threads", "compact");
        p.setProperty("data.dir", dataDir.toString());
        return p;
    }

    /**
     * Waits, up to {@code waitSeconds}, until every replica's digest equals that of the first
     * replica of its partition ({@code state} in replica order, {@value #REPLICAS_PER_PARTITION} a
     * partition); fails with an {@link AssertionError} when they do not.
     */
    static <M> void awaitPartitionsConverged(List<M> state, ToLongFunction<M> digest, long waitSeconds)
            throws InterruptedException {
        Await.until(Duration.ofSeconds(waitSeconds), () -> {
            boolean equal = true;
            for (int id = 0; id < state.size(); id++) {
                int first = REPLICAS_PER_PARTITION * (id / REPLICAS_PER_PARTITION);
                equal &= digest.applyAsLong(state.get(id)) == digest.applyAsLong(state.get(first));
            }
            return equal;
        }, () -> "the replicas of each partition to converge");
    }

    /** Runs {@code parallax kv --config configFile args...} in process; its standard output, trimmed. */
    static String kv(Path configFile, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = new String[args.length + 2];
        all[0] = "--config";
        all[1] = configFile.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new CommandLine(new KvCommandLine(o, e)).execute(all);
        }
        assertThat(code).as("parallax kv %s: %s", String.join(" ", args), err.toString(StandardCharsets.UTF_8)).isZero();
        return out.toString(StandardCharsets.UTF_8).trim();
    }
}
