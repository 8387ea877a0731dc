package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.ObjLongConsumer;

/**
 * The rules both Ring Paxos variants share (Ring Paxos (seed 003) ch. 3, the "statements in gray"
 * of Alg. 2 and Alg. 3), as the coordinator that wires the parts owning them: rounds, Phase 1 and
 * the ring's layout (C1, C2: {@link RingRounds}); the opening of instances and the proposer's
 * hand-over (C3, C7: {@link RingOpening}, {@link Coordinator}, {@link OwnProposals}); the acceptor
 * (C4: {@link RingAcceptor}); learning and delivery (C5: {@link RingDelivery}, {@link RingLearner},
 * {@link ValueCache}); catch-up (C6: {@link RingCatchUp}); failures, suspicion, stickiness,
 * check-quorum, the restart hold and ring re-formation (C8: {@link RingLiveness}); heartbeats,
 * {@code Alive} reports and versions (C9, §3.3.7: {@link RingReports}, {@link RingAliveExchange});
 * the member set as decided state (rules G1–G8: {@link RingGroup}); event counters
 * ({@link RingCounters}); leadership transfer (rules T1–T4: {@link RingHandOver}). Amnesia recovery (C10) takes part through the {@link Recovery} hook
 * ({@link RingRecoveryHost}). Skips (Multi-Ring Paxos; Ring Paxos / Multi-Ring / P-SMR (seed 003)
 * ch. 5) are paced by {@link SkipPacer}.
 *
 * <p>Each input is dispatched to the part that owns what it changes; this class keeps the time of
 * the current step, handles the heartbeat and {@code Alive} exchange across parts, and decides in
 * which order the parts act.
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (one driver, through {@link
 * RingPaxosCore}); never blocks.
 */
public final class RingEngine implements Engine {
    private final RingConfig config;
    private final int self;
    private final int n;
    private final RingAcceptor acceptor;
    private final RingLearner learner;
    private final ValueCache cache;
    private final OwnProposals own;
    private final RingPaxosCore.Observer observer;
    private final RingCounters counters = new RingCounters();
    private final RingReports reports;
    private final RingLiveness liveness;
    private final RingRounds rounds;
    private final RingCatchUp catchUp;
    private final RingGroup group;
    private final RingAliveExchange alives;
    private final RingHandOver handOver;
    private Variant variant;
    private Recovery recovery = Recovery.NONE;

    private long now;

    // The coordinator's bookkeeping (C3, C7), shared by Phase 1 and the opening of instances.
    private final Coordinator coordinator;
    /** Skips (Multi-Ring): the coordinator's rate. */
    private final SkipPacer pacer;
    private final RingDelivery delivery;
    private final RingOpening opening;

    /**
     * @param recovered        the records of this member's durable log (empty on first start)
     * @param incarnationFloor the lowest incarnation this member may use (wall-clock ms in a
     *                         replica, {@code now} in the simulator): one value id never names two bodies
     * @param now              the driver's clock at creation
     */
    RingEngine(RingConfig config, int self, List<RingRecord> recovered, long incarnationFloor, long now,
               RingPaxosCore.Observer observer) {
        if (self < 0 || self >= config.idSpace()) {
            throw new IllegalArgumentException("member " + self + " is not one of " + config.idSpace());
        }
        this.config = config;
        this.self = self;
        this.n = config.idSpace();
        this.observer = observer;
        this.group = new RingGroup(config, self, recovered);
        this.acceptor = new RingAcceptor(recovered);
        this.learner = config.kind() == Ring.Kind.M_RING
                ? new RingLearner(recovered, config.mringLearnerBuffer(), config.mringLearnerBufferBytes())
                : new RingLearner(recovered);
        this.cache = new ValueCache(config.mringLearnerBuffer(), config.mringLearnerBufferBytes());
        this.own = new OwnProposals(self, config.maxPending(), recovered, incarnationFloor);
        this.now = now;
        this.coordinator = new Coordinator(n * config.maxPending(), 4 * n * config.maxPending());
        this.pacer = new SkipPacer(config, () -> this.now);
        this.reports = new RingReports(config, self, learner, group);
        this.liveness = new RingLiveness(config, self, acceptor, learner, reports, counters, !recovered.isEmpty(), group, now);
        this.rounds = new RingRounds(config, self, this, acceptor, learner, own, coordinator, pacer, liveness,
                reports, counters, observer, group, now);
        this.delivery = new RingDelivery(acceptor, learner, cache, own, coordinator, pacer, liveness, observer, group);
        this.catchUp = new RingCatchUp(config, self, learner, acceptor, cache, coordinator, observer, group,
                () -> liveness.heardFrom(this.now));
        this.handOver = new RingHandOver(config, self, acceptor, learner, rounds, reports, liveness, coordinator, group);
        this.opening = new RingOpening(config, acceptor, learner, cache, own, coordinator, pacer, delivery.logical(), rounds,
                liveness, reports, observer, group, handOver);
        this.alives = new RingAliveExchange(config, self, acceptor, learner, rounds, liveness, reports);
    }

