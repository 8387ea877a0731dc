package dev.parallax.examples.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;

/**
 * The faults of a chaos run on a partitioned cluster (seed 004 (S-SMR) §IV; Volery's and the
 * key-value store's under {@code execution=s-smr}): every 1.5 to 4 s, the replica that is down is
 * restarted, or, if every replica is up, a random one is killed with SIGKILL. One replica is down at
 * a time, so every partition keeps a majority of its ring and the global ring a majority of all: the
 * run checks that kills and recoveries lose nothing and break no linearizability, not what a
 * partition without a majority does (it stops, as S-SMR's rings must). No network partitions (the
 * replicated key-value chaos run injects those). Also the end of every chaos run: the replicas
 * still down restarted ({@link #restartAllDown}), the history clients stopped ({@link #stop}).
 *
 * <p>Stateless; runs on the caller's thread and blocks for the faults.
 */
final class KillRestartFaults {
    private static final Duration RESTART_TIMEOUT = Duration.ofSeconds(90);

    private KillRestartFaults() {
    }

    /**
     * What was done.
     *
     * @param kills    replicas killed
     * @param restarts replicas restarted (those still down at the end included)
     */
    record Counts(int kills, int restarts) {
    }

    /**
     * Kills and restarts replicas of {@code cluster} for {@code run}, drawing from {@code rnd};
     * then restarts the one down and prints that every replica is up. Each fault is printed with
     * {@code elapsed} (seconds since the load started).
     *
     * @throws IOException          if a replica cannot be restarted
     * @throws InterruptedException if interrupted
     */
    static Counts run(PrintStream out, ProcessCluster cluster, Random rnd, Duration run, DoubleSupplier elapsed)
            throws IOException, InterruptedException {
        int kills = 0;
        int restarts = 0;
        long end = System.nanoTime() + run.toNanos();
        while (System.nanoTime() < end) {
            Thread.sleep(1500 + rnd.nextInt(2500));
            int down = firstDown(cluster);
            if (down >= 0) {
                cluster.start(down, RESTART_TIMEOUT);
                restarts++;
                out.printf("  %6.1f s  restarted replica %d%n", elapsed.getAsDouble(), down);
            } else {
                int victim = rnd.nextInt(cluster.size());
                cluster.kill(victim);
                kills++;
                out.printf("  %6.1f s  killed replica %d (partition %d) with SIGKILL%n", elapsed.getAsDouble(), victim,
                        cluster.clusterFile().partitionOf(victim));
            }
        }
        restarts += restartAllDown(out, cluster, elapsed);
        return new Counts(kills, restarts);
    }

    /**
     * Restarts every replica of {@code cluster} that is down and prints that the faults stopped.
     *
     * @return how many were restarted
     * @throws IOException          if a replica cannot be restarted
     * @throws InterruptedException if interrupted
     */
    static int restartAllDown(PrintStream out, ProcessCluster cluster, DoubleSupplier elapsed)
            throws IOException, InterruptedException {
        int restarted = 0;
        for (int i = 0; i < cluster.size(); i++) {
            if (!cluster.isAlive(i)) {
                cluster.start(i, RESTART_TIMEOUT);
                restarted++;
            }
        }
        out.printf("  %6.1f s  faults stopped; every replica up%n", elapsed.getAsDouble());
        return restarted;
    }

    /**
     * Tells the history clients to stop ({@code running} false) and waits up to 60 s for each.
     *
     * @throws InterruptedException if interrupted
     */
    static void stop(AtomicBoolean running, List<Thread> workers) throws InterruptedException {
        running.set(false);
        for (Thread t : workers) {
            t.join(60_000);
        }
    }

    /** The first replica of {@code cluster} that is not running, or -1. */
    static int firstDown(ProcessCluster cluster) {
        for (int i = 0; i < cluster.size(); i++) {
            if (!cluster.isAlive(i)) {
                return i;
            }
        }
        return -1;
    }
}
