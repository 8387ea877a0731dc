package dev.parallax.examples.cli;

import dev.parallax.ringpaxos.RingPaxos;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * {@code parallax demo --service volery}: the demo's scenario on Volery (seed 004 (S-SMR) §V-B,
 * §VI): P partitions × 3 replica processes with durable state ({@link VoleryClusterFile}), a
 * {@link VoleryLoad} of ZooKeeper sessions (setData on owned znodes, some create/delete), the
 * coordinator of partition 0's ring killed with SIGKILL halfway through the load and restarted at
 * three quarters; then whether each partition's replicas converged ({@link VoleryConvergence}) and
 * whether every acknowledged setData is still readable. Prints the same per-second timeline as the
 * key-value demo. Runs on the caller's thread; blocks for the whole demo.
 */
final class VoleryDemo {
    /**
     * What to run.
     *
     * @param partitions P
     * @param sessions   ZooKeeper sessions of the load
     * @param seconds    length of the load phase
     * @param warmup     seconds of load before measuring
     * @param kill       whether to kill (and restart) a replica
     */
    record Plan(int partitions, int sessions, int seconds, int warmup, boolean kill) {
    }

    private final PrintStream out;
    private final Plan plan;

    VoleryDemo(PrintStream out, Plan plan) {
        this.out = out;
        this.plan = plan;
    }

    /**
     * The demo's cluster in {@code dir}, nothing started.
     *
     * @throws IllegalArgumentException if P is out of range
     */
    static ProcessCluster cluster(Path dir, int partitions) throws IOException {
        Properties p = VoleryClusterFile.local(partitions, RingPaxos.U_RING, dir.resolve("data"), 20_000);
        p.putAll(VoleryClusterFile.sharedMachineSettings());
        return new ProcessCluster(dir, VoleryClusterFile.replicas(partitions), p, false,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"))
                .replicaArgs("--metrics-port", "0");
    }

    /** Runs the demo on a started {@code cluster}; true if it converged and lost nothing. */
    boolean run(ProcessCluster cluster) throws Exception {
        ClusterFile file = cluster.clusterFile();
        String connect = VoleryClusterFile.connectString(file);
        out.println("ZooKeeper front ends: " + connect);
        try (VoleryLoad load = new VoleryLoad(connect, plan.sessions(), Duration.ofSeconds(plan.warmup() + plan.seconds() + 60))) {
            load.setUp();
            out.printf("load: %d ZooKeeper sessions, one request in flight each, setData on %d znodes each; every %dth "
                    + "request a create and a delete (global); %d s%n", plan.sessions(), VoleryLoad.NODES_PER_SESSION,
                    VoleryLoad.GLOBAL_EVERY, plan.seconds());
            load.start();
            if (plan.warmup() > 0) {
                out.printf("warming up for %d s ...%n", plan.warmup());
                Thread.sleep(TimeUnit.SECONDS.toMillis(plan.warmup()));
            }
            load.startMeasuring();
            long base = load.completed();
            long start = load.startedAt();
            long killAt = -1;
            int killed = -1;
            boolean tty = System.console() != null;
            for (int s = 1; s <= plan.seconds(); s++) {
                long wait = start + TimeUnit.SECONDS.toNanos(s) + DemoCommand.SECOND_SETTLE_NANOS - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(wait) + 1);
                }
                DemoCommand.progress(out, tty, load.timeline().second(s));
                if (plan.kill() && s == Math.max(1, plan.seconds() / 2)) {
                    int coordinator = cluster.awaitRingCoordinator("ring-0", Duration.ofSeconds(5));
                    killed = Math.max(0, coordinator);
                    killAt = System.nanoTime() - start;
                    cluster.kill(killed);
                    if (tty) {
                        out.println();
                    }
                    out.printf("  >> killed %s, replica %d (partition %d), with SIGKILL at %.1f s%n",
                            coordinator < 0 ? "a replica (none reported coordinating ring-0)" : "ring-0's coordinator",
                            killed, file.partitionOf(killed), killAt / 1e9);
                }
                if (killed >= 0 && !cluster.isAlive(killed) && s == Math.max(1, plan.seconds() * 3 / 4)) {
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
            if (killed >= 0 && !cluster.isAlive(killed)) {
                cluster.start(killed, Duration.ofSeconds(60)); // a load phase too short to reach three quarters
            }
            Histogram total = load.total();
            long measured = load.completed() - base;
            out.println();
            out.println("results");
            out.printf("  runtime          Volery, %d partition%s x 3 replicas, multi-ring (u-ring rings), s-smr%n",
                    plan.partitions(), plan.partitions() == 1 ? "" : "s");
            out.printf("  throughput       %,.0f requests/s over %d s (%,d acknowledged, %,d failed or unknown, %d sessions "
                    + "expired and reopened)%n", measured / (end / 1e9), plan.seconds(), measured, load.failed(), load.reopened());
            out.printf("  latency (us)     p50 %,d  p90 %,d  p99 %,d  p99.9 %,d  max %,d%n",
                    total.getValueAtPercentile(50), total.getValueAtPercentile(90), total.getValueAtPercentile(99),
                    total.getValueAtPercentile(99.9), total.getMaxValue());
            if (killed >= 0) {
                out.printf("  fail-over        replica %d killed at %.1f s; longest gap without a completed request: %d ms%n",
                        killed, killAt / 1e9, load.longestGapAfter(killAt, end).toMillis());
            }
            VoleryConvergence.Outcome o = VoleryConvergence.await(cluster, DemoCommand.CATCH_UP_TIMEOUT);
            out.printf("  convergence      %s%s%n", o.converged() ? "" : "FAILED: ", o.describe());
            long lost = load.countLost(out);
            if (lost == 0) {
                out.println("  check            OK: every acknowledged setData is readable (" + load.znodes() + " znodes read)");
            } else {
                out.println("  check            FAILED: " + lost + " acknowledged setData values are missing");
            }
            return o.converged() && lost == 0;
        }
    }
}
