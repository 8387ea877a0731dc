package dev.parallax.scheduler.ssmr;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The network partitions of one {@link SsmrSimulation} run: each cuts a set of replicas (ids
 * {@code partition * replicasPerPartition + index}) off from the others for a while, inbound,
 * outbound or both. Not thread-safe.
 */
final class NetworkCuts {
    /** A network partition: {@code isolated} cut off from the rest during [from, until). */
    private record Cut(long from, long until, Set<Integer> isolated, boolean inbound, boolean outbound) {
        boolean active(long t) {
            return t >= from && t < until;
        }
    }

    private final List<Cut> cuts = new ArrayList<>();

    /**
     * Plans 0-2 cuts, each starting in the first 60 ms and lasting 5-45 ms, of one or two replicas
     * or a whole partition.
     */
    void plan(SplittableRandom rnd, int partitions, int replicasPerPartition) {
        int replicas = partitions * replicasPerPartition;
        int count = rnd.nextInt(3);
        for (int i = 0; i < count; i++) {
            Set<Integer> isolated = new HashSet<>();
            switch (rnd.nextInt(3)) {
                case 0 -> isolated.add(rnd.nextInt(replicas));
                case 1 -> {
                    isolated.add(rnd.nextInt(replicas));
                    isolated.add(rnd.nextInt(replicas));
                }
                default -> {
                    int p = rnd.nextInt(partitions);
                    for (int k = 0; k < replicasPerPartition; k++) {
                        isolated.add(p * replicasPerPartition + k);
                    }
                }
            }
            int way = rnd.nextInt(5);
            long from = rnd.nextLong(60 * SsmrSimulation.MS);
            cuts.add(new Cut(from, from + 5 * SsmrSimulation.MS + rnd.nextLong(40 * SsmrSimulation.MS), isolated,
                    way != 4, way != 3));
        }
    }

    /** How many cuts were planned. */
    int count() {
        return cuts.size();
    }

    /** Whether a message from replica {@code a} to replica {@code b} sent at {@code t} is lost. */
    boolean between(int a, int b, long t) {
        for (Cut c : cuts) {
            if (!c.active(t)) {
                continue;
            }
            boolean aIn = c.isolated().contains(a);
            boolean bIn = c.isolated().contains(b);
            if ((aIn && !bIn && c.outbound()) || (bIn && !aIn && c.inbound())) {
                return true;
            }
        }
        return false;
    }

    /** The first time at or after {@code t} when replica {@code r} is not cut off inbound (it learns then). */
    long healedInbound(int r, long t) {
        boolean moved = true;
        while (moved) {
            moved = false;
            for (Cut c : cuts) {
                if (c.inbound() && c.active(t) && c.isolated().contains(r)) {
                    t = c.until();
                    moved = true;
                }
            }
        }
        return t;
    }
}
