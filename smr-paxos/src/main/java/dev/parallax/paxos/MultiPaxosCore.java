package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;

import java.util.List;

/**
 * One replica's Multi-Paxos, as a deterministic step function: inputs are messages, ticks carrying
 * {@code now}, and values to propose; outputs are {@link Effects}. It dispatches them to the roles
 * ({@link Acceptor}, {@link Learner}, {@link Proposer}, {@link ViewMonitor}, {@link CatchUp}) and to
 * the rules that compose them: {@link PaxosPhases} (where the messages of Phases 1 and 2 go, and
 * who votes), {@link ViewChanges} (the current view; starting, adopting and leaving views),
 * {@link LeaderContact} (whether leader and followers hear each other; suspicion and pre-vote),
 * {@link Heartbeats} (the leader's heartbeat round and its acknowledgements),
 * {@link RecoveryAnswers} (a peer's side of amnesia recovery) and {@link LeaderAdmin} (membership
 * changes and leadership transfers).
 *
 * <p><b>Views</b> ({@link ViewChanges}). The leader of view {@code v} is replica {@code v mod n}. A
 * replica's view is its acceptor's promise; any message from a higher view moves it there (except
 * a pre-vote). A follower that suspects the leader starts the next view it leads once a quorum
 * granted it a pre-vote. The leader of the initial view 0 starts Phase 1 on its first tick. A
 * restarted replica never reuses a view it may have led (it may have proposed in it before the
 * crash), and does not seize leadership at once either ({@link RestartHold}): it follows the
 * current leader, and starts the next view it leads only after its suspect timeout passes in
 * silence. A new cluster's first leader waits for its peers.
 *
 * <p><b>Partial partitions</b> ({@link LeaderContact}). <em>Check-quorum</em> ({@link QuorumCheck},
 * Raft thesis §6.2): a replica leading a view, or running its Phase 1, that has heard from no
 * quorum within the suspect timeout steps down and tells its followers. <em>Pre-vote</em>
 * ({@link PreVoter}, Raft thesis §9.6): a follower that suspects its leader starts a view only with
 * a quorum of grants, and a peer that still hears a working leader refuses. Together: a leader that
 * can send but not receive is replaced within about one suspect timeout, and leadership does not
 * flap through a bridge.
 *
 * <p><b>Amnesia.</b> A replica created with {@code amnesiac} (its log may have lost promises and
 * votes, see {@code DurableLog.amnesiaPossible()}) is a non-voting learner until
 * {@link AmnesiaRecovery} has rebuilt a safe state from its peers; see {@link #recovering()}.
 *
 * <p><b>Driver contract.</b> See {@link Effects}: persist, sync if asked, then send. Messages the
 * core sends to itself must be delivered back to it like any other.
 *
 * <p>Not thread-safe: one driver thread calls it.
 */
public final class MultiPaxosCore implements ProtocolCore<PaxosMessage, PaxosRecord, Value> {
    private final PaxosConfig config;
    private final int self;
    private final MembershipHistory members;
    private final Group group;
    private final LeadershipTransfer transfer;
    private final Acceptor acceptor;
    private final Learner learner;
    private final Proposer proposer;
    private final ViewMonitor monitor;
    private final CatchUp catchUp;
    private final AmnesiaRecovery recovery;
    private final QuorumCheck quorumCheck;
    private final PreVoter preVoter;
    private boolean started;
    private final RestartHold hold;
    private final ViewChanges views;
    private final LeaderContact contact;
    private final Heartbeats heartbeats;
    private final RecoveryAnswers recoveryAnswers;
    private final LeaderAdmin admin;
    private final PaxosPhases phases;
    private final ReadRounds reads;
    /** Messages of a higher view refused while a lease promise held (L1). */
    private long leasePromiseRefusals;

    /**
     * A replica whose log lost nothing it acted on.
     *
     * @see #MultiPaxosCore(PaxosConfig, int, List, boolean, long)
     */
    public MultiPaxosCore(PaxosConfig config, int self, List<PaxosRecord> recovered, long now) {
        this(config, self, recovered, false, now);
    }

