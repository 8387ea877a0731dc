package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.util.List;
import java.util.function.ObjLongConsumer;

/**
 * One way of disseminating Phase 2 and decisions over a ring: U-Ring ({@link UnicastPath}, seed 003
 * (Ring Paxos) Alg. 3 Tasks 3–5) or M-Ring ({@code DatagramPath}, Alg. 2 Tasks 3–5). The shared
 * {@link Engine} owns rounds, Phase 1, the acceptor, the learner, catch-up, proposers and failure
 * handling; a variant owns how values and votes travel. This split is fixed.
 *
 * <p>Not thread-safe: called only from the core's driver thread, inside a step; never blocks.
 */
public interface Variant {

    /**
     * The ring of {@code round} chosen after its Phase 1 (C2, ring re-formation): from the members that
     * answered Phase 1 ({@code responders}, this member excluded) and the other members heard
     * within the suspect time-out ({@code live}, responders and excluded members left out), each
     * list in id order.
     */
    Ring layout(long round, List<Integer> responders, List<Integer> live);

    /**
     * {@link #layout(long, List, List)} for a ring drawn from a decided member set ({@link RingGroup},
     * rule G5): {@code others} acceptors besides this member (a majority of the set's voters, less
     * one), {@code responders} and {@code live} being voters only; {@code learners}, the set's live
     * non-voting members, ride a U-Ring after every voter (G8) and stay off an M-Ring.
     */
    Ring layout(long round, List<Integer> responders, List<Integer> live, int others, List<Integer> learners);

    /**
     * The coordinator opens {@code entries} in {@code round} on {@code ring} (its own votes are
     * already persisted in this step): send the 2A part.
     */
    void open(Ring ring, long round, List<Phase2Entry> entries, Effects<RingWire, RingRecord, RingValue> out);

    /** Sends this member's own (or a received) proposal towards the coordinator. */
    void forwardProposal(ProposalEntry proposal, Effects<RingWire, RingRecord, RingValue> out);

    /** A message this variant may own arrived; returns false if it is not the variant's. */
    boolean onMessage(int from, RingWire m, long now, Effects<RingWire, RingRecord, RingValue> out);

    /** Time passed: retransmissions, flushes. */
    void onTick(long now, Effects<RingWire, RingRecord, RingValue> out);

    /** The round or the ring changed (null: no ring); {@code leading} whether this member now coordinates. */
    void roundChanged(Ring ringOrNull, boolean leading, long now);

    /** How many instances the coordinator may have open now. */
    int window(long now);

    /** The member to ask for the {@code attempt}-th catch-up query (0, 1, ...). */
    int catchUpTarget(int attempt);

    /** The highest instance of the current round this member has seen disseminated (reported in {@code Alive.lastSeen}). */
    long lastSeen();

    /** The coordinator heard {@code member}'s {@code Alive}. */
    void alive(int member, RingMessage.Alive a, long now);

    /** Reports the variant's event counters (names fixed, counts never decrease). */
    void reportEvents(ObjLongConsumer<String> sink);
}
