package dev.parallax.paxos;

import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.protocol.Effects;

/**
 * Where the messages of Phases 1 and 2 go at this replica ("Paxos Made Simple" §2.2–2.3; seed 000
 * §III-A): a {@code Prepare} to the {@link Acceptor}, a {@code PrepareOk} to the {@link Proposer},
 * a {@code Propose} to the {@link Learner} (it carries the value) and to the acceptor, an
 * {@code Accept} to the learner; an instance the learner decides frees the proposer's window.
 *
 * <p>Who votes: a replica recovering from amnesia neither promises nor votes ({@link AmnesiaRecovery});
 * an acceptor does not vote where it knows it is no voter of the instance's membership (a learner,
 * or removed). Where it does not know yet it votes: a vote counts only at learners that know the
 * membership and find the acceptor among its voters (rule R2 of {@link MembershipHistory}), so an
 * extra vote is harmless. A vote also tells a leadership transfer how far its sender is
 * ({@link LeadershipTransfer#voted}).
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class PaxosPhases {
    private final int self;
    private final MembershipHistory members;
    private final Group group;
    private final Acceptor acceptor;
    private final Learner learner;
    private final Proposer proposer;
    private final ViewMonitor monitor;
    private final LeadershipTransfer transfer;
    private final AmnesiaRecovery recovery;

    PaxosPhases(int self, MembershipHistory members, Group group, Acceptor acceptor, Learner learner, Proposer proposer,
                ViewMonitor monitor, LeadershipTransfer transfer, AmnesiaRecovery recovery) {
        this.self = self;
        this.members = members;
        this.group = group;
        this.acceptor = acceptor;
        this.learner = learner;
        this.proposer = proposer;
        this.monitor = monitor;
        this.transfer = transfer;
        this.recovery = recovery;
    }

    /** Phase 1a: promise, unless recovering from amnesia. */
    void onPrepare(int from, PaxosMessage.Prepare p, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!recovery.recovering()) {
            acceptor.onPrepare(from, p, out);
        }
    }

    /** Phase 1b: the proposer counts the promise; a Phase 1 it completes starts proposing. */
    void onPrepareOk(int from, PaxosMessage.PrepareOk ok, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        proposer.onPrepareOk(from, ok, now, out);
        if (proposer.isLeading()) {
            monitor.broadcastSent(now);
        }
    }

    /** Phase 2a: learn the value, and vote for it if this acceptor may. */
    void onPropose(int from, PaxosMessage.Propose p, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (learner.onPropose(p, out)) {
            proposer.onDecided(p.instance());
        }
        if (!recovery.recovering() && mayVote(p.instance())) {
            // The proposer hears the vote even where this replica does not know it as a
            // member yet (it lags behind the change that added it).
            acceptor.onPropose(p, group.recipients() | (1 << self) | (1 << from), out);
        }
    }

    /** Phase 2b: count the vote. */
    void onAccept(int from, PaxosMessage.Accept a, Effects<PaxosMessage, PaxosRecord, Value> out) {
        transfer.voted(from, a.instance());
        if (learner.onAccept(from, a, out)) {
            proposer.onDecided(a.instance());
        }
    }

    /**
     * Whether this acceptor votes for {@code instance}: not where it knows it is no voter of the
     * instance's membership (see the class comment).
     */
    private boolean mayVote(long instance) {
        return !members.knows(instance, learner.firstUndecided()) || members.at(instance).isVoter(self);
    }
}