    /**
     * @param recovered the records this replica's durable log holds (empty on first start)
     * @param amnesiac  whether the log may have lost records this replica acted on (an unclean
     *                  stop under a sync policy that does not force): recover from peers before
     *                  voting (ignored for a single replica)
     * @param now       the driver's clock at creation
     * @throws IllegalArgumentException if {@code self} is outside {@code 0..}{@link Membership#MAX_ID}
     *                                  (a replica outside the cluster file's members joins as a learner
     *                                  once a membership change added it)
     */
    public MultiPaxosCore(PaxosConfig config, int self, List<PaxosRecord> recovered, boolean amnesiac, long now) {
        if (self < 0 || self > Membership.MAX_ID) {
            throw new IllegalArgumentException("replica id " + self + " is outside 0.." + Membership.MAX_ID);
        }
        this.config = config;
        this.self = self;
        this.members = new MembershipHistory(Membership.initial(config.members()), config.window());
        this.acceptor = new Acceptor(config.catchUpMaxInstances(), config.catchUpMaxBytes(), recovered);
        this.learner = new Learner(members, acceptor::vote);
        // Decisions logged before the crash are delivered again from the snapshot on (local
        // replay first, then catch-up from peers for the rest).
        learner.recover(recovered);
        this.group = new Group(members, learner);
        this.proposer = new Proposer(config, self, members, learner);
        this.monitor = new ViewMonitor(config, self, group::current, now);
        this.catchUp = new CatchUp(config, self, group);
        this.recovery = new AmnesiaRecovery(config, self, group, amnesiac);
        this.quorumCheck = new QuorumCheck(config, self, group);
        this.preVoter = new PreVoter(config, self, group);
        this.transfer = new LeadershipTransfer(config);
        this.hold = new RestartHold(config, !recovered.isEmpty(), now);
        this.views = new ViewChanges(config, self, group, acceptor, learner, proposer, monitor, preVoter, quorumCheck,
                transfer, recovery, hold);
        this.contact = new LeaderContact(config, self, group, learner, proposer, monitor, quorumCheck, preVoter, recovery,
                hold, views);
        this.heartbeats = new Heartbeats(config, self, group, members, learner, proposer, monitor, transfer, recovery);
        this.recoveryAnswers = new RecoveryAnswers(self, acceptor, learner, recovery, views);
        this.admin = new LeaderAdmin(config, self, members, group, learner, proposer, monitor, quorumCheck, transfer,
                heartbeats, views);
        this.phases = new PaxosPhases(self, members, group, acceptor, learner, proposer, monitor, transfer, recovery);
        this.reads = new ReadRounds(config, self, members, learner, proposer, now);
    }

    /**
     * The values a new leader re-proposes after its Phase 1 (the highest-view value reported for
     * each open instance, no-ops left out), in instance order.
     *
     * @param view   the view whose Phase 1 found them
     * @param values immutable
     */
    public record Reproposals(long view, List<Value> values) {
        public Reproposals {
            values = List.copyOf(values);
        }
    }

    /**
     * What this replica's last completed Phase 1 re-proposes: returned once per completed Phase 1
     * (paged or not), null otherwise (none completed since, already taken, or leadership ended
     * before it was taken). The hook by which S-Paxos' leader learns which ids it proposes again
     * (seed 002 (S-Paxos) §IV-A, Alg. 1 l.32–36; §IV-B b). Emits nothing: plain Multi-Paxos runs,
     * and their traces, are unchanged. Driver thread only.
     */
    public Reproposals takeReproposals() {
        return proposer.takeReproposals();
    }

    /** The current view. */
    public long view() {
        return acceptor.promised();
    }

    /**
     * Whether this replica is recovering from amnesia: it learns decisions but does not vote,
     * promise, lead or answer recovery queries until its peers' answers and catch-up make that safe.
     */
    @Override
    public boolean recovering() {
        return recovery.recovering();
    }

    /** Whether this replica leads the current view and has finished its Phase 1. */
    public boolean isLeader() {
        return proposer.isLeading();
    }

    /** Whether this replica follows the leader of its view (neither leading nor starting a view). */
    public boolean isFollowing() {
        return proposer.state() == Proposer.State.FOLLOWER;
    }

    /**
     * The replica this one believes leads: the leader of its view, or, when that is no voter (a
     * view a fence or a removal left without a member to lead it), the voter after it, which
     * suspects first and starts the next view.
     */
    public int leaderHint() {
        return views.leaderHint();
    }

    /**
     * The membership in effect at this replica's first undecided instance. Driver thread only: the
     * runtime publishes it after each step for its failure detector and admin endpoint.
     */
    public Membership membership() {
        return group.current();
    }

