package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;

/**
 * A peer's side of amnesia recovery ({@link AmnesiaRecovery}; in the spirit of JPaxos' epoch-based
 * recovery, Kończak et al., "Recovery algorithms for Paxos-based state machine replication",
 * EpochSS, with view fences instead of epochs): the answer to a {@link PaxosMessage.RecoveryQuery}.
 * A peer whose promise was at most the query's fence first promises a view above it that the asker
 * does not lead — durably, before the answer leaves — so it never votes up to the fence again; then
 * it reports the highest instance it voted in or knows decided. A replica recovering itself stays
 * silent.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class RecoveryAnswers {
    private final int self;
    private final Acceptor acceptor;
    private final Learner learner;
    private final AmnesiaRecovery recovery;
    private final ViewChanges views;

    RecoveryAnswers(int self, Acceptor acceptor, Learner learner, AmnesiaRecovery recovery, ViewChanges views) {
        this.self = self;
        this.acceptor = acceptor;
        this.learner = learner;
        this.recovery = recovery;
        this.views = views;
    }

    /**
     * Answers {@code from}'s query.
     *
     * @param promisedBefore our promise before the query arrived (its view may have moved us since)
     */
    void answer(int from, PaxosMessage.RecoveryQuery q, long promisedBefore, long now,
                Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (recovery.recovering() || from == self) {
            return;
        }
        boolean fenced = recovery.fences(from, q, promisedBefore);
        if (fenced) {
            long fencedView = recovery.fencedView(from, q.view());
            if (views.view() < fencedView) {
                views.adopt(fencedView, now, out);
            }
            acceptor.persistPromise(views.view(), out);
        }
        long highest = Math.max(acceptor.highestVoted(),
                Math.max(learner.firstUndecided() - 1, learner.knownDecided()));
        out.send(from, new PaxosMessage.RecoveryReply(views.view(), q.view(), fenced, highest));
    }
}
