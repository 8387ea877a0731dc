package dev.parallax.examples.cli;

import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code parallax demo}: three replica processes on 127.0.0.1 with durable state, a closed-loop
 * write load, the leader killed with SIGKILL halfway through the load phase and restarted at three
 * quarters (it recovers its log and snapshot, then catches up from its peers). Prints a per-second
 * timeline of completed writes, bucketed by completion time ({@link CompletionTimeline}), so the
 * seconds this thread spends restarting the replica are reported as they were. Reports throughput,
 * latency percentiles, the fail-over gap, whether the restarted replica reached its peers' decided
 * frontier and store digest within 30 s, and whether every acknowledged write is still readable.
 *
 * <p>Exit code 0 only if the restarted leader caught up and no acknowledged write was lost; 1
 * otherwise (the replica logs are then kept); 2, with the message on standard error and nothing
 * started, if the cluster file refuses the runtime options (e.g. {@code --execution p-smr}
 * without {@code --ordering multi-ring} or {@code multicast}). Runs on the caller's thread and blocks for the whole
 * demo (about {@code --warmup + --seconds} plus start-up). {@link RuntimeOptions} choose the
 * replicas' ordering protocol, executor and thread placement; the header and the results name them.
 *
 * <p>{@code --service volery [--partitions P]} runs the same scenario on Volery ({@link VoleryDemo}:
 * ZooKeeper sessions, ring 0's coordinator killed and restarted, each partition's digests, every
 * acknowledged setData read back); exit 2 if a runtime option, {@code --tls} or an out-of-range P
 * is given with it.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run a local 3-replica cluster under load, kill the leader midway, restart it, and report "
                + "throughput, latency, fail-over, catch-up and lost writes.")
final class DemoCommand implements Callable<Integer> {
    /** How long the restarted leader may take to reach its peers' decided frontier and state. */
    static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(30);
    /** How long after a second ends its line is read, so completions stamped just before the end are in. */
    static final long SECOND_SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    @Option(names = "--seconds", defaultValue = "20", description = "Length of the load phase (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--clients", defaultValue = "8", description = "Client sessions (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--outstanding", defaultValue = "32", description = "Commands in flight per client (default ${DEFAULT-VALUE}).")
    int outstanding;

    @Option(names = "--keys", defaultValue = "2000", description = "Keys written per client (default ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--warmup", defaultValue = "5", description = "Seconds of load before measuring, for the JIT (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--no-kill", description = "Do not kill the leader.")
    boolean noKill;

    @Option(names = "--tls", description = "Mutual TLS between the replicas and TLS for the clients, with throwaway "
            + "certificates generated into the work directory.")
    boolean tls;

    @Option(names = "--service", paramLabel = "NAME", defaultValue = ClusterFile.KV,
            description = "The replicated service: " + ClusterFile.KV + " (the key-value store, 3 replicas) or "
                    + ClusterFile.VOLERY + " (ZooKeeper's API over S-SMR: --partitions x 3 replicas, loaded through "
                    + "ZooKeeper's client; --outstanding, --keys and --tls are for kv) (default ${DEFAULT-VALUE}).")
    String service;

    @Option(names = "--partitions", paramLabel = "P", defaultValue = "2",
            description = "With --service volery: partitions, 1.." + VoleryClusterFile.MAX_PARTITIONS + " (default ${DEFAULT-VALUE}).")
    int partitions;

    @Mixin
    RuntimeOptions runtime = new RuntimeOptions();

    private final PrintStream out;
    private final PrintStream err;
    /** What the killed replica was, as the report says it: it depends on the ordering ({@link #leaderRole}). */
    private String leaderRole = "the leader";

    /** A demo that reports on standard output and errors on standard error (picocli's constructor). */
    DemoCommand() {
        this(System.out, System.err);
    }

    /** A demo that reports on {@code out} and errors on standard error (tests capture the report). */
    DemoCommand(PrintStream out) {
        this(out, System.err);
    }