    /**
     * The engine's side of amnesia recovery (C10, {@link RingRecovery}): the acceptor's promise and
     * trim point, the learner's decided prefix, the catch-up target.
     */
    RingRecovery.Host recoveryHost() {
        return new RingRecoveryHost(acceptor, learner, rounds, () -> now);
    }

    /** Wires the dissemination variant and the recovery hook (once, by {@link RingPaxosCore}). */
    void attach(Variant variant, Recovery recovery) {
        this.variant = variant;
        this.recovery = recovery;
        rounds.attach(variant, recovery);
        alives.attach(variant);
        opening.attach(variant, recovery);
        handOver.attach(recovery);
    }

    // ---------------------------------------------------------------- Engine

    @Override
    public RingConfig config() {
        return config;
    }

    @Override
    public int self() {
        return self;
    }

    @Override
    public long rnd() {
        return acceptor.rnd();
    }

    @Override
    public Ring ring() {
        return rounds.ring();
    }

    @Override
    public boolean leading() {
        return rounds.leading();
    }

    @Override
    public boolean vote(long instance, long round, Ring ringOfRound, ValueId vid, ByteBuffer value,
                        Effects<RingWire, RingRecord, RingValue> out) {
        if (recovery.recovering() || round < rnd()) {
            return false;
        }
        if (round > rnd()) {
            rounds.adoptRound(round, ringOfRound, now, out);
            if (round != rnd()) {
                return false;
            }
        } else if (rounds.ring() == null && ringOfRound != null && !rounds.coordinates()) {
            rounds.followRing(ringOfRound, now);
        }
        boolean ok = acceptor.vote(instance, round, vid, value, out);
        if (ok) {
            cache.remember(vid, value);
            observer.voted(instance, round, vid);
        }
        return ok;
    }

    @Override
    public ValueId votedVid(long instance, long round) {
        return acceptor.votedVid(instance, round);
    }

    @Override
    public void learn(long instance, ValueId vid, ByteBuffer valueOrNull, Effects<RingWire, RingRecord, RingValue> out) {
        if (delivery.learn(instance, vid, valueOrNull, out) && rounds.leading()) {
            openMore(out);
        }
    }

    @Override
    public ByteBuffer valueOf(ValueId vid) {
        return delivery.valueOf(vid);
    }

    @Override
    public boolean rememberValue(ValueId vid, ByteBuffer value) {
        return cache.remember(vid, value);
    }

    @Override
    public void proposalArrived(ProposalEntry proposal, Effects<RingWire, RingRecord, RingValue> out) {
        opening.proposalArrived(proposal, now, out);
    }

    @Override
    public boolean isDecided(long instance) {
        return learner.isDecided(instance);
    }

    @Override
    public long firstUndecided() {
        return learner.firstUndecided();
    }

    @Override
    public void sawInstance(long instance) {
        reports.sawInstance(instance);
    }

    @Override
    public void openMore(Effects<RingWire, RingRecord, RingValue> out) {
        opening.openMore(now, out);
    }

