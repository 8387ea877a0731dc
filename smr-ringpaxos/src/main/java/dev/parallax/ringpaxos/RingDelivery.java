package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The learner's side of the engine (rule C5; Ring Paxos (seed 003) Alg. 2/3 Task 5): takes in a
 * decision, finds the body of a decision that came id-only (own pending proposals, the value
 * cache, the acceptor's votes), and hands decided values out in instance order — the learner
 * emits an instance only when its body is known and, on M-Ring, the acceptor's vote agrees where it
 * voted. What was handed out leaves the value cache and the proposer's pending set, and advances
 * the logical numbering (Multi-Ring Paxos; Ring Paxos / Multi-Ring / P-SMR (seed 003) ch. 5) and the
 * skip pacer.
 *
 * <p>Owns the logical numbering of the values this member emitted ({@link LogicalNumbering}).
 * The decided log is {@link RingLearner}'s, the bodies {@link ValueCache}'s and
 * {@link OwnProposals}'.
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingDelivery {
    private final RingAcceptor acceptor;
    private final RingLearner learner;
    private final ValueCache cache;
    private final OwnProposals own;
    private final Coordinator coordinator;
    private final SkipPacer pacer;
    private final RingLiveness liveness;
    private final RingPaxosCore.Observer observer;
    private final LogicalNumbering logical = new LogicalNumbering();
    private final RingGroup group;
    /** Why decided changes were ignored (the newest; for the log through status). */
    private String lastIgnoredChange;

    RingDelivery(RingAcceptor acceptor, RingLearner learner, ValueCache cache, OwnProposals own,
                 Coordinator coordinator, SkipPacer pacer, RingLiveness liveness, RingPaxosCore.Observer observer,
                 RingGroup group) {
        this.group = group;
        this.acceptor = acceptor;
        this.learner = learner;
        this.cache = cache;
        this.own = own;
        this.coordinator = coordinator;
        this.pacer = pacer;
        this.liveness = liveness;
        this.observer = observer;
    }

    /**
     * {@code instance} is decided as {@code vid} ({@code valueOrNull} null for an id-only decision:
     * the body is looked up here); delivers what that made ready. Returns false for a decision the
     * learner ignored (known, or below its trim point).
     */
    boolean learn(long instance, ValueId vid, ByteBuffer valueOrNull, Effects<RingWire, RingRecord, RingValue> out) {
        ByteBuffer body = valueOrNull != null ? valueOrNull : valueOf(vid);
        boolean known = learner.isDecided(instance);
        if (!learner.learn(instance, vid, body)) {
            return false;
        }
        if (!known) {
            observer.decided(instance, vid, body);
            if (coordinator.decided(instance, vid)) {
                liveness.openInstanceDecided();
            }
        }
        deliver(out);
        return true;
    }

    /** The body of {@code vid} if this member holds it (own pending, forwarded, voted, received), else null. */
    ByteBuffer valueOf(ValueId vid) {
        if (vid.isBodiless()) {
            return ByteBufferUtil.EMPTY;
        }
        ByteBuffer b = own.body(vid);
        if (b == null) {
            b = cache.get(vid);
        }
        if (b == null) {
            b = acceptor.bodyOf(vid, learner.firstUndecided());
        }
        return b;
    }

    /** Gives the decided instances whose body is missing the body this member now holds, if any. */
    void resolveMissingBodies() {
        if (learner.firstMissingBody() < 0) {
            return;
        }
        for (long i : learner.missingBodies()) {
            ValueId vid = learner.decidedVid(i);
            ByteBuffer b = valueOf(vid);
            if (b != null) {
                learner.learn(i, vid, b);
            }
        }
    }

    /** Hands out every decided instance ready in order. */
    void deliver(Effects<RingWire, RingRecord, RingValue> out) {
        long instance = learner.firstUndecided();
        List<RingLearner.Entry> emitted = learner.deliverReady(
                (i, vid) -> vid.equals(acceptor.voteAt(i) == null ? null : acceptor.voteAt(i).vid()), out);
        for (RingLearner.Entry e : emitted) {
            String ignored = group.delivered(instance++, e.vid, e.body);    // G2, in instance order
            if (ignored != null) {
                lastIgnoredChange = ignored;
            }
            cache.forget(e.vid);
            own.decided(e.vid);
            logical.emitted(e.vid);
            if (e.vid.isSkip()) {
                pacer.skipDecided(e.vid.upTo());   // a coordinator's clock reading: the lead follows it
            }
        }
        if (!emitted.isEmpty()) {
            pacer.emittedBelow(learner.firstUndecided());
        }
    }

    /** Why the latest decided change that the set refused was ignored, or null. */
    String lastIgnoredChange() {
        return lastIgnoredChange;
    }

    /** The logical numbering of the values this member emitted (read by the coordinator's opening). */
    LogicalNumbering logical() {
        return logical;
    }
}