    /** A demo that reports on {@code out} and configuration errors on {@code err}. */
    DemoCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws Exception {
        if (service.equals(ClusterFile.VOLERY)) {
            return volery();
        }
        if (!service.equals(ClusterFile.KV)) {
            err.println("--service must be " + ClusterFile.KV + " or " + ClusterFile.VOLERY + ", not '" + service + "'");
            return 2;
        }
        Path dir = Files.createTempDirectory("parallax-demo-");
        Properties props = ProcessCluster.localDefaults(dir.resolve("data"), 20_000);
        props.putAll(runtime.clusterSettings());
        long t0 = System.nanoTime();
        boolean ok;
        ProcessCluster configured;
        try {
            configured = new ProcessCluster(dir, 3, props, false,
                    List.of("-Xmx1g", "-XX:+UseParallelGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"), tls);
        } catch (IllegalArgumentException e) {
            // A runtime the cluster file refuses (e.g. --execution p-smr over multi-paxos): nothing started.
            err.println(e.getMessage());
            deleteRecursively(dir);
            return 2;
        }
        try (ProcessCluster cluster = configured) {
            String runtimeLine = cluster.clusterFile().describeRuntime(Runtime.getRuntime().availableProcessors());
            leaderRole = leaderRole(cluster.clusterFile().ordering());
            out.println("Parallax demo: 3 replica processes (key-value store) on 127.0.0.1; " + runtimeLine);
            out.println("work directory: " + dir);
            cluster.replicaArgs("--metrics-port", "0");
            cluster.startAll(Duration.ofSeconds(60));
            out.printf("replicas ready in %.1f s; client endpoints %s%n", (System.nanoTime() - t0) / 1e9, cluster.clientEndpoints());
            try (ClosedLoopLoad load = new ClosedLoopLoad(cluster, clients, outstanding, keys,
                    Duration.ofSeconds(seconds + 60))) {
                ok = runLoad(out, cluster, load, runtimeLine);
            }
        }
        if (ok) {
            deleteRecursively(dir);
        } else {
            out.println("replica logs kept in " + dir);
        }
        return ok ? 0 : 1;
    }

    /**
     * Why the options cannot run the Volery demo, or null: its ordering and executor are fixed
     * (multi-ring, s-smr), it has no TLS, and P must be in range.
     */
    String voleryRefusal() {
        if (!runtime.clusterSettings().isEmpty()) {
            return "--service volery runs ordering=multi-ring and execution=s-smr: drop " + String.join(", ",
                    runtime.clusterSettings().keySet().stream().map(k -> "--" + k.replace('.', '-')).toList());
        }
        if (tls) {
            return "--tls is for --service kv: Volery's ZooKeeper front ends serve plain TCP";
        }
        if (clients < 1) {
            return "--clients must be at least 1, not " + clients;
        }
        if (seconds < 1 || warmup < 0) {
            return "--seconds must be at least 1 and --warmup at least 0";
        }
        try {
            VoleryClusterFile.checkPartitions(partitions);
        } catch (IllegalArgumentException e) {
            return "--" + e.getMessage();
        }
        return null;
    }

