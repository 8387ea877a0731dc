package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.protocol.Effects;

/**
 * This replica's view and the moves between views: starting one, adopting a higher one, stepping
 * down from one it leads.
 *
 * <ul>
 *   <li><b>The view is the acceptor's promise</b>; the leader of view {@code v} is
 *       {@link Membership#leaderOf} {@code v} (JPaxos: {@code v mod n}).</li>
 *   <li><b>Adopting</b> a view seen in a message writes nothing (nothing was promised to anyone
 *       yet): the replica follows that view's leader, its suspicion clock starts over and any
 *       pre-vote round ends. A view it leads but did not start in this incarnation it never
 *       reuses (it may have proposed in it before a crash): it starts the next view it leads.</li>
 *   <li><b>Starting</b> a view runs Phase 1 once for every open instance (seed 000 §III-A;
 *       "Paxos Made Simple" §3). The leader's own promise is durable before its Prepare leaves
 *       (same step, synced), so a restart never reuses the view. The check-quorum clock, the
 *       suspicion clock, any pre-vote round and any leadership transfer start over.</li>
 *   <li><b>The initial view</b>: the leader of view 0 of a fresh cluster starts it on its first
 *       tick; a restarted replica does not rush to lead ({@link RestartHold}).</li>
 *   <li><b>Stepping down</b> (check-quorum, Raft thesis §6.2, {@link QuorumCheck}): a replica that
 *       leads or starts its view and heard from no quorum within the suspect timeout (outside the
 *       start-up grace), or that the membership in effect no longer lets vote, stops leading and
 *       tells its followers ({@link PaxosMessage.StepDown}).</li>
 *   <li><b>Bounded views</b>: a replica never starts a view beyond {@link WireBounds#MAX_VIEW}.</li>
 * </ul>
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class ViewChanges {
    private final PaxosConfig config;
    private final int self;
    private final Group group;
    private final Acceptor acceptor;
    private final Learner learner;
    private final Proposer proposer;
    private final ViewMonitor monitor;
    private final PreVoter preVoter;
    private final QuorumCheck quorumCheck;
    private final LeadershipTransfer transfer;
    private final AmnesiaRecovery recovery;
    private final RestartHold hold;
    private long viewsStarted;
    private long stepDowns;

    ViewChanges(PaxosConfig config, int self, Group group, Acceptor acceptor, Learner learner, Proposer proposer,
                ViewMonitor monitor, PreVoter preVoter, QuorumCheck quorumCheck, LeadershipTransfer transfer,
                AmnesiaRecovery recovery, RestartHold hold) {
        this.config = config;
        this.self = self;
        this.group = group;
        this.acceptor = acceptor;
        this.learner = learner;
        this.proposer = proposer;
        this.monitor = monitor;
        this.preVoter = preVoter;
        this.quorumCheck = quorumCheck;
        this.transfer = transfer;
        this.recovery = recovery;
        this.hold = hold;
    }

    /** The current view: the acceptor's promise. */
    long view() {
        return acceptor.promised();
    }

    /**
     * The replica this one believes leads: the leader of its view, or, when that is no voter, the
     * voter after it.
     */
    int leaderHint() {
        int leader = Membership.leaderOf(view());
        Membership m = group.current();
        return m.isVoter(leader) ? leader : m.voterAfter(leader);
    }

    /**
     * The first tick of this incarnation: the leader of the initial view of a fresh cluster starts
     * it. After a restart we never reuse a view we may have led, and we do not rush to lead either:
     * a replica that lagged behind would stall the cluster while it catches up. It follows whoever
     * leads now (any message of a higher view) and starts a new view only if it hears nobody for
     * its suspect timeout.
     */
    void startInitial(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!hold.restarted() && Membership.leaderOf(view()) == self && group.current().isVoter(self)) {
            start(view(), now, out);
        }
    }

    /**
     * On a tick: a replica that leads or starts its view steps down if it heard no quorum within
     * the suspect timeout (outside the start-up grace), or if it was removed (the membership in
     * effect has no vote for it any more: it hands over at once).
     */
    void checkQuorum(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (proposer.state() != Proposer.State.FOLLOWER && quorumCheck.lost(now) && !hold.startingAlone(now)) {
            stepDown(now, out);
        } else if (proposer.state() != Proposer.State.FOLLOWER && !group.votesNowOrNext(self)) {
            // Removed: the membership in effect has no vote for us any more. Hand over at once.
            stepDown(now, out);
        }
    }

    /** A message of the higher view {@code newView} arrived (or a recovery fence needs it): move there. */
    void adopt(long newView, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        acceptor.adopt(newView);
        proposer.stepDown();
        preVoter.clear();
        monitor.viewChanged(now);
        if (Membership.leaderOf(newView) == self && !recovery.recovering()) {
            // A view we lead that we did not start in this incarnation: never reuse it.
            startNext(now, out);
        }
    }

    /**
     * Starts the next view this replica leads, unless it lies beyond {@link WireBounds#MAX_VIEW}
     * (its messages would be refused; 2^62 view changes are out of reach, but a recovered promise
     * could be corrupt): then it stays a follower.
     */
    void startNext(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!group.current().isVoter(self)) {
            return;
        }
        long next = nextViewLedBy(config, self, view());
        if (WireBounds.isView(next)) {
            start(next, now, out);
        }
    }

    private void start(long newView, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        viewsStarted++;
        transfer.clear();
        preVoter.clear();
        quorumCheck.reset(now);
        // Our own promise of the view is durable before the Prepare leaves (same step, sync), so a
        // restart never reuses the view.
        acceptor.persistPromise(newView, out);
        monitor.viewChanged(now);
        proposer.startView(newView, learner.firstUndecided(), now, out);
    }

    /**
     * Check-quorum: we lead (or start) our view but heard from no quorum within the suspect
     * timeout. Stop leading — no more proposals, retransmissions or heartbeats, so pending client
     * work is refused or redirected as by any replica that does not lead — and tell the followers,
     * who may then replace us at once instead of after their own suspect timeout. We stay in the
     * view as a follower of nobody: our own detector suspects us in time, and any message of a
     * newer view moves us there.
     */
    private void stepDown(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        stepDowns++;
        proposer.stepDown();
        monitor.viewChanged(now);
        PaxosMessage.StepDown sd = new PaxosMessage.StepDown(view());
        Group.sendToOthers(group.recipients(), self, sd, out);
    }

    /** Views this replica started (Phase 1 runs). */
    long started() {
        return viewsStarted;
    }

    /** Times this replica stepped down from a view it led or started because it heard no quorum. */
    long stepDowns() {
        return stepDowns;
    }

    /**
     * The first view above {@code after} that {@code replica} leads, computed (no loop over views).
     * For {@code after} in {@code [0, MAX_VIEW]} the result is at most {@code MAX_VIEW + ID_SPACE}:
     * no overflow; for a larger {@code after} (a corrupt recovered promise) it is {@code -1}.
     */
    static long nextViewLedBy(PaxosConfig config, int replica, long after) {
        if (after < -1 || after > WireBounds.MAX_VIEW) {
            return -1;
        }
        return Membership.nextViewLedBy(replica, after);
    }
}
