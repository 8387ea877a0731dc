package dev.parallax.examples.cli;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Checks, through each replica's metrics endpoint, that the replicas of a partitioned
 * ({@code execution=s-smr}) {@link ProcessCluster} converged: within each partition, an equal digest
 * gauge, {@value #VOLERY_DIGEST} for Volery or {@value #KV_DIGEST} for the key-value store (seed 004
 * (S-SMR) §IV: a partition's replicas execute the same commands in the same order, so they hold the
 * same state; partitions hold different data, so digests are not compared across them). The one
 * convergence check of the Volery and the key-value S-SMR demo, chaos run and process tests.
 * Stateless; call from one thread; blocks for the HTTP requests.
 */
final class PartitionConvergence {
    /** Volery's digest of a partition's znodes. */
    static final String VOLERY_DIGEST = "parallax_volery_digest";
    /** The key-value store's digest, of the replica's partition under S-SMR. */
    static final String KV_DIGEST = ReplicaConvergence.DIGEST;

    private PartitionConvergence() {
    }

    /**
     * How long the demo and the chaos run of the key-value store under S-SMR wait for each partition
     * to converge after the last restart: longer than the replicated store's 30 s, because a replica
     * that missed multi-partition commands gets their values from the other partitions by
     * retransmission (a 200 ms wait per 256 of them with the push-ahead, {@link ClosedLoopLoad#MIX})
     * on a machine that six replica JVMs keep busy.
     */
    static final Duration KV_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Whether a key-value store's replicas converged, and the report's line about it.
     *
     * @param converged   whether they did
     * @param description one line for a report
     */
    record Summary(boolean converged, String description) {
    }

    /**
     * Waits until the key-value store of {@code cluster} converged: each partition's digests
     * ({@link #await}, up to {@link #KV_TIMEOUT}) if it is {@link KvRouting#partitioned}, else every
     * replica's frontier and digest ({@link ReplicaConvergence#await}, up to {@code timeout}).
     *
     * @throws InterruptedException if interrupted while waiting
     */
    static Summary awaitStore(ProcessCluster cluster, Duration timeout) throws InterruptedException {
        if (KvRouting.partitioned(cluster.clusterFile())) {
            Outcome o = await(cluster, KV_TIMEOUT);
            return new Summary(o.converged(), o.describe());
        }
        ReplicaConvergence.Outcome o = ReplicaConvergence.await(cluster, timeout);
        return new Summary(o.converged(), o.describe());
    }

    /** The digest gauge of {@code file}'s service: {@link #VOLERY_DIGEST} or {@link #KV_DIGEST}. */
    static String digestOf(ClusterFile file) {
        return file.service().equals(ClusterFile.VOLERY) ? VOLERY_DIGEST : KV_DIGEST;
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
     * Polls every replica's digest of the cluster file's service ({@link #digestOf}) until each
     * partition agrees or {@code timeout} passes. Every replica must run with a metrics port.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    static Outcome await(ProcessCluster cluster, Duration timeout) throws InterruptedException {
        return await(cluster, cluster.clusterFile().partitionMembers(), timeout);
    }

    /**
     * As {@link #await(ProcessCluster, Duration)} over the replicas {@code partitions} lists per
     * partition (after a membership change: the joined replicas in, the replaced ones out).
     */
    static Outcome await(ProcessCluster cluster, List<int[]> partitions, Duration timeout) throws InterruptedException {
        String digest = digestOf(cluster.clusterFile());
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        int highest = cluster.size() - 1;
        for (int[] ids : partitions) {
            for (int id : ids) {
                highest = Math.max(highest, id);
            }
        }
        long[] digests = new long[highest + 1];
        java.util.Arrays.fill(digests, -1);
        while (true) {
            for (int[] ids : partitions) {
                for (int id : ids) {
                    digests[id] = cluster.gauge(id, digest);
                }
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
