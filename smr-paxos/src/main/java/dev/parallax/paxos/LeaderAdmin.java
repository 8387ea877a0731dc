package dev.parallax.paxos;

import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.protocol.Effects;

/**
 * The operator's requests to the leader: a membership change, proposed only when
 * {@link MembershipGate} lets it go (one change at a time, rule R3 of {@link MembershipHistory};
 * no removal that leaves the voters the leader hears short of a quorum; no promotion of a learner
 * that has not caught up), and a leadership transfer (Raft thesis §3.10, {@link LeadershipTransfer}):
 * the leader stops taking new values and heartbeats the target, whose acknowledgement tells when it
 * has caught up ({@link Heartbeats}).
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class LeaderAdmin {
    private final PaxosConfig config;
    private final int self;
    private final MembershipHistory members;
    private final Group group;
    private final Learner learner;
    private final Proposer proposer;
    private final ViewMonitor monitor;
    private final QuorumCheck quorumCheck;
    private final LeadershipTransfer transfer;
    private final Heartbeats heartbeats;
    private final ViewChanges views;

    LeaderAdmin(PaxosConfig config, int self, MembershipHistory members, Group group, Learner learner,
                Proposer proposer, ViewMonitor monitor, QuorumCheck quorumCheck, LeadershipTransfer transfer,
                Heartbeats heartbeats, ViewChanges views) {
        this.config = config;
        this.self = self;
        this.members = members;
        this.group = group;
        this.learner = learner;
        this.proposer = proposer;
        this.monitor = monitor;
        this.quorumCheck = quorumCheck;
        this.transfer = transfer;
        this.heartbeats = heartbeats;
        this.views = views;
    }

    /** See {@link MultiPaxosCore#proposeMembership}: null if proposed, else why not. */
    String proposeMembership(MembershipChange change, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        String refusal = MembershipGate.refusal(change, self, proposer.isLeading(), views.leaderHint(), members,
                learner.firstUndecided(), proposer.membershipInFlight(), quorumCheck.heard(now), transfer.progress(),
                config.window());
        if (refusal != null) {
            return refusal;
        }
        if (!proposer.propose(Value.membership(change), now, out)) {
            return "the leader's window is full; retry";
        }
        monitor.broadcastSent(now);
        return null;
    }

    /** See {@link MultiPaxosCore#transferTarget}: the voter furthest along, or -1. */
    int transferTarget() {
        return transfer.bestTarget(group.current(), self, learner.firstUndecided());
    }

    /** See {@link MultiPaxosCore#transferLeadership}: null if started (or to ourselves), else why not. */
    String transferLeadership(int target, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!proposer.isLeading()) {
            return "replica " + self + " does not lead (replica " + views.leaderHint() + " does)";
        }
        if (target == self) {
            return null;
        }
        if (!group.current().isVoter(target)) {
            return "replica " + target + " is not a voter of " + group.current().describe();
        }
        transfer.start(target, now);
        proposer.pause(true);
        heartbeats.sendTo(target, views.view(), out);
        return null;
    }
}