    /** Decided configuration commands ignored or suspicious so far (see {@link #lastMembershipNote}). */
    public long membershipNotes() {
        return learner.membershipNotes();
    }

    /** Why the last one was, for the operator's log; null if none. */
    public String lastMembershipNote() {
        return learner.lastMembershipNote();
    }

    /** This replica's membership history (driver thread only; for tests and status). */
    public MembershipHistory membershipHistory() {
        return members;
    }

    /**
     * Proposes a configuration command, if this replica leads and the change may go now.
     *
     * @return null if proposed, else why not, for the operator: not the leader, a change still in
     *         flight or not yet in effect (one at a time, rule R3), a change the latest membership
     *         refuses, a removal or replacement after which the voters this leader hears would be no
     *         quorum, a promotion of a learner that has not caught up, or a full window
     */
    public String proposeMembership(MembershipChange change, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        return admin.proposeMembership(change, now, out);
    }

    /**
     * The voter a leadership transfer should go to when the operator names none: the one whose
     * acknowledgements show it furthest along, other than this replica, if within the window
     * ({@link LeadershipTransfer#bestTarget}); -1 if there is none.
     */
    public int transferTarget() {
        return admin.transferTarget();
    }

    /**
     * Starts a leadership transfer to voter {@code target} (Raft thesis §3.10): this leader stops
     * taking new values, and once {@code target} reports every instance it proposed decided, sends
     * it {@link PaxosMessage.TimeoutNow}; {@code target} then starts the next view it leads at once.
     * Abandoned after the suspect timeout (proposing resumes).
     *
     * @return null if started (or {@code target} is this leader), else why not
     */
    public String transferLeadership(int target, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        return admin.transferLeadership(target, now, out);
    }

    /** Every instance below this one is decided and was handed out as a decision. */
    public long firstUndecided() {
        return learner.firstUndecided();
    }

    /** Proposals in flight (undecided). */
    public int inFlight() {
        return proposer.inFlight();
    }

    /**
     * Counts of protocol events for metrics: views this replica started (Phase 1 runs),
     * retransmitted Prepares and Proposes, catch-up queries sent and replies served.
     */
    @Override
    public void reportEvents(java.util.function.ObjLongConsumer<String> sink) {
        sink.accept("views.started", views.started());
        sink.accept("retransmitted.prepares", proposer.retransmittedPrepares());
        sink.accept("retransmitted.proposes", proposer.retransmittedProposes());
        sink.accept("catchup.queries", catchUp.queriesSent());
        sink.accept("catchup.replies", catchUp.repliesSent());
        sink.accept("stepdowns", views.stepDowns());
        sink.accept("prevote.rounds", preVoter.rounds());
        sink.accept("prevotes.granted", preVoter.granted());
        sink.accept("prevotes.refused", preVoter.refused());
        sink.accept("membership.ignored", learner.membershipNotes());
        sink.accept("leadership.transfers", transfer.sent());
        sink.accept("reads.lease", reads.leaseReads());
        sink.accept("lease.promise.refusals", leasePromiseRefusals);
    }

    /** Times this replica stepped down from a view it led or started because it heard no quorum. */
    long stepDowns() {
        return views.stepDowns();
    }

    /** Pre-votes this replica granted to candidates. */
    long preVotesGranted() {
        return preVoter.granted();
    }

    /** Pre-votes this replica refused. */
    long preVotesRefused() {
        return preVoter.refused();
    }

    /**
     * The batching hint: whether a partial batch should be proposed now — we lead, the window has
     * room, and fewer than {@link PaxosConfig#eagerBelow()} instances are in flight.
     * {@link #onProposal} itself takes values whenever the window has room.
     */
    @Override
    public boolean canPropose() {
        return proposer.hasRoom() && proposer.inFlight() < config.eagerBelow();
    }

