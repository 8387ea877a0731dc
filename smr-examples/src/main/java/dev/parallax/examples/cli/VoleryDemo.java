package dev.parallax.examples.cli;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * {@code parallax demo --service volery}: the demo's scenario on Volery (seed 004 (S-SMR) §V-B,
 * §VI): P partitions × 3 replica processes with durable state ({@link PartitionedClusters#volery}), a
 * {@link VoleryLoad} of ZooKeeper sessions (setData on owned znodes, some create/delete), the
 * coordinator of partition 0's ring killed with SIGKILL halfway through the load and restarted at
 * three quarters; then whether each partition's replicas converged ({@link PartitionConvergence}) and
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

    /** A demo of {@code plan} reporting on {@code out}. */
    VoleryDemo(PrintStream out, Plan plan) {
        this.out = out;
        this.plan = plan;
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
            DemoPhase.Result phase = DemoPhase.run(out, cluster, plan.seconds(), load.startedAt(), load.timeline(),
                    plan.kill() ? DemoPhase.ringCoordinator(cluster, "ring-0") : null);
            load.stop(Duration.ofSeconds(30));
            Histogram total = load.total();
            long measured = load.completed() - base;
            out.println();
            out.println("results");
            out.printf("  runtime          Volery, %d partition%s x 3 replicas, multi-ring (u-ring rings), s-smr%n",
                    plan.partitions(), plan.partitions() == 1 ? "" : "s");
            out.printf("  throughput       %,.0f requests/s over %d s (%,d acknowledged, %,d failed or unknown, %d sessions "
                    + "expired and reopened)%n", measured / (phase.endNanos() / 1e9), plan.seconds(), measured, load.failed(),
                    load.reopened());
            out.println(DemoPhase.latencyLine(total));
            if (phase.killed() >= 0) {
                out.println(DemoPhase.failOverLine(phase, load.longestGapAfter(phase.killAtNanos(), phase.endNanos()), "request"));
            }
            PartitionConvergence.Outcome o = PartitionConvergence.await(cluster, DemoCommand.CATCH_UP_TIMEOUT);
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
