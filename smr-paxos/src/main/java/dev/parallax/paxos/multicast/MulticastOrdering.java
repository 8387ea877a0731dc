package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.StreamOrdering;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessage;

/**
 * The reference atomic multicast ({@link PaxosMulticast}: one Multi-Paxos instance per group and a
 * global one, merged deterministically, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 Alg. 1) as a
 * replica's ordering protocol, named {@value #NAME}: the {@link StreamOrdering} of a
 * {@link PaxosStreamPlan} over k groups ({@code multicast.groups}), every stream configured by the
 * cluster's {@code paxos.*} settings. It is the correctness baseline the multicast's users (P-SMR
 * per worker, seed 003 ch. 6) also run on, next to Multi-Ring Paxos; each stream has a leader, and a
 * message reaches it over the forward channel.
 *
 * <p>Stateless; the protocol is immutable and thread-safe.
 */
public final class MulticastOrdering {
    /** The protocol name (cluster files: {@code ordering=multicast}). */
    public static final String NAME = "multicast";
    /** The most groups: one Multi-Paxos instance each, all in one replica process. */
    public static final int MAX_GROUPS = 16;

    private MulticastOrdering() {
    }

    /**
     * The reference multicast over {@code groups} groups (0..groups-1), every stream ordered by
     * Multi-Paxos with {@code paxos}.
     *
     * @throws IllegalArgumentException if {@code groups} is not in 1..{@value #MAX_GROUPS}
     */
    public static StreamOrdering<PaxosMessage> protocol(PaxosConfig paxos, int groups) {
        if (groups < 1 || groups > MAX_GROUPS) {
            throw new IllegalArgumentException("multicast.groups must be 1.." + MAX_GROUPS + ", got " + groups);
        }
        return StreamOrdering.of(new PaxosStreamPlan(paxos, GroupSet.partition(groups)));
    }
}
