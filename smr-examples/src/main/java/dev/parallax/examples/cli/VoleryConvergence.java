package dev.parallax.examples.cli;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Checks, through each replica's metrics endpoint, that the replicas of a Volery
 * {@link ProcessCluster} converged: within each partition, equal {@code parallax_volery_digest}
 * (seed 004 (S-SMR) §IV: a partition's replicas execute the same commands in the same order, so
 * they hold the same znodes; partitions hold different data, so digests are not compared across
 * them). Stateless; call from one thread; blocks for the HTTP requests.
 */
final class VoleryConvergence {
    static final String DIGEST = "parallax_volery_digest";

    private VoleryConvergence() {
    }

    /**
     * What every replica reported last, -1 where its endpoint did not answer.
     *
     * @param converged whether each partition's replicas reported the same digest
     * @param waited    how long it took (or the whole timeout)
     */
    record Outcome(boolean converged, List<int[]> partitions, long[] digests, Duration waited) {
        /** One line for a report. */
        String describe() {
            StringBuilder s = new StringBuilder(converged ? "each partition's replicas hold equal digests"
                    : "a partition's replicas did not converge within " + waited.toSeconds() + " s");
            for (int p = 0; p < partitions.size(); p++) {
                s.append(p == 0 ? ": " : "; ").append("partition ").append(p).append(' ');
                long[] d = Arrays.stream(partitions.get(p)).mapToLong(id -> digests[id]).toArray();
                s.append(converged ? String.format("%013x", d[0]) : Arrays.toString(d));
            }
            return s.append(converged ? " (after " + waited.toMillis() + " ms)" : "").toString();
        }
    }

    /**
     * Polls every replica's digest until each partition agrees or {@code timeout} passes. Every
     * replica must run with a metrics port.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    static Outcome await(ProcessCluster cluster, Duration timeout) throws InterruptedException {
        List<int[]> partitions = cluster.clusterFile().partitionMembers();
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long[] digests = new long[cluster.size()];
        while (true) {
            for (int i = 0; i < digests.length; i++) {
                digests[i] = ReplicaMetrics.gauge(cluster.metricsPort(i), DIGEST);
            }
            boolean agree = true;
            for (int[] ids : partitions) {
                for (int id : ids) {
                    agree &= digests[id] >= 0 && digests[id] == digests[ids[0]];
                }
            }
            long now = System.nanoTime();
            if (agree || now >= deadline) {
                return new Outcome(agree, partitions, digests.clone(), Duration.ofNanos(Math.min(now, deadline) - start));
            }
            Thread.sleep(Math.min(100, TimeUnit.NANOSECONDS.toMillis(deadline - now) + 1));
        }
    }
}
