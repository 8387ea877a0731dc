package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.MulticastBroadcast;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * Multi-Ring Paxos as a replica's total-order broadcast (seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5 §5.2, Alg. 1): the generic {@link MulticastBroadcast} over a {@link RingMulticast} of k
 * group rings and the global ring, every replica a member of every ring, with one lane per ring
 * laid out by the {@link MultiRingTopology}. Per worker (P-SMR, ch. 6) it opens one subscription
 * per worker ({@link MulticastBroadcast#startPerWorker}).
 *
 * <p>Stateless factories; the broadcasts follow {@link MulticastBroadcast}'s contract.
 */
public final class MultiRingBroadcast {
    private MultiRingBroadcast() {
    }

    /**
     * The broadcast over k rings, group g ordered by ring g (groups 0..k-1).
     *
     * @param self             this replica's id
     * @param rings            k, the group rings (groups 0..k-1), 1..{@link MultiRingConfig#MAX_RINGS}
     * @param multicastFactory builds and starts the rings and the multicast, called once, at the start
     * @param closeUnstarted   releases what the factory would have owned (transports, logs) when
     *                         the broadcast is closed without having been started
     */
    public static MulticastBroadcast create(int self, int rings, Supplier<RingMulticast> multicastFactory,
                                            Runnable closeUnstarted) {
        if (rings < 1 || rings > MultiRingConfig.MAX_RINGS) {
            throw new IllegalArgumentException("rings must be 1.." + MultiRingConfig.MAX_RINGS + ", got " + rings);
        }
        return create(self, MultiRingTopology.builder(1).rings(rings).build(), multicastFactory, closeUnstarted);
    }

    /**
     * The broadcast over the rings of {@code topology}: its groups (all subscribed), its group →
     * ring mapping for the lanes (lane i proposes to the groups of ring i).
     */
    public static MulticastBroadcast create(int self, MultiRingTopology topology, Supplier<RingMulticast> multicastFactory,
                                            Runnable closeUnstarted) {
        Objects.requireNonNull(multicastFactory, "multicastFactory");
        return create(self, topology, subscriptions -> multicastFactory.get(), closeUnstarted);
    }

    /**
     * As {@link #create(int, MultiRingTopology, Supplier, Runnable)}, with the subscriptions opened
     * by the factory before the rings start ({@code RingMulticast.Builder.initialSubscription}).
     */
    public static MulticastBroadcast create(int self, MultiRingTopology topology,
                                            MulticastBroadcast.MulticastFactory multicastFactory, Runnable closeUnstarted) {
        return new MulticastBroadcast(self, topology.groups(), subscribed(self, topology), topology.rings(), topology::ringOf,
                multicastFactory, closeUnstarted);
    }

    /**
     * The groups {@code self} delivers: those whose rings it runs (every group when it runs every
     * ring; a partition's group when each partition has a ring of its own replicas, seed 004 (S-SMR)
     * §IV). Whether it may subscribe to them (it must run the global ring too, when there is one)
     * the multicast checks when the broadcast starts.
     *
     * @throws IllegalArgumentException if {@code self} runs none of the group rings
     */
    static GroupSet subscribed(int self, MultiRingTopology topology) {
        GroupSet all = topology.groups();
        if (self < 0 || self >= topology.processes() && !runsAny(self, topology)) {
            return all; // a topology built for a count of processes only (tests, single-process factories)
        }
        long bits = 0;
        for (int g = all.first(); g >= 0; g = all.next(g)) {
            if (topology.runs(self, topology.ringOf(g))) {
                bits |= 1L << g;
            }
        }
        if (bits == 0) {
            throw new IllegalArgumentException("process " + self + " runs none of the group rings of " + topology);
        }
        return GroupSet.ofBits(bits);
    }

    /** Whether {@code self} runs some ring: one of its processes, or a replica that may join it. */
    private static boolean runsAny(int self, MultiRingTopology topology) {
        for (int ring : topology.ringIds()) {
            if (topology.runs(self, ring)) {
                return true;
            }
        }
        return false;
    }
}
