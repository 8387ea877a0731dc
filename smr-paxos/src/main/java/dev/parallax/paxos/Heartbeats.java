package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.protocol.Effects;

/**
 * The leader's heartbeat round and its acknowledgements.
 *
 * <ul>
 *   <li><b>The leader</b> makes sure every member hears from it at least every heartbeat interval
 *       (seed 000 §V-C3): when it broadcast nothing for that long ({@link ViewMonitor#heartbeatDue})
 *       it sends {@link PaxosMessage.Heartbeat Heartbeat(view, firstUndecided)} to every member of
 *       the current and pending memberships. Under load its proposals stand in for heartbeats, but a
 *       learner answers none of them: learners get a heartbeat every interval anyway, because their
 *       acknowledgements are how the leader sees them catch up (the promotion gate,
 *       {@link MembershipGate}).</li>
 *   <li><b>A follower</b> learns from a heartbeat of its view how far decisions go, and answers the
 *       leader of its view with {@link PaxosMessage.HeartbeatAck HeartbeatAck(view, firstUndecided)}
 *       — not while it recovers from amnesia. The acknowledgement shows the leader that the follower
 *       hears it (check-quorum counts it, Raft thesis §6.2: {@link QuorumCheck}).</li>
 *   <li><b>The leader</b> learns from an acknowledgement how far decisions go at the follower, keeps
 *       it for {@link LeadershipTransfer}, and, once a transfer's target reports every instance the
 *       leader proposed decided, sends it {@link PaxosMessage.TimeoutNow} (Raft thesis §3.10).</li>
 * </ul>
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class Heartbeats {
    private final PaxosConfig config;
    private final int self;
    private final Group group;
    private final MembershipHistory members;
    private final Learner learner;
    private final Proposer proposer;
    private final ViewMonitor monitor;
    private final LeadershipTransfer transfer;
    private final AmnesiaRecovery recovery;
    /** When the leader next heartbeats its learners although it is busy proposing. */
    private long nextLearnerHeartbeat;

    Heartbeats(PaxosConfig config, int self, Group group, MembershipHistory members, Learner learner,
               Proposer proposer, ViewMonitor monitor, LeadershipTransfer transfer, AmnesiaRecovery recovery) {
        this.config = config;
        this.self = self;
        this.group = group;
        this.members = members;
        this.learner = learner;
        this.proposer = proposer;
        this.monitor = monitor;
        this.transfer = transfer;
        this.recovery = recovery;
    }

    /** A tick of a replica that leads or starts {@code view}: heartbeat every member, or the learners, if due. */
    void tick(long view, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (proposer.isLeading() && monitor.heartbeatDue(now)) {
            PaxosMessage.Heartbeat hb = new PaxosMessage.Heartbeat(view, learner.firstUndecided());
            Group.sendToOthers(group.recipients(), self, hb, out);
            monitor.broadcastSent(now);
            nextLearnerHeartbeat = now + config.heartbeatNanos();
        } else if (proposer.isLeading() && now - nextLearnerHeartbeat >= 0) {
            // Under load proposals stand in for heartbeats, but a learner answers none of them:
            // its heartbeat acknowledgements are how the leader sees it catch up (promotion).
            int learners = group.recipients() & ~members.voters(learner.firstUndecided());
            if (learners != 0) {
                Group.sendToOthers(learners, self, new PaxosMessage.Heartbeat(view, learner.firstUndecided()), out);
            }
            nextLearnerHeartbeat = now + config.heartbeatNanos();
        }
    }

    /** A heartbeat to {@code target} alone, of {@code view}: a leadership transfer asks where it stands. */
    void sendTo(int target, long view, Effects<PaxosMessage, PaxosRecord, Value> out) {
        out.send(target, new PaxosMessage.Heartbeat(view, learner.firstUndecided()));
    }

    /** {@code from}'s heartbeat arrived; {@code view} is ours (after adopting a higher one). */
    void onHeartbeat(int from, PaxosMessage.Heartbeat hb, long view, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (hb.view() == view) {
            learner.noteDecidedUpTo(hb.firstUndecided() - 1);
            if (from != self && from == Membership.leaderOf(view) && !recovery.recovering()) {
                out.send(from, new PaxosMessage.HeartbeatAck(view, learner.firstUndecided()));
            }
        }
    }

    /** {@code from} acknowledged a heartbeat; {@code view} is ours (after adopting a higher one). */
    void onAck(int from, PaxosMessage.HeartbeatAck a, long view, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (a.view() == view) {
            // Every instance below the follower's first undecided one is decided.
            learner.noteDecidedUpTo(a.firstUndecided() - 1);
            transfer.acked(from, a.firstUndecided());
            if (proposer.isLeading() && transfer.ready(from, proposer.nextInstance())) {
                out.send(from, new PaxosMessage.TimeoutNow(view, learner.firstUndecided()));
            }
        }
    }
}
