package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.nio.ByteBuffer;

/**
 * What a dissemination {@link Variant} may call of the shared Ring Paxos engine ({@link RingEngine}):
 * the rules both of seed 003 (Ring Paxos)'s algorithms share ("statements in gray", Alg. 2 and Alg. 3):
 * rounds, the acceptor's vote (C4), the learner (C5), the value cache, the proposer's hand-over (C7)
 * and the coordinator's opening of instances (C3). This interface is fixed.
 *
 * <p>The step's output type {@code Out} is {@code Effects<RingWire, RingRecord, RingValue>}: the effects of the step
 * in which the variant is called (Java has no type alias, so the signatures spell it out).
 *
 * <p>Not thread-safe: called only from the core's driver thread, inside a step; never blocks.
 */
public interface Engine {

    /** The configuration. */
    RingConfig config();

    /** This member's id. */
    int self();

    /** The acceptor's current round (its promise), -1 before any. */
    long rnd();

    /** The ring of {@link #rnd()}, or null if none is known. */
    Ring ring();

    /** Whether this member coordinates {@link #rnd()} and has finished its Phase 1. */
    boolean leading();

    /**
     * The acceptor's vote (C4; seed 003 (Ring Paxos) Alg. 1 l.20, Alg. 2/3 Task 4): votes iff
     * {@code round ≥ rnd} and {@code instance} lies at or above the trim point, then {@code rnd =
     * round}; persists the {@link RingRecord.VoteRecord} with sync in this step (so the vote is
     * durable before anything the step sends reveals it). The same (round, vid) again is
     * idempotent (true, no record); another vid in the same round is refused (false, counted).
     *
     * @param ring the ring of {@code round} (adopted if {@code round} is newer than {@link #rnd()})
     * @return whether this member's vote for (instance, round) is now {@code vid}
     */
    boolean vote(long instance, long round, Ring ring, ValueId vid, ByteBuffer value, Effects<RingWire, RingRecord, RingValue> out);

    /** The vid this member voted for {@code instance} in exactly {@code round}, or null. */
    ValueId votedVid(long instance, long round);

    /**
     * {@code instance} is decided as {@code vid} (C5: only from a process that saw a ring's quorum of votes).
     * {@code valueOrNull} may be null for an id-only decision: the body is resolved through the
     * value cache, or fetched by catch-up (C6). Known decisions are ignored.
     */
    void learn(long instance, ValueId vid, ByteBuffer valueOrNull, Effects<RingWire, RingRecord, RingValue> out);

    /** The body of {@code vid} if this member holds it (own pending, forwarded, voted, received), else null. */
    ByteBuffer valueOf(ValueId vid);

    /**
     * Keeps {@code vid}'s body for an id-only decision to come.
     *
     * @return false if the learner buffer bound refused it (counted; fetched later by catch-up)
     */
    boolean rememberValue(ValueId vid, ByteBuffer value);

    /** A proposal reached this member through the variant: the coordinator queues it, others forward it. */
    void proposalArrived(ProposalEntry proposal, Effects<RingWire, RingRecord, RingValue> out);

    /** Whether {@code instance} is known decided. */
    boolean isDecided(long instance);

    /** The first instance not yet decided in order (everything below was decided). */
    long firstUndecided();

    /** Records that an entry of {@code instance} of the current round arrived (reported as {@code Alive.lastSeen}). */
    void sawInstance(long instance);

    /** The coordinator opens more instances if its window and bounds allow (C3). */
    void openMore(Effects<RingWire, RingRecord, RingValue> out);

    /**
     * Whether a ring of {@code acceptors} acceptors can be one a coordinator laid out: a majority
     * of the voters of a member set ({@link RingGroup}); for a fixed set, {@link RingConfig#ringAcceptors()}.
     */
    default boolean plausibleAcceptors(int acceptors) {
        return acceptors == config().ringAcceptors();
    }
}
