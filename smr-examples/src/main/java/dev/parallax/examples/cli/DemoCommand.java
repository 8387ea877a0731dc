package dev.parallax.examples.cli;

import dev.parallax.examples.testbed.Testbed;
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
 * The load phase is {@link DemoPhase}'s, shared by every demo.
 *
 * <p>Exit code 0 only if the restarted leader caught up and no acknowledged write was lost; 1
 * otherwise (the replica logs are then kept); 2, with the message on standard error and nothing
 * started, if the options refuse to run together ({@link ServiceOptions#refusal}, e.g.
 * {@code --partitions} without a partitioned run, or a client count below 1) or the cluster file
 * refuses the runtime options (e.g. {@code --execution p-smr} without {@code --ordering multi-ring}
 * or {@code multicast}). Runs on the caller's thread and blocks for the whole demo (about
 * {@code --warmup + --seconds} plus start-up). {@link RuntimeOptions} choose the replicas' ordering
 * protocol, executor and thread placement; the header and the results name them.
 *
 * <p>{@code --execution s-smr [--partitions P]} (seed 004 (S-SMR) §IV) runs the store partitioned:
 * P x 3 replica processes ({@link PartitionedClusters#kv}: multi-ring, a ring per partition and the
 * global ring), the load through one client per partition ({@link KvRouting#partitionedInvoker})
 * with MSET and MGET over keys of two partitions and DBSIZE among its SETs ({@link ClosedLoopLoad}),
 * ring 0's coordinator (a replica of partition 0) killed and restarted, and the catch-up judged by
 * each partition's digests ({@link PartitionConvergence}).
 *
 * <p>{@code --membership} (ordering {@code multi-paxos}, {@code s-paxos}, {@code u-ring}, {@code m-ring} or
 * {@code multi-ring}, the rings with {@code ring.member.ids} 4; exit 2 otherwise) runs
 * the membership benchmark instead of the kill ({@link MembershipDemo}): a follower replaced by a
 * fresh replica, then leadership handed to it, under load; it reports the longest write gaps of
 * both and the new replica's catch-up time, next to the suspect timeout.
 *
 * <p>{@code --service volery [--partitions P]} runs the same scenario on Volery ({@link VoleryDemo}:
 * ZooKeeper sessions, ring 0's coordinator killed and restarted, each partition's digests, every
 * acknowledged setData read back); exit 2 if a runtime option, {@code --tls} or an out-of-range P
 * is given with it.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Run a local 3-replica cluster under load, kill the leader midway, restart it, and report "
                + "throughput, latency, fail-over, catch-up and lost writes.",
                "With --execution s-smr: P x 3 replicas of the partitioned store (--partitions P), MSET/MGET/DBSIZE "
                        + "across partitions in the load, ring 0's coordinator killed; catch-up = equal digests per partition.",
                "With --service volery: the same on Volery through ZooKeeper's client.",
                "With --membership: replace a follower by a fresh replica and hand leadership to it under load instead; "
                        + "report the write gaps and the catch-up time."})
final class DemoCommand implements Callable<Integer> {
    /** How long the restarted leader may take to reach its peers' decided frontier and state. */
    static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(30);
    /** How long after a second ends its line is read, so completions stamped just before the end are in. */
    static final long SECOND_SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    @Option(names = "--seconds", defaultValue = "20", description = "Length of the load phase (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--clients", defaultValue = "8", description = "Client sessions (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--outstanding", defaultValue = "32", description = "Commands in flight per client, key-value store "
            + "(default ${DEFAULT-VALUE}).")
    int outstanding;

    @Option(names = "--keys", defaultValue = "2000", description = "Keys written per client, key-value store "
            + "(default ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--warmup", defaultValue = "5", description = "Seconds of load before measuring, for the JIT (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--no-kill", description = "Do not kill the leader.")
    boolean noKill;

    @Option(names = "--membership", description = "Instead of the kill: replace a follower by a fresh replica, then hand "
            + "leadership to it, under load; report the write gaps and the catch-up (multi-paxos, s-paxos, u-ring, m-ring, "
            + "multi-ring).")
    boolean membership;

    @Mixin
    TestbedOption testbed = new TestbedOption();

    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Mixin
    RuntimeOptions runtime = new RuntimeOptions();

    private final PrintStream out;
    private final PrintStream err;

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

    /** Why the options cannot run, or null: {@link ServiceOptions#refusal}, then the counts and durations. */
    String refusal() {
        String refusal = service.refusal(runtime);
        if (refusal != null) {
            return refusal;
        }
        if (clients < 1) {
            return "--clients must be at least 1, not " + clients;
        }
        if (seconds < 1 || warmup < 0) {
            return "--seconds must be at least 1 and --warmup at least 0";
        }
        return membership ? MembershipNemesis.refusal(service, runtime) : null;
    }

    @Override
    public Integer call() throws Exception {
        String refusal = refusal();
        if (refusal != null) {
            err.println(refusal);
            return 2;
        }
        Testbed bed;
        try {
            bed = testbed.attach();
        } catch (IllegalStateException e) {
            err.println(e.getMessage());
            return 2;
        }
        Path dir = Files.createTempDirectory("parallax-demo-");
        long t0 = System.nanoTime();
        if (service.volery()) {
            try (ProcessCluster cluster = PartitionedClusters.volery(dir, service.partitions(), java.util.Map.of(), bed)) {
                out.printf("Parallax demo: Volery (ZooKeeper's API over S-SMR), %s x 3 replica processes %s%n",
                        service.describePartitions(), TestbedOption.where(bed));
                out.println("work directory: " + dir);
                cluster.startAll(Duration.ofSeconds(90));
                out.printf("replicas ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
                return finish(dir, new VoleryDemo(out, new VoleryDemo.Plan(service.partitions(), clients, seconds, warmup, !noKill))
                        .run(cluster));
            }
        }
        boolean partitioned = service.kvPartitioned(runtime);
        ProcessCluster configured;
        try {
            if (partitioned) {
                configured = PartitionedClusters.kv(dir, service.partitions(), runtime.clusterSettings(), bed);
            } else {
                Properties props = ProcessCluster.localDefaults(dir.resolve("data"), 20_000);
                props.putAll(runtime.clusterSettings());
                if (membership && runtime.ordering != null && runtime.ordering.ringMembers()) {
                    // A ring changes its members only over the ids it may ever use: the three and the new replica.
                    props.setProperty("ring.member.ids", "4");
                }
                configured = new ProcessCluster(dir, 3, props, false,
                        List.of("-Xmx1g", "-XX:+UseParallelGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"), service.tls, bed)
                        .replicaArgs("--metrics-port", "0");
            }
        } catch (IllegalArgumentException e) {
            // A runtime the cluster file refuses (e.g. --execution p-smr over multi-paxos): nothing started.
            err.println(e.getMessage());
            deleteRecursively(dir);
            return 2;
        }
        boolean ok;
        try (ProcessCluster cluster = configured) {
            String runtimeLine = cluster.clusterFile().describeRuntime(Runtime.getRuntime().availableProcessors());
            out.println(partitioned
                    ? "Parallax demo: " + service.describePartitions() + " x 3 replica processes (key-value store under S-SMR) "
                            + TestbedOption.where(bed) + "; " + runtimeLine
                    : "Parallax demo: 3 replica processes (key-value store) " + TestbedOption.where(bed) + "; " + runtimeLine);
            out.println("work directory: " + dir);
            cluster.startAll(Duration.ofSeconds(partitioned ? 90 : 60));
            out.printf("replicas ready in %.1f s; client endpoints %s%n", (System.nanoTime() - t0) / 1e9, cluster.clientEndpoints());
            if (membership) {
                // Clients know the endpoint the new replica will have; it comes to lead.
                ClusterMembership members = new ClusterMembership(cluster, dir.resolve("data"), 1);
                out.printf("load: %d clients x %d commands in flight, SET of %d keys each, %d s; a follower replaced at %d s, "
                        + "leadership handed to the new replica at %d s%n", clients, outstanding, keys, seconds,
                        Math.max(1, seconds / 4), Math.max(1, seconds * 3 / 4));
                try (ClosedLoopLoad load = new ClosedLoopLoad(members::clientConfig, clients, outstanding, keys,
                        Duration.ofSeconds(seconds + 180))) {
                    ok = MembershipDemo.run(out, cluster, members, load, seconds, warmup, runtimeLine);
                }
            } else {
                try (ClosedLoopLoad load = new ClosedLoopLoad(cluster, clients, outstanding, keys,
                        Duration.ofSeconds(seconds + 60))) {
                    ok = runLoad(cluster, load, runtimeLine);
                }
            }
        }
        return finish(dir, ok);
    }

    /** Deletes the work directory of a passing demo, or says where a failed one's logs are; the exit code. */
    private int finish(Path dir, boolean ok) throws IOException {
        if (ok) {
            deleteRecursively(dir);
        } else {
            out.println("replica logs kept in " + dir);
        }
        return ok ? 0 : 1;
    }

    private boolean runLoad(ProcessCluster cluster, ClosedLoopLoad load, String runtimeLine) throws Exception {
        boolean partitioned = load.mixesMultiPartition();
        if (partitioned) {
            out.printf("load: %d clients x %d commands in flight over %d keys each through one client per partition: SETs, and of "
                    + "every %d commands an MSET and an MGET of two keys of different partitions and a DBSIZE; %d s%n",
                    clients, outstanding, keys, ClosedLoopLoad.MIX, seconds);
        } else {
            out.printf("load: %d clients x %d commands in flight, SET of %d keys each, %d s%n", clients, outstanding, keys, seconds);
        }
        load.start();
        if (warmup > 0) {
            out.printf("warming up for %d s (JIT compilation in %d JVMs) ...%n", warmup, cluster.size() + 1);
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
        }
        long base = load.completed();
        load.startMeasuring();
        DemoPhase.Victim victim = noKill ? null : partitioned ? DemoPhase.ringCoordinator(cluster, "ring-0")
                : DemoPhase.leader(cluster, leaderRole(cluster.clusterFile().ordering()));
        DemoPhase.Result phase = DemoPhase.run(out, cluster, seconds, load.startedAt(), load.timeline(), victim);
        load.stop(Duration.ofSeconds(30));
        Histogram total = load.total();
        double secs = phase.endNanos() / 1e9;
        out.println();
        out.println("results");
        out.println("  runtime          " + runtimeLine + (partitioned ? ", " + service.describePartitions() + " x 3 replicas" : ""));
        long measured = load.completed() - base;
        out.printf("  throughput       %,.0f %s/s over %d s (%,d acknowledged, %,d failed)%n", measured / secs,
                partitioned ? "commands" : "writes", seconds, measured, load.failed());
        if (partitioned) {
            out.printf("  multi-partition  %,d acknowledged MSET, MGET and DBSIZE commands (from the start of the load)%n",
                    load.multiPartitionCompleted());
        }
        out.println(DemoPhase.latencyLine(total));
        if (phase.killed() >= 0) {
            out.println(DemoPhase.failOverLine(phase, load.longestGapAfter(phase.killAtNanos(), phase.endNanos()), "write"));
        }
        boolean caughtUp = phase.killed() < 0 || reportCatchUp(cluster, phase.killed());
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
     * Waits up to 30 s until every replica reports the same decided frontier and store digest (a
     * partitioned store: up to 60 s until each partition's replicas report the same digest,
     * {@link PartitionConvergence#KV_TIMEOUT}), and prints the outcome;
     * true if the restarted replica caught up.
     */
    private boolean reportCatchUp(ProcessCluster cluster, int restarted) throws InterruptedException {
        PartitionConvergence.Summary o = PartitionConvergence.awaitStore(cluster, CATCH_UP_TIMEOUT);
        out.printf(o.converged() ? "  catch-up         restarted replica %d caught up: %s%n"
                : "  catch-up         FAILED: restarted replica %d did not catch up: %s%n", restarted, o.description());
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