    @Override
    public void onTick(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        learner.deliverReady(out);
        proposer.decidedBelow(learner.firstUndecided());
        afterDecisions();
        if (recovery.recovering()) {
            started = true;
            recovery.tick(now, view(), learner, acceptor, out);
            catchUp.tick(now, view(), learner, out);
            out.wakeAt(now + Math.min(config.heartbeatNanos(), config.retransmitNanos()));
            reads.check(view(), leaderHint(), now, out);
            return;
        }
        if (proposer.refill(now, out)) {
            monitor.broadcastSent(now);
        }
        if (!started) {
            started = true;
            views.startInitial(now, out);
        }
        views.checkQuorum(now, out);
        if (transfer.expired(now)) {
            proposer.pause(false);
        }
        if (proposer.state() == Proposer.State.FOLLOWER) {
            contact.followerTick(now, out);
        } else {
            proposer.tick(now, out);
            heartbeats.tick(view(), now, out);
        }
        catchUp.tick(now, view(), learner, out);
        out.wakeAt(now + Math.min(config.heartbeatNanos(), config.retransmitNanos()));
        reads.check(view(), leaderHint(), now, out);
    }

    @Override
    public boolean onProposal(Value value, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (value.isNoop()) {
            throw new IllegalArgumentException("the no-op cannot be proposed");
        }
        boolean taken = proposer.propose(value, now, out);
        if (taken) {
            monitor.broadcastSent(now);
        }
        return taken;
    }

    @Override
    public void onMessage(int from, PaxosMessage m, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (from < 0 || from > Membership.MAX_ID || WireBounds.violation(m) != null
                || (removed(from) && !(m instanceof PaxosMessage.CatchUpQuery))) {
            // A lying view or instance (the codec refuses them; this guards codec-less
            // transports), or a replica removed by a change in effect here: a removed replica that
            // still runs must not disturb the group, though it may still catch up (and so learn it
            // was removed). A replica that does not know of a newer member yet still hears it: a
            // new learner knows only the cluster file's members until it caught up.
            return;
        }
        long viewBefore = view();
        if (from != self && hold.heardPeer()) {
            quorumCheck.reset(now); // the start-up grace ends (RestartHold)
        }
        if (m.view() > view() && !(m instanceof PaxosMessage.PreVote) && reads.promised(from, now)) {
            leasePromiseRefusals++; // L1: a leased voter adopts no higher view within its window
            return;
        }
        if (m.view() > view() && !(m instanceof PaxosMessage.PreVote)) {
            // A pre-vote asks permission: adopting the candidate's view would restart our
            // suspicion clock, and the candidate may be the replica that is cut off.
            views.adopt(m.view(), now, out);
        }
        contact.observe(from, m, now);
        if (m instanceof PaxosMessage.Propose p) {
            phases.onPropose(from, p, out);
        } else if (m instanceof PaxosMessage.Accept a) {
            phases.onAccept(from, a, out);
        } else if (m instanceof PaxosMessage.Prepare p) {
            phases.onPrepare(from, p, out);
        } else if (m instanceof PaxosMessage.PrepareOk ok) {
            phases.onPrepareOk(from, ok, now, out);
        } else if (m instanceof PaxosMessage.Heartbeat hb) {
            heartbeats.onHeartbeat(from, hb, view(), out);
        } else if (m instanceof PaxosMessage.HeartbeatAck a) {
            heartbeats.onAck(from, a, view(), out);
        } else if (m instanceof PaxosMessage.TimeoutNow t) {
            contact.onTimeoutNow(from, t, now, out);
        } else if (m instanceof PaxosMessage.PreVote pv) {
            contact.onPreVote(from, pv, now, out);
        } else if (m instanceof PaxosMessage.PreVoteReply r) {
            contact.onPreVoteReply(from, r, now, out);
        } else if (m instanceof PaxosMessage.StepDown sd) {
            contact.onStepDown(from, sd, now);
        } else if (m instanceof PaxosMessage.CatchUpQuery q) {
            catchUp.onQuery(from, q, view(), learner, out);
        } else if (m instanceof PaxosMessage.CatchUpReply r) {
            for (long i : catchUp.onReply(from, r, view(), now, learner, out)) {
                proposer.onDecided(i);
            }
        } else if (m instanceof PaxosMessage.RecoveryQuery q) {
            recoveryAnswers.answer(from, q, viewBefore, now, out);
        } else if (m instanceof PaxosMessage.RecoveryReply r) {
            recovery.onReply(from, r, view(), now, learner, out);
        } else if (m instanceof PaxosMessage.ReadConfirm c) {
            reads.onConfirm(from, c, view(), recovery.recovering(), now, out);
        } else if (m instanceof PaxosMessage.ReadConfirmAck a) {
            reads.onConfirmAck(from, a, view(), out);
        } else if (m instanceof PaxosMessage.ReadIndexRequest r) {
            reads.onRequest(from, r, view(), now, out);
        } else if (m instanceof PaxosMessage.ReadIndexReply r) {
            reads.onReply(r, leaderHint(), out);
        }
        if (recovery.catchingUp()) {
            recovery.finishIfCaughtUp(learner, acceptor, out);
        }
        afterDecisions();
        // Decisions free the window: re-proposals left over from Phase 1 go next (bounded view change).
        if (proposer.refill(now, out)) {
            monitor.broadcastSent(now);
        }
        reads.check(view(), leaderHint(), now, out);
    }

