package dev.parallax.examples.cli;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Checks, through each replica's metrics endpoint, that the replicas of a {@link ProcessCluster}
 * converged once the load stopped: the same decided frontier ({@code parallax_paxos_first_undecided},
 * or {@code parallax_ring_first_undecided} for Ring Paxos)
 * and the same store contents ({@code parallax_kv_digest}). With an ordering that orders by group
 * ({@link ClusterFile#routesByKey()}) there is no single frontier: Multi-Ring's rings (seed 003
 * ch. 5) never stop moving (every coordinator skips at rate λ, idle or not), and the reference
 * multicast's Multi-Paxos streams each have their own, so there the store digest alone must
 * agree; the frontiers (the first stream each replica lists) are reported only. Replicas are separate processes, so it
 * polls their endpoints until they agree or a deadline passes. Stateless; call from one thread.
 */
final class ReplicaConvergence {
    static final String FRONTIER = "parallax_paxos_first_undecided";
    /** The frontier of a Ring Paxos replica, which publishes no {@link #FRONTIER}. */
    static final String RING_FRONTIER = "parallax_ring_first_undecided";
    static final String DIGEST = "parallax_kv_digest";

    private ReplicaConvergence() {
    }

    /**
     * What every replica reported last; {@code -1} for a replica whose endpoint did not answer.
     *
     * @param converged whether all replicas reported the same positive frontier and the same digest
     * @param waited    how long it took (or the whole timeout)
     */
    record Outcome(boolean converged, long[] frontiers, long[] digests, Duration waited) {
        /** One line for a report, e.g. {@code every replica at instance 1,234, digest 0x...}. */
        String describe() {
            if (converged && Arrays.stream(frontiers).anyMatch(f -> f != frontiers[0])) {
                return String.format("every replica with store digest %013x (after %d ms; frontiers of several streams, not compared: %s)",
                        digests[0], waited.toMillis(), Arrays.toString(frontiers));
            }
            if (converged) {
                return String.format("every replica at instance %,d with store digest %013x (after %d ms)",
                        frontiers[0], digests[0], waited.toMillis());
            }
            return "replicas did not converge within " + waited.toSeconds() + " s: first undecided instances "
                    + Arrays.toString(frontiers) + ", store digests " + Arrays.toString(digests);
        }
    }

    /** The replica's decided frontier: Multi-Paxos' (S-Paxos' ordering layer's), else Ring Paxos'; -1 if neither answers. */
    static long frontier(ProcessCluster cluster, int id) {
        long f = cluster.gauge(id, FRONTIER);
        return f >= 0 ? f : cluster.gauge(id, RING_FRONTIER);
    }

    /**
     * Polls every replica's metrics until they agree or {@code timeout} passes. Blocks the caller;
     * every replica must run with a metrics port.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    static Outcome await(ProcessCluster cluster, Duration timeout) throws InterruptedException {
        return await(cluster, java.util.stream.IntStream.range(0, cluster.size()).toArray(), timeout);
    }

    /** As {@link #await(ProcessCluster, Duration)}, over the replicas {@code ids} (the members after a membership change). */
    static Outcome await(ProcessCluster cluster, int[] ids, Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        int n = ids.length;
        long[] frontiers = new long[n];
        long[] digests = new long[n];
        // Several streams (Multi-Ring's rings decide a skip every Δ even without load): no single frontier to compare.
        boolean frontiersSettle = !cluster.clusterFile().routesByKey();
        while (true) {
            for (int i = 0; i < n; i++) {
                frontiers[i] = frontier(cluster, ids[i]);
                digests[i] = cluster.gauge(ids[i], DIGEST);
            }
            boolean agree = digests[0] >= 0
                    && (!frontiersSettle || frontiers[0] > 0 && Arrays.stream(frontiers).allMatch(f -> f == frontiers[0]))
                    && Arrays.stream(digests).allMatch(d -> d == digests[0]);
            long now = System.nanoTime();
            if (agree || now >= deadline) {
                return new Outcome(agree, frontiers, digests, Duration.ofNanos(Math.min(now, deadline) - start));
            }
            Thread.sleep(Math.min(100, TimeUnit.NANOSECONDS.toMillis(deadline - now) + 1));
        }
    }
}
