package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.util.function.LongSupplier;

/**
 * The engine's side of amnesia recovery (rule C10, {@link RingRecovery}): the acceptor's promise
 * and trim point, the learner's decided prefix (the catch-up target), and the round change a
 * fenced promise causes ({@link RingRounds#adoptRound}). Owns no state.
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); called by
 * {@link RingRecovery} inside one of the engine's steps; never blocks.
 */
final class RingRecoveryHost implements RingRecovery.Host {
    private final RingAcceptor acceptor;
    private final RingLearner learner;
    private final RingRounds rounds;
    private final LongSupplier stepTime;

    /** @param stepTime the driver's time of the engine's current step (the engine's, not a clock) */
    RingRecoveryHost(RingAcceptor acceptor, RingLearner learner, RingRounds rounds, LongSupplier stepTime) {
        this.acceptor = acceptor;
        this.learner = learner;
        this.rounds = rounds;
        this.stepTime = stepTime;
    }

    @Override
    public long rnd() {
        return acceptor.rnd();
    }

    @Override
    public long firstUndecided() {
        return learner.firstUndecided();
    }

    @Override
    public void noteDecidedUpTo(long instance) {
        learner.noteDecidedBelow(instance + 1);
    }

    @Override
    public void restoreAfterAmnesia(long trimBelow, long promise, Effects<RingWire, RingRecord, RingValue> out) {
        acceptor.trimBelow(trimBelow);
        out.persist(new RingRecord.Trim(trimBelow), true);
        acceptor.promise(promise, out);
    }

    @Override
    public long highestVotedOrDecided() {
        return Math.max(acceptor.highestVoted(), learner.knownDecidedBelow() - 1);
    }

    @Override
    public void promise(long round, Effects<RingWire, RingRecord, RingValue> out) {
        boolean newer = round > acceptor.rnd();
        acceptor.promise(round, out);
        if (newer) {
            rounds.adoptRound(round, null, stepTime.getAsLong(), out);
        }
    }
}
