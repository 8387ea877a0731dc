package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.protocol.Effects;

/**
 * Whether the leader of this replica's view and its followers still hear each other, and what a
 * replica does when they do not.
 *
 * <ul>
 *   <li><b>Leader traffic</b> — a {@code Heartbeat}, {@code Propose}, {@code Prepare} or
 *       {@code Accept} of our view from its leader — restarts the follower's suspicion clock
 *       ({@link ViewMonitor}, seed 000 §V-C3). Catch-up and recovery traffic does not: a replica
 *       that leads our view on paper but is recovering from amnesia (or only catching up) sends
 *       those, and must not keep the others from suspecting it.</li>
 *   <li><b>Check-quorum</b> (Raft thesis §6.2, {@link QuorumCheck}): a {@code HeartbeatAck},
 *       {@code Accept} or {@code PrepareOk} of our view shows that its sender hears us while we
 *       lead or start the view.</li>
 *   <li><b>A leader that gave up</b> — its {@link PaxosMessage.StepDown}, or a pre-vote it asks to
 *       replace itself — counts as silent for the suspect timeout already
 *       ({@link ViewMonitor#leaderSteppedDown}).</li>
 *   <li><b>Suspicion</b> (on ticks, or from the detector thread through
 *       {@link MultiPaxosCore#onSuspect}; kept during the {@link RestartHold}) starts a pre-vote
 *       round (Raft thesis §9.6, {@link PreVoter}), asked again every retransmit period while the
 *       leader stays silent; a quorum of grants starts the next view this replica leads. A single
 *       voter starts it at once.</li>
 *   <li><b>{@link PaxosMessage.TimeoutNow}</b> from the leader of our view (a leadership transfer,
 *       Raft thesis §3.10): start the next view we lead at once, without a pre-vote.</li>
 * </ul>
 * A replica recovering from amnesia neither starts views nor grants pre-votes.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class LeaderContact {
    private final PaxosConfig config;
    private final int self;
    private final Group group;
    private final Learner learner;
    private final Proposer proposer;
    private final ViewMonitor monitor;
    private final QuorumCheck quorumCheck;
    private final PreVoter preVoter;
    private final AmnesiaRecovery recovery;
    private final RestartHold hold;
    private final ViewChanges views;

    LeaderContact(PaxosConfig config, int self, Group group, Learner learner, Proposer proposer, ViewMonitor monitor,
                  QuorumCheck quorumCheck, PreVoter preVoter, AmnesiaRecovery recovery, RestartHold hold,
                  ViewChanges views) {
        this.config = config;
        this.self = self;
        this.group = group;
        this.learner = learner;
        this.proposer = proposer;
        this.monitor = monitor;
        this.quorumCheck = quorumCheck;
        this.preVoter = preVoter;
        this.recovery = recovery;
        this.hold = hold;
        this.views = views;
    }

    /**
     * Any message {@code m} from {@code from}, once its view was adopted: whether it shows the
     * leader of our view at work, or shows us, leading or starting our view, heard.
     */
    void observe(int from, PaxosMessage m, long now) {
        long view = views.view();
        if (m.view() == view && from == Membership.leaderOf(view) && isLeaderTraffic(m)) {
            monitor.heardFromLeader(now);
        }
        if (from != self && m.view() == view && proposer.state() != Proposer.State.FOLLOWER && hearsUs(m)) {
            quorumCheck.acked(from, now);
        }
    }

    /** The leader of our view hands over: start the next view we lead now, no pre-vote. */
    void onTimeoutNow(int from, PaxosMessage.TimeoutNow t, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        long view = views.view();
        if (t.view() == view && from == Membership.leaderOf(view) && from != self && following()
                && !recovery.recovering() && group.current().isVoter(self)) {
            learner.noteDecidedUpTo(t.firstUndecided() - 1);
            views.startNext(now, out);
        }
    }

    /** A candidate asks for our pre-vote ({@link PreVoter#answer}). */
    void onPreVote(int from, PaxosMessage.PreVote pv, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (pv.view() == views.view() && from != self && from == Membership.leaderOf(views.view()) && following()) {
            // The leader of our view asks to replace itself: it does not lead (it stepped down,
            // or restarted). Its pre-votes and catch-up queries keep arriving, so the detector
            // thread, which reads arrival stamps, would never suspect it: this is a step-down.
            monitor.leaderSteppedDown(now);
        }
        preVoter.answer(from, pv, views.view(), following(), monitor.leaderSilent(now), recovery.recovering(),
                learner.firstUndecided(), out);
    }

    /** A peer answered our pre-vote: start the next view we lead once a quorum granted. */
    void onPreVoteReply(int from, PaxosMessage.PreVoteReply r, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (preVoter.onReply(from, r, views.view()) && following() && !recovery.recovering() && !hold.holding(now)
                && monitor.leaderSilent(now)) {
            views.startNext(now, out);
        }
    }

    /** The leader of our view stepped down (check-quorum): it counts as silent already. */
    void onStepDown(int from, PaxosMessage.StepDown sd, long now) {
        if (sd.view() == views.view() && from != self && from == Membership.leaderOf(views.view()) && following()) {
            monitor.leaderSteppedDown(now);
        }
    }

    /**
     * A tick of a follower: a single voter starts the next view it leads; otherwise suspect the
     * leader if due (the rule on ticks, or a suspicion kept during the restart hold), and ask for
     * a pre-vote again while a refused (or lost) round waited a retransmit period and the leader
     * stays silent.
     */
    void followerTick(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (group.current().voterCount() == 1 && group.current().isVoter(self)) {
            views.startNext(now, out);
        } else if (hold.suspicionDue(views.view(), monitor.suspect(views.view(), now), now)) {
            suspectLeader(now, out);
        }
        if (preVoter.asking(views.view()) && preVoter.askAgainDue(now) && monitor.leaderSilent(now)) {
            // Refused, or the answers were lost: a fresh round while the leader stays silent.
            preVoter.ask(views.view(), learner.firstUndecided(), now, out);
        }
    }

    /**
     * The failure detector suspects the leader of {@code suspectedView} (after the first tick): act
     * if we still follow that view and do not recover; during the restart hold, keep it for later.
     */
    void onSuspect(long suspectedView, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (suspectedView == views.view() && following() && !recovery.recovering()) {
            if (hold.holding(now)) {
                hold.keepSuspicion(suspectedView);
            } else {
                suspectLeader(now, out);
            }
        }
    }

    /**
     * We suspect the leader of our view: ask for a pre-vote, unless a round for this view runs
     * already or the next view we would lead lies beyond {@link WireBounds#MAX_VIEW}.
     */
    private void suspectLeader(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!group.current().isVoter(self)) {
            return;
        }
        long view = views.view();
        if (!preVoter.asking(view) && WireBounds.isView(ViewChanges.nextViewLedBy(config, self, view))) {
            preVoter.ask(view, learner.firstUndecided(), now, out);
        }
    }

    /** Whether we follow the leader of our view (neither lead nor start a view). */
    private boolean following() {
        return proposer.state() == Proposer.State.FOLLOWER;
    }

    /**
     * Messages that show the leader of a view at work. Catch-up and recovery traffic do not: a
     * replica that leads our view on paper but is recovering from amnesia (or only catching up)
     * sends those, and must not keep the others from suspecting it.
     */
    private static boolean isLeaderTraffic(PaxosMessage m) {
        return m instanceof PaxosMessage.Heartbeat || m instanceof PaxosMessage.Propose
                || m instanceof PaxosMessage.Prepare || m instanceof PaxosMessage.Accept;
    }

    /**
     * Messages of our view that show the sender hears us as leader: the acknowledgement of a
     * heartbeat, a vote for our proposal, a promise for our Phase 1. What check-quorum counts.
     */
    private static boolean hearsUs(PaxosMessage m) {
        return m instanceof PaxosMessage.HeartbeatAck || m instanceof PaxosMessage.Accept
                || m instanceof PaxosMessage.PrepareOk;
    }
}