    /** {@code --service volery}: {@link VoleryDemo} on {@code --partitions} x 3 replica processes. */
    private int volery() throws Exception {
        String refusal = voleryRefusal();
        if (refusal != null) {
            err.println(refusal);
            return 2;
        }
        Path dir = Files.createTempDirectory("parallax-demo-");
        long t0 = System.nanoTime();
        boolean ok;
        try (ProcessCluster cluster = VoleryDemo.cluster(dir, partitions)) {
            out.printf("Parallax demo: Volery (ZooKeeper's API over S-SMR), %d partition%s x 3 replica processes on 127.0.0.1%n",
                    partitions, partitions == 1 ? "" : "s");
            out.println("work directory: " + dir);
            cluster.startAll(Duration.ofSeconds(90));
            out.printf("replicas ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
            ok = new VoleryDemo(out, new VoleryDemo.Plan(partitions, clients, seconds, warmup, !noKill)).run(cluster);
        }
        if (ok) {
            deleteRecursively(dir);
        } else {
            out.println("replica logs kept in " + dir);
        }
        return ok ? 0 : 1;
    }

    private boolean runLoad(PrintStream out, ProcessCluster cluster, ClosedLoopLoad load, String runtimeLine) throws Exception {
        out.printf("load: %d clients x %d commands in flight, SET of %d keys each, %d s%n", clients, outstanding, keys, seconds);
        load.start();
        if (warmup > 0) {
            out.printf("warming up for %d s (JIT compilation in four JVMs) ...%n", warmup);
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
        }
        long base = load.completed();
        load.startMeasuring();
        long start = load.startedAt();
        long killAt = -1;
        int killed = -1;
        boolean tty = System.console() != null;
        for (int s = 1; s <= seconds; s++) {
            // Second s is read from completion times once it has ended: a loop that is late (it was
            // restarting a replica) prints each second as it was, not what piled up meanwhile.
            long target = start + TimeUnit.SECONDS.toNanos(s) + SECOND_SETTLE_NANOS;
            long wait = target - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(TimeUnit.NANOSECONDS.toMillis(wait) + 1);
            }
            progress(out, tty, load.timeline().second(s));
            if (!noKill && s == seconds / 2) {
                // The ordering leader as the replicas report it: with S-Paxos no client is
                // redirected to it, so the replica a client talks to says nothing about leadership.
                int leader = cluster.awaitLeader(Duration.ofSeconds(5));
                killed = Math.max(0, leader);
                killAt = System.nanoTime() - start;
                cluster.kill(killed);
                if (tty) {
                    out.println();
                }
                out.printf("  >> killed %s, replica %d, with SIGKILL at %.1f s%n", leader < 0 ? "a replica (none reported leading)"
                        : leaderRole, killed, killAt / 1e9);
            }
            if (killed >= 0 && s == seconds * 3 / 4) {
                cluster.start(killed, Duration.ofSeconds(60));
                if (tty) {
                    out.println();
                }
                out.printf("  >> restarted replica %d at %.1f s: it recovers its log and snapshot, then catches up%n",
                        killed, (System.nanoTime() - start) / 1e9);
            }
        }
        long end = System.nanoTime() - start;
        load.stop(Duration.ofSeconds(30));
        if (tty) {
            out.println();
        }
        Histogram total = load.total();
        double secs = end / 1e9;
        out.println();
        out.println("results");
        out.println("  runtime          " + runtimeLine);
        long measured = load.completed() - base;
        out.printf("  throughput       %,.0f writes/s over %d s (%,d acknowledged, %,d failed)%n", measured / secs,
                seconds, measured, load.failed());
        out.printf("  latency (us)     p50 %,d  p90 %,d  p99 %,d  p99.9 %,d  max %,d%n",
                total.getValueAtPercentile(50), total.getValueAtPercentile(90), total.getValueAtPercentile(99),
                total.getValueAtPercentile(99.9), total.getMaxValue());
        if (killed >= 0) {
            out.printf("  fail-over        replica %d killed at %.1f s; longest gap without a completed write: %d ms%n",
                    killed, killAt / 1e9, load.longestGapAfter(killAt, end).toMillis());
        }
        boolean caughtUp = killed < 0 || reportCatchUp(out, cluster, killed);
        long lost = load.countLost(out);
        if (lost == 0) {
            out.println("  check            OK: every acknowledged write is readable (" + (long) load.clientCount() * keys + " keys read)");
        } else {
            out.println("  check            FAILED: " + lost + " acknowledged writes are missing");
        }
        return caughtUp && lost == 0;
    }

    /**
     * What the replica {@link ProcessCluster#leader()} names is under {@code ordering}: Multi-Ring
     * has no single leader, the replica coordinates one of its rings; the reference multicast runs
     * one Multi-Paxos instance per group and a global one, the replica leads one of those streams
     * (the first its metrics list; the others may have other leaders); every other ordering has one
     * leader (or coordinator).
     */
    static String leaderRole(Orderings ordering) {
        return switch (ordering) {
            case MULTI_RING -> "a ring coordinator";
            case MULTICAST -> "a stream leader";
            default -> "the leader";
        };
    }

    /**
     * Waits up to 30 s until every replica reports the same decided frontier and store digest, and
     * prints the outcome; true if the restarted replica caught up.
     */
    private static boolean reportCatchUp(PrintStream out, ProcessCluster cluster, int restarted) throws InterruptedException {
        ReplicaConvergence.Outcome o = ReplicaConvergence.await(cluster, CATCH_UP_TIMEOUT);
        if (o.converged()) {
            out.printf("  catch-up         restarted replica %d caught up: %s%n", restarted, o.describe());
        } else {
            out.printf("  catch-up         FAILED: restarted replica %d did not catch up: %s%n", restarted, o.describe());
        }
        return o.converged();
    }

    /**
     * One timeline line: the second, the writes completed in it, and the p50 and p99 latency of
     * those writes ({@code -} when the timeline no longer keeps that second's latencies).
     */
    static String timelineLine(CompletionTimeline.Second second) {
        return String.format("  %3d s  %,9d writes/s  p50 %6s us  p99 %7s us", second.second(), second.completions(),
                micros(second.p50Us()), micros(second.p99Us()));
    }

    private static String micros(long us) {
        return us < 0 ? "-" : String.format("%,d", us);
    }

    /** Prints one timeline line: in place on a terminal, with a bar; as a line otherwise. */
    static void progress(PrintStream out, boolean tty, CompletionTimeline.Second second) {
        int width = 30;
        long ops = second.completions();
        String line = timelineLine(second);
        if (tty) {
            int filled = Math.min(width, (int) (ops / 5000));
            out.print("\r[" + "#".repeat(filled) + " ".repeat(width - filled) + "]" + line);
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** Deletes {@code dir} and everything in it. */
    static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