    /** A majority of the voters of a set this member knows of (G5); a fixed set's {@link RingConfig#ringAcceptors()}. */
    @Override
    public boolean plausibleAcceptors(int acceptors) {
        for (dev.parallax.core.membership.Membership m : group.history().entries().values()) {
            if (m.quorum() == acceptors) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- inputs

    void onTick(long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        delivery.deliver(out);
        if (recovery.recovering()) {
            liveness.markStarted();
            recovery.onTick(now, out);
            catchUpTick(false, out);
            wake(out);
            return;
        }
        if (liveness.startsFirstRound()) {
            rounds.startRound(rounds.nextOwnRound(), now, out);
        }
        if (rounds.inPhaseOne()) {
            rounds.phaseOneTick(n > 1 && liveness.quorumLost(now), now, out);
        } else if (rounds.leading()) {
            leaderTick(out);
        } else if (liveness.claimsRound(rounds.roundChangedAt(), rounds.highestStarted(), now)) {
            rounds.startRound(rounds.nextOwnRound(), now, out);
        }
        alives.tick(now, out);
        for (ProposalEntry p : own.due(now, config.proposalRetryNanos())) {
            proposalArrived(p, out);
        }
        variant.onTick(now, out);
        catchUpTick(false, out);
        delivery.deliver(out);
        wake(out);
    }

    private void leaderTick(Effects<RingWire, RingRecord, RingValue> out) {
        long oldest = coordinator.oldestOpen();
        switch (liveness.leaderVerdict(rounds.ring(), oldest, oldest >= 0 ? coordinator.openedAt(oldest) : 0, now)) {
            case STEP_DOWN -> {
                rounds.stepDown(now, out);
                return;
            }
            case REFORM -> {
                reform(out);
                return;
            }
            case STAY -> {
            }
        }
        if (handOver.check(now, out)) {
            return;
        }
        if (reports.heartbeatDue(now)) {
            reports.sendHeartbeat(rnd(), rounds.ring(), now, out);
        }
        opening.leaderTick(now, out);
    }

    /** Re-forms the ring (C8): a new round of this member's, on the members it does not exclude. */
    private void reform(Effects<RingWire, RingRecord, RingValue> out) {
        liveness.reforming(coordinator.open(), now);
        rounds.startRound(rounds.nextOwnRound(), now, out);
    }

    boolean onProposal(RingValue value, long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        if (!(value instanceof RingValue.ClientBatch b)) {
            throw new IllegalArgumentException("only client batches are proposed, got " + value);
        }
        if (recovery.recovering() || own.full()) {
            return false;
        }
        RingRecord.Incarnation inc = own.incarnationRecord();
        if (inc != null) {
            out.persist(inc, true);
        }
        ProposalEntry e = own.add(b.bytes(), now);
        observer.proposed(e.vid(), e.value());
        proposalArrived(e, out);
        return true;
    }

    void onMessage(int from, RingWire m, long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        if (from < 0 || from >= n || m == null || malformed(m)) {
            counters.malformed();
            return;
        }
        liveness.heard(from, now);
        if (recovery.onMessage(from, m, now, out)) {
            finishStep(out);
            return;
        }
        if (variant.onMessage(from, m, now, out)) {
            liveness.noteCoordinatorTraffic(from, m, now);
            finishStep(out);
            return;
        }
        if (m instanceof RingMessage.Phase1A a) {
            rounds.onPhase1A(from, a, now, out);
        } else if (m instanceof RingMessage.Phase1B b) {
            rounds.onPhase1B(from, b, now, out);
        } else if (m instanceof RingMessage.Heartbeat hb) {
            alives.onHeartbeat(from, hb, now, out);
        } else if (m instanceof RingMessage.Alive a) {
            if (alives.onAlive(from, a, now, out)) {
                reform(out);
            } else if (rounds.leading()) {
                handOver.check(now, out);
            }
        } else if (m instanceof RingMessage.StepDown sd) {
            liveness.onStepDown(from, sd, now);
        } else if (m instanceof RingMessage.HandOver h) {
            handOver.onHandOver(from, h, now, out);
        } else if (m instanceof RingMessage.SkipDemand d) {
            opening.onSkipDemand(d, rnd(), now, out);
        } else if (m instanceof RingMessage.CatchUpQuery q) {
            if (from != self) {
                catchUp.serve(from, q, rnd(), recovery.recovering(), out);
            }
        } else if (m instanceof RingMessage.CatchUpReply r) {
            onCatchUpReply(from, r, out);
        } else if (m instanceof RingMessage.Proposal p) {
            if (p.round() > rnd() && !rounds.coordinates()) {
                // We lag behind the proposer's round: passing it on could bounce it between two
                // members that disagree on the coordinator. Its proposer retries.
                counters.proposalsDropped(p.proposals().size());
            } else {
                for (ProposalEntry e : p.proposals()) {
                    proposalArrived(e, out);
                }
            }
        }
        liveness.noteCoordinatorTraffic(from, m, now);
        finishStep(out);
    }

    /** The end of a step that may have brought decisions or bodies: deliver what is ready. */
    private void finishStep(Effects<RingWire, RingRecord, RingValue> out) {
        delivery.resolveMissingBodies();
        delivery.deliver(out);
    }

    /** Lying or foreign input (RingWireBounds; the codec refuses it, this guards codec-less drivers). */
    private boolean malformed(Object m) {
        if (m instanceof RingUnicast u) {
            return RingWireBounds.violation(u, n) != null
                    || (m instanceof RingMessage.Heartbeat hb && hb.ring().kind() != config.kind())
                    || (m instanceof UPacket p && p.ring().kind() != config.kind());
        }
        if (m instanceof MPacket p) {
            return RingWireBounds.violation(p, n) != null || p.ring().kind() != config.kind();
        }
        return true;
    }

    void onSuspectMember(int member, long epoch, long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        if (epoch != rnd() || recovery.recovering() || member < 0 || member >= n || member == self) {
            return;
        }
        if (rounds.leading() && rounds.ring().contains(member)) {
            liveness.excludeSuspected(member, now);
            reform(out);
        } else if (!rounds.coordinates() && member == liveness.watchedCoordinator()) {
            if (!liveness.holdsSuspicion(epoch, now)) {
                rounds.startRound(rounds.nextOwnRound(), now, out);
            }
        }
        finishStep(out);
    }

    void onDelivered(long nextInstance, long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        reports.delivered(nextInstance);
        alives.reportBacklog(now, out);
        if (rounds.leading()) {
            reports.recomputeFloor();
            openMore(out);
        }
    }

    void compact(long instance, Effects<RingWire, RingRecord, RingValue> out) {
        if (rounds.leading() || n == 1) {
            reports.recomputeFloor();
        }
        long t = Math.min(instance, Math.min(reports.floor(), learner.firstUndecided()));
        learner.trimBelow(t);
        acceptor.trimBelow(Math.min(t, learner.firstUndecided()));
        acceptor.checkpoint(out);
        learner.checkpoint(out);
        if (config.membershipChanges()) {
            group.history().truncateBelow(t);
            out.persist(group.checkpoint(), true);
        }
        if (own.incarnationPersisted()) {
            out.persist(new RingRecord.Incarnation(own.incarnation()), true);
        }
    }

    void skipTo(long instance) {
        learner.skipTo(instance);
        acceptor.trimBelow(instance);
        coordinator.skipTo(instance);
        pacer.emittedBelow(learner.firstUndecided());   // the logical next stays: a lower bound from here
    }

    void detectFailuresExternally() {
        liveness.detectExternally();
    }

    // ---------------------------------------------------------------- catch-up (C6)

    private void catchUpTick(boolean force, Effects<RingWire, RingRecord, RingValue> out) {
        catchUp.tick(now, force, rnd(), variant, out);
    }

    private void onCatchUpReply(int from, RingMessage.CatchUpReply r, Effects<RingWire, RingRecord, RingValue> out) {
        boolean taught = catchUp.absorb(r, delivery::valueOf);
        finishStep(out);
        catchUp.afterReply(from, r, taught, now, rnd(), variant, out);
        if (rounds.leading()) {
            openMore(out);
        }
    }

    private void wake(Effects<RingWire, RingRecord, RingValue> out) {
        long step = Math.min(config.heartbeatNanos(), Math.min(config.retransmitNanos(), config.catchUpNanos()));
        if (config.kind() == Ring.Kind.M_RING) {
            step = Math.min(step, config.mringRetransmitNanos());
        }
        if (pacer.enabled() && rounds.leading()) {
            step = Math.min(step, pacer.intervalNanos());
        }
        out.wakeAt(now + step);
    }

    // ---------------------------------------------------------------- accessors

    /** G1, G7 ({@link RingGroup}): the coordinator opens {@code change} next, or says why not. */
    String proposeMembership(dev.parallax.core.membership.MembershipChange change, long now,
                             Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        return opening.proposeMembership(change, liveness.heardFrom(now) | (1 << self), reports.progress(), now, out);
    }

    RingGroup group() {
        return group;
    }

    /** Read-index Q1, Q3 ({@link RingReads}): the coordinator's read point; a change in flight. */
    long readPoint() {
        return coordinator.readPoint();
    }

    boolean changeInFlight() {
        return opening.changeInFlight(learner.firstUndecided());
    }

    /** T1 ({@link RingHandOver}): starts handing the coordination over to {@code target}, or says why not. */
    String transferLeadership(int target, long now) {
        this.now = now;
        return handOver.start(target, now);
    }

    /** The voter to hand over to when the operator names none, -1 for none ({@link RingHandOver#bestTarget}). */
    int transferTarget() {
        return handOver.bestTarget(now);
    }

    /** The coordinator's currently open instances. */
    int openCount() {
        return coordinator.open();
    }

    int ownPending() {
        return own.size();
    }

    int window() {
        return variant.window(now);
    }

    long delivered() {
        return reports.delivered();
    }

    long versionFloor() {
        return reports.floor();
    }

    long reformations() {
        return counters.reformations();
    }

    long stepDowns() {
        return counters.stepDowns();
    }

    int learnerBuffered() {
        return learner.buffered() + cache.size();
    }

    long learnerBufferedBytes() {
        return learner.bufferedBytes() + cache.bytes();
    }

    boolean recovering() {
        return recovery.recovering();
    }

    RingAcceptor acceptor() {
        return acceptor;
    }

    RingLearner learner() {
        return learner;
    }

    ValueCache cache() {
        return cache;
    }

    OwnProposals own() {
        return own;
    }

    boolean canPropose() {
        return opening.canPropose(now);
    }

    /** The coordinator's cap holds client instances back now (λ &gt; 0, one interval ahead of the target). */
    boolean capped() {
        return opening.capped(now);
    }

    /** The logical next of the values this member emitted (rule 1; a lower bound after a restart or a snapshot). */
    long logicalNext() {
        return delivery.logical().next();
    }

    long valueFrontier() {
        return opening.valueFrontier(delivery.logical().valueNext());
    }

    /** Skip on demand: another ring of the process opened or decided up to {@code upTo} ({@link RingOpening#demanded}). */
    void onSkipDemand(long upTo, long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        opening.demanded(upTo, rnd(), coordinator(), now, out);
    }

    /** The skip pacer (its lead: {@link RingPaxosCore#paceLead}). */
    SkipPacer pacer() {
        return pacer;
    }

    /**
     * The coordinator this member believes in (its round's), for clients and tools; -1 before it has
     * adopted any round (the detector watches member 0 then, which names nobody to a client).
     */
    int coordinator() {
        return rnd() < 0 ? -1 : liveness.watchedCoordinator();
    }

    long watchedMask() {
        return liveness.watchedMask(rounds.leading(), rounds.ring());
    }

    void reportEvents(ObjLongConsumer<String> sink) {
        sink.accept("rounds.started", counters.roundsStarted());
        sink.accept("reformations", counters.reformations());
        sink.accept("stepdowns", counters.stepDowns());
        sink.accept("leadership.transfers", handOver.sent());
        sink.accept("leadership.transfers.abandoned", handOver.abandoned());
        sink.accept("malformed", counters.malformedInputs());
        sink.accept("phase1a.refused.sticky", counters.stickyRefusals());
        sink.accept("phase1a.retransmits", counters.phase1Retransmits());
        sink.accept("phase1.abandoned", counters.phase1Abandonments());
        sink.accept("catchup.queries", catchUp.queries());
        sink.accept("catchup.replies", catchUp.replies());
        sink.accept("snapshots.needed", catchUp.snapshotsNeeded());
        sink.accept("proposals.dropped", counters.proposalsDropped() + coordinator.dropped());
        sink.accept("proposals.retried", own.retries());
        sink.accept("votes.refused", acceptor.refused());
        sink.accept("values.beyond.buffer", cache.dropped() + learner.beyondBuffer());
        sink.accept("exclusions.suspected", counters.suspectExclusions());
        sink.accept("exclusions.stalled", counters.stallExclusions());
        sink.accept("rejoins", liveness.rejoins());
        sink.accept("layout.lagging.left.out", counters.laggingLeftOut());
        sink.accept("skips.proposed", coordinator.skipsOpened());
        sink.accept("skips.decided", delivery.logical().skipsDecided());
        sink.accept("skips.demanded", opening.demandedSkips());
        sink.accept("proposals.capped", pacer.capped());
        variant.reportEvents(sink);
    }
}