    /** Read-index ({@link ReadRounds}): the leader notes and confirms the read, a follower asks its leader. */
    @Override
    public void onReadIndex(long read, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        reads.onLocalRead(read, view(), leaderHint(), isFollowing() && !recovery.recovering(), now, out);
    }

    /** Whether {@code id} was removed by a change in effect at this replica's first undecided instance. */
    private boolean removed(int id) {
        return (group.current().retired() & (1 << id)) != 0;
    }

    /** Instances decided when their membership became known free the window. */
    private void afterDecisions() {
        for (long i : learner.takeDecidedByRecount()) {
            proposer.onDecided(i);
        }
    }

    /**
     * Hands failure detection to the runtime's detector thread: ticks no longer suspect the leader
     * (the same {@link SuspicionRule} is applied there to arrival stamps) and the runtime reports a
     * suspicion through {@link #onSuspect}. Call before the first input.
     */
    public void detectFailuresExternally() {
        monitor.delegateSuspicion();
    }

    /**
     * The failure detector suspects the leader of {@code suspectedView}: if this replica is still
     * in that view and follows, it asks its peers for a pre-vote and starts the next view it leads
     * once a quorum granted. Anything else (an older view, already leading or starting a view, not
     * yet ticked) is stale and ignored. The detector names a view once: while the leader stays
     * silent the core asks again by itself, every retransmit period.
     */
    @Override
    public void onSuspect(long suspectedView, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (started) {
            contact.onSuspect(suspectedView, now, out);
        }
    }

    /**
     * Forgets decided values and votes below {@code instance}: a snapshot now covers them. Peers
     * asking for them are told to fetch a snapshot.
     */
    public void truncateBelow(long instance) {
        learner.truncateBelow(instance);
        acceptor.truncateBelow(Math.min(instance, learner.firstUndecided()));
    }

    /**
     * A snapshot covers every instance below {@code instance}: forget decided values and votes
     * below it and persist a checkpoint (trim point, promise, remaining votes, then the decisions
     * still kept, all synced with the step), after which the driver may drop every earlier log record.
     */
    @Override
    public void compact(long instance, Effects<PaxosMessage, PaxosRecord, Value> out) {
        truncateBelow(instance);
        acceptor.checkpoint(out);
        members.truncateBelow(Math.min(instance, learner.firstUndecided()));
        out.persist(new PaxosRecord.Members(members.encode()), false);
        learner.checkpoint(out);
    }

    /**
     * A snapshot about to be installed carried this membership history
     * ({@link MembershipHistory#encode}, kept in the snapshot's delivery state): take it if it has
     * applied further than ours. Call before {@link #skipTo}.
     *
     * @throws IllegalArgumentException if malformed
     */
    public void installMembership(byte[] history) {
        members.restore(java.nio.ByteBuffer.wrap(history));
        afterDecisions();
    }

    /**
     * A snapshot covering every instance below {@code instance} was installed, carrying the
     * membership history its broadcast saved ({@link MembershipHistory#encode}; empty for a
     * snapshot without one): take it ({@link #installMembership}), then continue from there.
     * A malformed history is ignored (the log and catch-up still bring every change).
     */
    @Override
    public void skipTo(long instance, java.nio.ByteBuffer deliveryState) {
        if (deliveryState.hasRemaining()) {
            byte[] history = new byte[deliveryState.remaining()];
            deliveryState.duplicate().get(history);
            try {
                installMembership(history);
            } catch (IllegalArgumentException malformed) {
                learner.noteMalformedMembership(malformed.getMessage());
            }
        }
        skipTo(instance);
    }

    /** A snapshot covering every instance below {@code instance} was installed: continue from there. */
    @Override
    public void skipTo(long instance) {
        learner.skipTo(instance);
        proposer.decidedBelow(learner.firstUndecided());
        afterDecisions();
    }
}
