package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.function.ObjLongConsumer;

/**
 * The rules both Ring Paxos variants share (plan §1.4; seed 003 (Ring Paxos) ch. 3, the "statements
 * in gray" of Alg. 2 and Alg. 3): rounds and Phase 1 (C1), the ring's layout after Phase 1 (C2,
 * through the {@link Variant}), the coordinator opening instances (C3), the acceptor (C4, {@link
 * RingAcceptor}), the learner (C5, {@link RingLearner} + {@link ValueCache}), catch-up (C6), the
 * proposer (C7, {@link OwnProposals}), failures, stickiness, check-quorum, the restart hold and ring
 * re-formation (C8, plan §1.7), versions and compaction (C9, §3.3.7). Amnesia recovery (C10) takes
 * part through the {@link Recovery} hook.
 *
 * <p><b>Skips</b> (Multi-Ring Paxos; seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1
 * l.13-20; plan decisions 1-3). Every member applies the logical numbering ({@link LogicalNumbering})
 * to the values it emits. With {@code ring.lambda} &gt; 0 the coordinator, every {@code ring.delta.ms},
 * opens one skip instance to the target of {@link SkipPacer} when its estimate is below it, and
 * opens no client instance while one interval ahead (the cap). A skip is an ordinary value for
 * Phase 2 of both variants (an id without a body, like a NOOP), subject to the window.
 *
 * <p><b>Rounds.</b> {@code coordinator(r) = r mod n}. A member that suspects the coordinator of its
 * round starts the next round it coordinates (Phase 1A to all members, §3.3.5 ¶1); an acceptor
 * promises a higher round durably before answering, unless the coordinator of its round was heard
 * within 3/4 of the suspect time-out and did not step down (stickiness). The coordinator completes
 * Phase 1 on a quorum (a majority, {@link RingConfig#quorum()}) of complete answers, its own
 * included, lays out the ring of the round and re-proposes (Paxos P2c).
 * Only {@code coordinator(r)} creates round-r entries, once; a restarted member never reuses a round
 * it may have led (its promise is synced before its Phase 1A leaves).
 *
 * <p>Not thread-safe: one driver thread (through {@link RingPaxosCore}); never blocks.
 */
public final class RingEngine implements Engine {
    /** The highest round the wire carries (plan §1.2: rounds in [0, 2^62−1]). */
    static final long MAX_ROUND = RingWireBounds.MAX_NUMBER;

    private final RingConfig config;
    private final int self;
    private final int n;
    private final RingAcceptor acceptor;
    private final RingLearner learner;
    private final ValueCache cache;
    private final OwnProposals own;
    private final Exclusions exclusions;
    private final RingSuspicion suspicion;
    private final RingPaxosCore.Observer observer;
    private Variant variant;
    private Recovery recovery = Recovery.NONE;

    private long now;
    private Ring ring;
    private PhaseOne phaseOne;
    private boolean leading;
    private boolean started;
    private final boolean recoveredAny;
    private final long holdUntil;
    private boolean heardPeer;
    private boolean heardAnyPeer;
    private boolean external;
    private long heldSuspicion = Long.MIN_VALUE;
    private boolean coordinatorSteppedDown;
    private long steppedDownAt;
    private long roundChangedAt;
    /** When the coordinator of our round was last seen at work (its Heartbeat or Phase 1A, a packet of the round). */
    private long coordinatorHeardAt;
    /**
     * A coordinator leading a round below ours that we hear (we promised a round that never
     * started: we are stranded above the working round), its round, and when we last heard it.
     */
    private int workingCoordinator = -1;
    private long workingRound = -1;
    private long workingHeardAt;

    // Coordinator state (C3, C7).
    private final Coordinator coordinator;
    /** Skips (Multi-Ring): the logical numbering of what this member emitted, the coordinator's rate. */
    private final LogicalNumbering logical = new LogicalNumbering();
    private final SkipPacer pacer;
    private boolean opening;
    private boolean openAgain;

    // What members report and when they were heard.
    private final long[] lastHeard;
    private final long[] lastSeenOf;
    /** Each member's first undecided instance as it last reported it (Phase 1B, Alive); -1 unknown. */
    private final long[] reportedFirst;
    private final VersionTable versions;
    private final RingCatchUp catchUp;
    private long lastSeen = -1;
    private boolean backlogHigh;

    // Periodic work.
    private long lastHeartbeat = Long.MIN_VALUE;
    private long lastAlive = Long.MIN_VALUE;
    private int reformsSinceDecision;
    /** When the first re-formation since the last decision happened. */
    private long stalledSince;
    /** The highest round this member started a Phase 1 for (never started again). */
    private long highestStarted = -1;
    private long lastRejoinAt = Long.MIN_VALUE;

    // Counters.
    private long roundsStarted;
    private long reformations;
    private long stepDowns;
    private long malformed;
    private long stickyRefusals;
    private long snapshotsNeeded;
    private long proposalsDropped;
    private long phase1Retransmits;
    private long phase1Abandoned;
    private long stallExclusions;
    private long suspectExclusions;
    private long laggingLeftOut;

    /**
     * @param recovered        the records of this member's durable log (empty on first start)
     * @param incarnationFloor the lowest incarnation this member may use (wall-clock ms in a
     *                         replica, {@code now} in the simulator): one value id never names two bodies
     * @param now              the driver's clock at creation
     */
    RingEngine(RingConfig config, int self, List<RingRecord> recovered, long incarnationFloor, long now,
               RingPaxosCore.Observer observer) {
        if (self < 0 || self >= config.members()) {
            throw new IllegalArgumentException("member " + self + " is not one of " + config.members());
        }
        this.config = config;
        this.self = self;
        this.n = config.members();
        this.observer = observer;
        this.acceptor = new RingAcceptor(recovered);
        this.learner = config.kind() == Ring.Kind.M_RING
                ? new RingLearner(recovered, config.mringLearnerBuffer(), config.mringLearnerBufferBytes())
                : new RingLearner(recovered);
        this.cache = new ValueCache(config.mringLearnerBuffer(), config.mringLearnerBufferBytes());
        this.own = new OwnProposals(self, config.maxPending(), recovered, incarnationFloor);
        this.exclusions = new Exclusions(n, config.rejoinBackoffNanos());
        this.suspicion = new RingSuspicion(config, self);
        this.recoveredAny = !recovered.isEmpty();
        this.heardPeer = !recoveredAny;
        this.holdUntil = now + config.restartHoldNanos();
        this.now = now;
        this.roundChangedAt = now;
        this.coordinatorHeardAt = now;
        this.lastHeard = new long[n];
        Arrays.fill(lastHeard, now);
        this.versions = new VersionTable(n, config.quorum(), self);
        this.catchUp = new RingCatchUp(config, self);
        this.coordinator = new Coordinator(n * config.maxPending(), 4 * n * config.maxPending());
        this.pacer = new SkipPacer(config);
        this.lastSeenOf = new long[n];
        Arrays.fill(lastSeenOf, -1);
        this.reportedFirst = new long[n];
        Arrays.fill(reportedFirst, -1);
    }

    /**
     * The engine's side of amnesia recovery (C10, {@link RingRecovery}): the acceptor's promise and
     * trim point, the learner's decided prefix, the catch-up target.
     */
    RingRecovery.Host recoveryHost() {
        return new RingRecovery.Host() {
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
                    adoptRound(round, null, out);
                }
            }
        };
    }

    /** Wires the dissemination variant and the recovery hook (once, by {@link RingPaxosCore}). */
    void attach(Variant variant, Recovery recovery) {
        this.variant = variant;
        this.recovery = recovery;
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
        return ring;
    }

    @Override
    public boolean leading() {
        return leading;
    }

    @Override
    public boolean vote(long instance, long round, Ring ringOfRound, ValueId vid, ByteBuffer value,
                        Effects<RingWire, RingRecord, RingValue> out) {
        if (recovery.recovering() || round < rnd()) {
            return false;
        }
        if (round > rnd()) {
            adoptRound(round, ringOfRound, out);
            if (round != rnd()) {
                return false;
            }
        } else if (ring == null && ringOfRound != null && !leading && phaseOne == null) {
            ring = ringOfRound;
            variant.roundChanged(ring, false, now);
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
        ByteBuffer body = valueOrNull != null ? valueOrNull : valueOf(vid);
        boolean known = learner.isDecided(instance);
        if (!learner.learn(instance, vid, body)) {
            return;
        }
        if (!known) {
            observer.decided(instance, vid, body);
            if (coordinator.decided(instance, vid)) {
                reformsSinceDecision = 0;
            }
        }
        deliver(out);
        if (leading) {
            openMore(out);
        }
    }

    @Override
    public ByteBuffer valueOf(ValueId vid) {
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

    @Override
    public boolean rememberValue(ValueId vid, ByteBuffer value) {
        return cache.remember(vid, value);
    }

    @Override
    public void proposalArrived(ProposalEntry proposal, Effects<RingWire, RingRecord, RingValue> out) {
        if (coordinates()) {
            if (!coordinator.offer(proposal)) {
                return;
            }
            cache.remember(proposal.vid(), proposal.value());
            if (leading) {
                openMore(out);
            }
        } else if (!recovery.recovering()) {
            if (stranded()) {
                out.send(workingCoordinator, new RingMessage.Proposal(rnd(), List.of(proposal)));
            } else {
                variant.forwardProposal(proposal, out);
            }
        }
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
        lastSeen = Math.max(lastSeen, instance);
    }

    @Override
    public void openMore(Effects<RingWire, RingRecord, RingValue> out) {
        if (!leading || recovery.recovering()) {
            return;
        }
        if (opening) {
            openAgain = true;
            return;
        }
        opening = true;
        try {
            do {
                openAgain = false;
                List<Phase2Entry> batch = new ArrayList<>();
                // The cap (λ > 0): k, the logical next with what we opened, against target + λΔ.
                long k = pacer.enabled() ? pacer.estimate(logical.next()) : 0;
                while (coordinator.open() < variant.window(now) && belowBacklog()) {
                    boolean clients = !pacer.enabled() || !pacer.capped(now, k);
                    Phase2Entry e = coordinator.take(clients);
                    if (e == null) {
                        ValueId head = clients ? null : coordinator.queuedHead();
                        if (head != null) {
                            pacer.heldBack(head);
                        }
                        break;
                    }
                    long instance = e.instance();
                    if (learner.isDecided(instance)) {
                        continue;
                    }
                    if (!acceptor.vote(instance, rnd(), e.vid(), e.value(), out)) {
                        break;
                    }
                    cache.remember(e.vid(), e.value());
                    coordinator.opened(instance, e.vid(), now);
                    pacer.opened(instance, e.vid());
                    k = LogicalNumbering.after(k, e.vid());
                    observer.voted(instance, rnd(), e.vid());
                    observer.opened(instance, rnd(), e.vid(), e.value());
                    batch.add(e);
                }
                if (!batch.isEmpty()) {
                    variant.open(ring, rnd(), batch, out);
                }
            } while (openAgain && leading);
        } finally {
            opening = false;
        }
    }

    // ---------------------------------------------------------------- inputs

    void onTick(long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        deliver(out);
        if (recovery.recovering()) {
            started = true;
            recovery.onTick(now, out);
            catchUpTick(false, out);
            wake(out);
            return;
        }
        if (!started) {
            started = true;
            if (n == 1 || (!recoveredAny && self == 0 && rnd() < 0)) {
                startRound(nextOwnRound(), out);
            }
        }
        if (phaseOne != null) {
            if (now - phaseOne.startedAt() > config.suspectNanos() || (n > 1 && quorumLost())) {
                abandonPhaseOne(out);
            } else if (now - phaseOne.sentAt() >= config.retransmitNanos()) {
                phaseOne.resent(now);
                for (int m = 0; m < n; m++) {
                    if (m != self && !phaseOne.answered(m)) {
                        out.send(m, new RingMessage.Phase1A(phaseOne.round(), phaseOne.from()));
                        phase1Retransmits++;
                    }
                }
            }
        } else if (leading) {
            leaderTick(out);
        } else if (n == 1) {
            startRound(nextOwnRound(), out);
        } else if ((rnd() >= 0 && config.coordinatorOf(rnd()) == self) || (rnd() < 0 && highestStarted >= 0)) {
            // We coordinate our round on paper only (restarted, or stepped down), or our first Phase 1
            // reached nobody and left us in no round (E1: members started seconds apart), and nobody
            // took over: try again after the longest ranked time-out (never reusing the round).
            if (!holding() && now - roundChangedAt > longestRankedTimeout()) {
                startRound(nextOwnRound(), out);
            }
        } else if (!holding() && (((!external || coordinatorSteppedDown) && suspectsCoordinator())
                || heldSuspicion == rnd())) {
            heldSuspicion = Long.MIN_VALUE;
            startRound(nextOwnRound(), out);
        }
        if (!leading && phaseOne == null && rnd() >= 0 && config.coordinatorOf(rnd()) != self
                && (lastAlive == Long.MIN_VALUE || now - lastAlive >= config.heartbeatNanos())) {
            sendAlive(out);
        }
        reportBacklog(out);
        for (ProposalEntry p : own.due(now, config.proposalRetryNanos())) {
            proposalArrived(p, out);
        }
        variant.onTick(now, out);
        catchUpTick(false, out);
        deliver(out);
        wake(out);
    }

    private void leaderTick(Effects<RingWire, RingRecord, RingValue> out) {
        if (n > 1 && quorumLost()) {
            stepDown(out);
            return;
        }
        if (n > 1 && reformsSinceDecision >= 2 && now - stalledSince > 3 * config.stallNanos()) {
            // Check-quorum's second half (C8): re-forming does not help; let another member try.
            stepDown(out);
            return;
        }
        if (!external) {
            for (int m : ring.order()) {
                if (m != self && now - lastHeard[m] > config.suspectNanos()) {
                    suspectExclusions++;
                    exclusions.exclude(m, now);
                    reform(out);
                    return;
                }
            }
        }
        long oldest = coordinator.oldestOpen();
        if (oldest >= 0) {
            if (now - coordinator.openedAt(oldest) > config.stallNanos()) {
                int lagging = firstLagging(oldest);
                stallExclusions++;
                exclusions.exclude(lagging, now);
                reform(out);
                return;
            }
        }
        if (lastHeartbeat == Long.MIN_VALUE || now - lastHeartbeat >= config.heartbeatNanos()) {
            sendHeartbeat(out);
        }
        long skip = pacer.skipDue(now, logical.next());
        if (skip > 0) {
            coordinator.offerSkip(ValueId.skip(skip));
        }
        openMore(out);
    }

    /**
     * Stall exclusion (plan §1.7 trigger 2): the first member in ring order from position 1, the
     * coordinator last, whose latest {@code Alive.lastSeen} lies below {@code instance}; if that
     * is the coordinator, its predecessor (the broken link is the one into it).
     */
    private int firstLagging(long instance) {
        int[] order = ring.order();
        int c = ring.coordinator();
        int cp = ring.position(c);
        for (int k = 1; k <= order.length; k++) {
            int m = order[(cp + k) % order.length];
            if (m == c) {
                break;
            }
            if (lastSeenOf[m] < instance) {
                return m;
            }
        }
        return ring.predecessor(c);
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
            malformed++;
            return;
        }
        lastHeard[from] = Math.max(lastHeard[from], now);
        if (from != self) {
            heardPeer = true;
            heardAnyPeer = true;
        }
        if (recovery.onMessage(from, m, now, out)) {
            finishStep(out);
            return;
        }
        if (variant.onMessage(from, m, now, out)) {
            noteCoordinatorTraffic(from, m);
            finishStep(out);
            return;
        }
        if (m instanceof RingMessage.Phase1A a) {
            onPhase1A(from, a, out);
        } else if (m instanceof RingMessage.Phase1B b) {
            onPhase1B(from, b, out);
        } else if (m instanceof RingMessage.Heartbeat hb) {
            onHeartbeat(from, hb, out);
        } else if (m instanceof RingMessage.Alive a) {
            onAlive(from, a, out);
        } else if (m instanceof RingMessage.StepDown sd) {
            if (sd.round() == rnd() && from == config.coordinatorOf(rnd()) && from != self) {
                coordinatorSteppedDown = true;
                steppedDownAt = now;
            }
        } else if (m instanceof RingMessage.CatchUpQuery q) {
            onCatchUpQuery(from, q, out);
        } else if (m instanceof RingMessage.CatchUpReply r) {
            onCatchUpReply(from, r, out);
        } else if (m instanceof RingMessage.Proposal p) {
            if (p.round() > rnd() && !coordinates()) {
                // We lag behind the proposer's round: passing it on could bounce it between two
                // members that disagree on the coordinator. Its proposer retries.
                proposalsDropped += p.proposals().size();
            } else {
                for (ProposalEntry e : p.proposals()) {
                    proposalArrived(e, out);
                }
            }
        }
        noteCoordinatorTraffic(from, m);
        finishStep(out);
    }

    /**
     * Coordinator traffic of our round — its Heartbeat or Phase 1A, a ring packet of the round
     * carrying 2As or decisions (only the coordinator's work makes those) — is what keeps members
     * from suspecting it (as Multi-Paxos' leader traffic): a member that coordinates the round on
     * paper only, or a candidate that gave up, still sends other messages, and proposals alone may
     * still travel a ring whose coordinator moved on.
     */
    private void noteCoordinatorTraffic(int from, Object m) {
        long round = rnd();
        if (round < 0) {
            return;
        }
        boolean fromCoordinator = from == config.coordinatorOf(round);
        if ((m instanceof RingMessage.Heartbeat hb && hb.round() == round && fromCoordinator)
                || (m instanceof RingMessage.Phase1A a && a.round() == round && fromCoordinator)
                || (m instanceof UPacket p && p.round() == round && (!p.phase2().isEmpty() || !p.decisions().isEmpty()))) {
            coordinatorHeardAt = now;
        }
    }

    private void finishStep(Effects<RingWire, RingRecord, RingValue> out) {
        resolveMissingBodies();
        deliver(out);
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
        if (leading && ring.contains(member)) {
            suspectExclusions++;
            exclusions.exclude(member, now);
            reform(out);
        } else if (!leading && phaseOne == null && member == watchedCoordinator()) {
            if (holding()) {
                heldSuspicion = epoch;
            } else {
                startRound(nextOwnRound(), out);
            }
        }
        finishStep(out);
    }

    void onDelivered(long nextInstance, long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        versions.delivered(nextInstance);
        reportBacklog(out);
        if (leading) {
            recomputeFloor();
            openMore(out);
        }
    }

    void compact(long instance, Effects<RingWire, RingRecord, RingValue> out) {
        if (leading || n == 1) {
            recomputeFloor();
        }
        long t = Math.min(instance, Math.min(versions.floor(), learner.firstUndecided()));
        learner.trimBelow(t);
        acceptor.trimBelow(Math.min(t, learner.firstUndecided()));
        acceptor.checkpoint(out);
        learner.checkpoint(out);
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
        external = true;
    }

    // ---------------------------------------------------------------- Phase 1 (C1, C2)

    private void onPhase1A(int from, RingMessage.Phase1A a, Effects<RingWire, RingRecord, RingValue> out) {
        if (recovery.recovering() || from == self || from != config.coordinatorOf(a.round())) {
            return;
        }
        if (a.round() > rnd()) {
            if (sticky(from)) {
                stickyRefusals++;
                return;
            }
            acceptor.promise(a.round(), out);
            changeRound(null, true, out);
        } else if (a.round() == rnd()) {
            if (acceptor.durableRound() < a.round()) {
                acceptor.promise(a.round(), out);
            }
        } else {
            return;
        }
        long[] cont = new long[1];
        List<Vote> page = acceptor.page(a.from(), config.catchUpMaxInstances(), config.catchUpMaxBytes(), cont);
        out.send(from, new RingMessage.Phase1B(a.round(), acceptor.trimmedBelow(), learner.firstUndecided(), page, cont[0]));
    }

    /**
     * Stickiness (C8, pre-vote's role): refuse a Phase 1A of another coordinator while the
     * coordinator of our round was heard within 3/4 of the suspect time-out and did not step down;
     * a coordinator that leads refuses too (check-quorum removes it if it truly lost its quorum).
     */
    private boolean sticky(int candidate) {
        if (rnd() < 0) {
            return false;
        }
        int c = config.coordinatorOf(rnd());
        if (c == self) {
            // A working coordinator is not deposed by a member that merely cannot hear it.
            return leading;
        }
        return c != candidate && !coordinatorSteppedDown
                && now - coordinatorHeardAt < config.suspectNanos() * 3 / 4;
    }

    private void onPhase1B(int from, RingMessage.Phase1B b, Effects<RingWire, RingRecord, RingValue> out) {
        learner.noteDecidedBelow(b.decidedBelow());
        if (from != self) {
            reportedFirst[from] = b.decidedBelow();
        }
        if (phaseOne == null || b.round() != phaseOne.round() || from == self) {
            return;
        }
        if (!phaseOne.onPage(from, b)) {
            out.send(from, new RingMessage.Phase1A(b.round(), b.continueFrom()));
        }
        if (phaseOne.done()) {
            finishPhaseOne(out);
        }
    }

    /**
     * Starts Phase 1 of {@code round} (C1), which this member coordinates. Like a pre-vote, the
     * member stays in its current round until Phase 1 completes: it persists {@code Promise(round)}
     * with sync before the Phase 1A leaves (so a restart never reuses the round), but raises its
     * acceptor's round, and gives its own answer, only on completion — in one step, so its answer
     * holds every vote it cast meanwhile. A candidate the others refuse (stickiness) thus keeps
     * learning and voting in the working round instead of being stranded above it.
     */
    private void startRound(long round, Effects<RingWire, RingRecord, RingValue> out) {
        if (round < 0 || round > MAX_ROUND || recovery.recovering()) {
            return;
        }
        roundsStarted++;
        highestStarted = Math.max(highestStarted, round);
        acceptor.reserve(round, out);
        if (leading) {
            // Re-formation: stop opening on the old ring; the queue goes over to the new round.
            leading = false;
            coordinator.endRound();
            pacer.roundEnded();
            variant.roundChanged(ring, false, now);
        }
        phaseOne = new PhaseOne(round, learner.firstUndecided(), config.quorum() - 1, now);
        for (int m = 0; m < n; m++) {
            if (m != self) {
                out.send(m, new RingMessage.Phase1A(round, phaseOne.from()));
            }
        }
        if (phaseOne.done()) {
            finishPhaseOne(out);
        }
    }

    /** The next round this member may start: above its round and every round it started. */
    private long nextOwnRound() {
        return config.nextRoundOf(self, Math.max(rnd(), highestStarted));
    }

    /**
     * Phase 1 did not complete within the suspect time-out, or this member lost its quorum: give
     * it up. A coordinator that was re-forming its ring steps down; a candidate simply stays in
     * its round, and its suspicion clock starts again.
     */
    private void abandonPhaseOne(Effects<RingWire, RingRecord, RingValue> out) {
        long abandoned = phaseOne.round();
        phaseOne = null;
        for (int m = 0; m < n; m++) {
            if (m != self) {
                // Whoever promised the abandoned round need not wait for a suspect time-out.
                out.send(m, new RingMessage.StepDown(abandoned));
            }
        }
        phase1Abandoned++;
        roundChangedAt = now;
        for (ProposalEntry p : coordinator.drain()) {
            variant.forwardProposal(p, out);    // to whoever leads our round
        }
        if (rnd() >= 0 && config.coordinatorOf(rnd()) == self) {
            stepDown(out);
        }
    }

    private void finishPhaseOne(Effects<RingWire, RingRecord, RingValue> out) {
        PhaseOne po = phaseOne;
        phaseOne = null;
        if (po.round() > rnd()) {
            // Our own promise (durable since the Phase 1A left) and our own answer, now.
            acceptor.adopt(po.round());
            List<ProposalEntry> keep = coordinator.drain();
            changeRound(null, false, out);
            for (ProposalEntry p : keep) {
                coordinator.offer(p);
            }
        } else if (po.round() < rnd()) {
            return;     // overtaken meanwhile (defensive: a round change already ends Phase 1)
        }
        long[] cont = new long[1];
        po.onPage(self, new RingMessage.Phase1B(po.round(), acceptor.trimmedBelow(), learner.firstUndecided(),
                acceptor.page(po.from(), Integer.MAX_VALUE, Integer.MAX_VALUE, cont), RingMessage.Phase1B.COMPLETE));
        learner.noteDecidedBelow(po.decidedBelow());
        List<Integer> responders = new ArrayList<>();
        List<Integer> lagging = new ArrayList<>();
        for (int m : po.responders()) {
            if (m != self && !exclusions.excluded(m, now)) {
                (farBehind(m) ? lagging : responders).add(m);
            }
        }
        List<Integer> live = new ArrayList<>();
        for (int m = 0; m < n; m++) {
            if (m != self && !responders.contains(m) && !lagging.contains(m) && !exclusions.excluded(m, now)
                    && now - lastHeard[m] <= config.suspectNanos() && heardAnyPeer) {
                (farBehind(m) ? lagging : live).add(m);
            }
        }
        // E2: a member far behind is not laid out as an acceptor (it would hold the ring's backlog
        // bound); it learns from the heartbeats every member gets and catches up (C6) or asks for a
        // snapshot, and rejoins later (§1.7 trigger 3). Only when the ring cannot be formed without
        // it does it go on — last, after every member that is up to date.
        if (responders.size() + live.size() < config.othersInQuorum()) {
            live.addAll(lagging);
        } else {
            laggingLeftOut += lagging.size();
        }
        Ring laid = responders.size() + live.size() >= config.othersInQuorum()
                ? variant.layout(po.round(), responders, live) : null;
        if (laid == null) {
            stepDown(out);
            return;
        }
        ring = laid;
        leading = true;
        for (int m : ring.order()) {
            exclusions.onRing(m, now);
        }
        TreeMap<Long, Phase2Entry> re = po.reproposals();
        for (var e : new ArrayList<>(re.entrySet())) {
            long i = e.getKey();
            ValueId decided = learner.decidedVid(i);
            if (i < learner.firstUndecided()) {
                re.remove(i);
            } else if (decided != null && learner.decidedBody(i) != null) {
                re.put(i, new Phase2Entry(i, decided, learner.decidedBody(i)));
            }
        }
        coordinator.begin(re, Math.max(po.start(), learner.firstUndecided()), own.all(now));
        pacer.checkSoon();    // a new coordinator catches up in one skip, from its own logical next
        variant.roundChanged(ring, true, now);
        observer.roundLed(rnd(), ring);
        sendHeartbeat(out);
        openMore(out);
    }

    /** The round changed (a promise, an adoption, a round we start): everything of the old one ends. */
    private void changeRound(Ring newRing, boolean forwardOwn, Effects<RingWire, RingRecord, RingValue> out) {
        leading = false;
        phaseOne = null;
        ring = newRing;
        coordinatorSteppedDown = false;
        roundChangedAt = now;
        lastSeen = -1;
        Arrays.fill(lastSeenOf, -1);
        coordinator.clear();
        pacer.roundEnded();
        variant.roundChanged(newRing, false, now);
        if (forwardOwn && !coordinates()) {
            // C7: own proposals go again to the new coordinator.
            for (ProposalEntry p : own.all(now)) {
                variant.forwardProposal(p, out);
            }
        }
    }

    /** A message of a newer round arrived (not a Phase 1A): move there; never reuse a round we coordinate. */
    private void adoptRound(long round, Ring newRing, Effects<RingWire, RingRecord, RingValue> out) {
        acceptor.adopt(round);
        changeRound(newRing, true, out);
        if (config.coordinatorOf(round) == self && !recovery.recovering()) {
            startRound(nextOwnRound(), out);
        }
    }

    private void reform(Effects<RingWire, RingRecord, RingValue> out) {
        reformations++;
        if (coordinator.open() == 0) {
            reformsSinceDecision = 0;   // nothing was waiting: not a stall
        }
        if (reformsSinceDecision++ == 0) {
            stalledSince = now;
        }
        startRound(nextOwnRound(), out);
    }

    /**
     * Check-quorum or no ring (C8): stop coordinating, tell the members (they need not wait for a
     * suspect time-out), stop heartbeating. We stay in the round, coordinating it on paper only.
     */
    private void stepDown(Effects<RingWire, RingRecord, RingValue> out) {
        stepDowns++;
        leading = false;
        phaseOne = null;
        coordinator.clear();
        pacer.roundEnded();
        roundChangedAt = now;
        variant.roundChanged(ring, false, now);
        for (int m = 0; m < n; m++) {
            if (m != self) {
                out.send(m, new RingMessage.StepDown(rnd()));
            }
        }
    }

    /**
     * The ranked suspect time-out of rank n−1 ({@link RingSuspicion}: {@code suspect × (1 + rank/2)}),
     * {@code suspect × (n+1)/2}: at least the longest any other member (rank ≤ n−2) applies to this
     * one as coordinator. For odd n it equals the former {@code suspect × (1 + (n−1)/2)}.
     */
    private long longestRankedTimeout() {
        return config.suspectNanos() * (n + 1) / 2;
    }

    /** Check-quorum (C8): fewer than {@code quorum − 1} others heard within the suspect time-out. */
    private boolean quorumLost() {
        if (!heardAnyPeer && now - holdUntil < 0) {
            return false;
        }
        int heard = 0;
        for (int m = 0; m < n; m++) {
            if (m != self && now - lastHeard[m] <= config.suspectNanos()) {
                heard++;
            }
        }
        return heard < config.othersInQuorum();
    }

    // ---------------------------------------------------------------- heartbeats, alive, versions

    private void onHeartbeat(int from, RingMessage.Heartbeat hb, Effects<RingWire, RingRecord, RingValue> out) {
        if (from != config.coordinatorOf(hb.round()) || from == self) {
            return;
        }
        learner.noteDecidedBelow(hb.decidedBelow());    // a fact, whatever the round
        if (hb.round() < rnd()) {
            workingCoordinator = from;
            workingRound = hb.round();
            workingHeardAt = now;
            return;
        }
        if (hb.round() > rnd()) {
            adoptRound(hb.round(), hb.ring(), out);
        } else if (!leading && phaseOne == null && !hb.ring().equals(ring)) {
            ring = hb.ring();
            variant.roundChanged(ring, false, now);
        }
        coordinatorSteppedDown = false;
        learner.noteDecidedBelow(hb.decidedBelow());
        versions.noteFloor(hb.versionFloor());
    }

    private void onAlive(int from, RingMessage.Alive a, Effects<RingWire, RingRecord, RingValue> out) {
        versions.report(from, a.delivered());
        reportedFirst[from] = a.decidedBelow();
        learner.noteDecidedBelow(a.decidedBelow());
        if (leading && a.round() > rnd() && (lastRejoinAt == Long.MIN_VALUE || now - lastRejoinAt >= config.suspectNanos())) {
            // A member that hears us promised a round above ours that never started (its candidate
            // gave up): it cannot vote in our round. Re-form above it (plan §1.7, rejoin).
            lastRejoinAt = now;
            exclusions.rejoined();
            reformations++;
            startRound(config.nextRoundOf(self, Math.max(a.round(), Math.max(rnd(), highestStarted))), out);
            return;
        }
        if (a.round() != rnd() || !leading) {
            return;
        }
        lastSeenOf[from] = Math.max(lastSeenOf[from], a.lastSeen());
        variant.alive(from, a, now);
        recomputeFloor();
        if (a.wantsRing() && !ring.contains(from) && !exclusions.excluded(from, now)
                && a.decidedBelow() >= learner.knownDecidedBelow() - config.rejoinLag()
                && (lastRejoinAt == Long.MIN_VALUE || now - lastRejoinAt >= config.suspectNanos())) {
            lastRejoinAt = now;
            exclusions.rejoined();
            reform(out);
        }
    }

    private void sendHeartbeat(Effects<RingWire, RingRecord, RingValue> out) {
        lastHeartbeat = now;
        recomputeFloor();
        RingMessage.Heartbeat hb = new RingMessage.Heartbeat(rnd(), ring, learner.knownDecidedBelow(), versions.floor());
        for (int m = 0; m < n; m++) {
            if (m != self) {
                out.send(m, hb);
            }
        }
    }

    private void sendAlive(Effects<RingWire, RingRecord, RingValue> out) {
        lastAlive = now;
        boolean wantsRing = ring != null && !ring.contains(self) && config.kind() == Ring.Kind.U_RING;
        out.send(stranded() ? workingCoordinator : config.coordinatorOf(rnd()), new RingMessage.Alive(rnd(), learner.firstUndecided(), versions.delivered(),
                Math.max(0, learner.firstUndecided() - versions.delivered()), Math.max(lastSeen, variant.lastSeen()), wantsRing));
    }

    /**
     * The learner's side of flow control (M6; seed 003 (Ring Paxos) §3.3.6): an {@code Alive} at once
     * when the backlog (decided, not yet executed) reaches {@code mring.fc.threshold}; on M-Ring,
     * again every {@code mring.fc.decrease} while it stays there (the coordinator halves at most that
     * often and grows meanwhile: one report per heartbeat cannot hold it down, B6), and at once when
     * it drops below (the coordinator may grow again).
     */
    private void reportBacklog(Effects<RingWire, RingRecord, RingValue> out) {
        long backlog = learner.firstUndecided() - versions.delivered();
        boolean high = backlog >= config.mringFcThreshold();
        if (!leading && phaseOne == null && rnd() >= 0 && config.coordinatorOf(rnd()) != self) {
            boolean mRing = config.kind() == Ring.Kind.M_RING;
            if ((high && !backlogHigh)
                    || (mRing && high && (lastAlive == Long.MIN_VALUE || now - lastAlive >= config.mringFcDecreaseNanos()))
                    || (mRing && !high && backlogHigh)) {
                sendAlive(out);
            }
        }
        backlogHigh = high;
    }

    /** Versions (§3.3.7): the quorum-th highest delivered count, own included. */
    private void recomputeFloor() {
        versions.recompute();
    }

    // ---------------------------------------------------------------- catch-up (C6)

    private void catchUpTick(boolean force, Effects<RingWire, RingRecord, RingValue> out) {
        catchUp.tick(now, force, rnd(), learner, variant, out);
    }

    private void onCatchUpQuery(int from, RingMessage.CatchUpQuery q, Effects<RingWire, RingRecord, RingValue> out) {
        if (from != self) {
            catchUp.serve(from, q, rnd(), learner, acceptor, recovery.recovering(), out);
        }
    }

    private void onCatchUpReply(int from, RingMessage.CatchUpReply r, Effects<RingWire, RingRecord, RingValue> out) {
        boolean taught = false;
        for (DecisionEntry d : r.decided()) {
            ByteBuffer body = d.value() != null ? d.value() : valueOf(d.vid());
            boolean known = learner.isDecided(d.instance());
            if (learner.learn(d.instance(), d.vid(), body)) {
                taught = true;
                if (!known) {
                    observer.decided(d.instance(), d.vid(), body);
                    coordinator.decided(d.instance(), d.vid());
                }
            }
        }
        for (Phase2Entry v : r.values()) {
            if (cache.get(v.vid()) == null && cache.remember(v.vid(), v.value())) {
                taught = true;
            }
        }
        resolveMissingBodies();
        deliver(out);
        long first = learner.firstUndecided();
        if (r.firstAvailable() > first) {
            // B8: after deliver(), `first` is not deliverable here (undecided, or decided id-only with
            // its body missing); the peer trimmed it: only a snapshot brings it.
            snapshotsNeeded++;
            out.snapshotNeeded(from, r.firstAvailable());
        } else if (taught) {
            catchUpTick(true, out);
        }
        if (leading) {
            openMore(out);
        }
    }

    // ---------------------------------------------------------------- delivery

    private void resolveMissingBodies() {
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

    private void deliver(Effects<RingWire, RingRecord, RingValue> out) {
        List<RingLearner.Entry> emitted = learner.deliverReady(
                (i, vid) -> vid.equals(acceptor.voteAt(i) == null ? null : acceptor.voteAt(i).vid()), out);
        for (RingLearner.Entry e : emitted) {
            cache.forget(e.vid);
            own.decided(e.vid);
            logical.emitted(e.vid);
        }
        if (!emitted.isEmpty()) {
            pacer.emittedBelow(learner.firstUndecided());
        }
    }

    private void wake(Effects<RingWire, RingRecord, RingValue> out) {
        long step = Math.min(config.heartbeatNanos(), Math.min(config.retransmitNanos(), config.catchUpNanos()));
        if (config.kind() == Ring.Kind.M_RING) {
            step = Math.min(step, config.mringRetransmitNanos());
        }
        if (pacer.enabled() && leading) {
            step = Math.min(step, pacer.intervalNanos());
        }
        out.wakeAt(now + step);
    }

    // ---------------------------------------------------------------- helpers and accessors

    /** Whether this member coordinates (leads its round, or runs Phase 1 of a round it would lead). */
    private boolean coordinates() {
        return leading || phaseOne != null;
    }

    private int watchedCoordinator() {
        return rnd() < 0 ? 0 : config.coordinatorOf(rnd());
    }

    private boolean suspectsCoordinator() {
        int c = watchedCoordinator();
        if (c == self) {
            return false;
        }
        long heard = Math.max(coordinatorHeardAt, roundChangedAt);
        if (coordinatorSteppedDown) {
            // It told us: the ranked time-outs start as if it had been silent for a suspect time-out.
            heard = Math.min(heard, steppedDownAt - config.suspectNanos());
        }
        return suspicion.suspects(rnd(), c, heard, now);
    }

    /** We hear a coordinator at work in a round below ours: our own round's coordinator does not lead. */
    private boolean stranded() {
        return workingCoordinator >= 0 && workingCoordinator != self && workingRound < rnd()
                && now - workingHeardAt < config.suspectNanos() && !coordinates();
    }

    /** E2: member {@code m} reported a first undecided instance more than ring.rejoin.lag below what we know decided. */
    private boolean farBehind(int m) {
        return reportedFirst[m] >= 0 && reportedFirst[m] < learner.knownDecidedBelow() - config.rejoinLag();
    }

    private boolean holding() {
        return recoveredAny && !heardPeer && now - holdUntil < 0;
    }

    private boolean belowBacklog() {
        if (config.kind() != Ring.Kind.U_RING) {
            return true;
        }
        long min = versions.delivered();
        for (int m : ring.order()) {
            min = Math.min(min, versions.of(m));
        }
        return coordinator.nextInstance() < Math.max(min, 0) + config.maxBacklog();
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
        return versions.delivered();
    }

    long versionFloor() {
        return versions.floor();
    }

    long reformations() {
        return reformations;
    }

    long stepDowns() {
        return stepDowns;
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
        if (recovery.recovering()) {
            return false;
        }
        if (leading) {
            return coordinator.open() < config.eagerBelow() && !capped();
        }
        return own.size() < config.eagerBelow();
    }

    /** The coordinator's cap holds client instances back now (λ &gt; 0, one interval ahead of the target). */
    boolean capped() {
        return leading && pacer.enabled() && pacer.capped(now, pacer.estimate(logical.next()));
    }

    /** The logical next of the values this member emitted (rule 1; a lower bound after a restart or a snapshot). */
    long logicalNext() {
        return logical.next();
    }

    /**
     * The coordinator this member believes in (its round's), for clients and tools; -1 before it has
     * adopted any round (the detector's {@link #watchedCoordinator()} watches member 0 then, which
     * names nobody to a client).
     */
    int coordinator() {
        return rnd() < 0 ? -1 : watchedCoordinator();
    }

    long watchedMask() {
        if (leading && ring != null) {
            long mask = 0;
            for (int m : ring.order()) {
                if (m != self) {
                    mask |= 1L << m;
                }
            }
            return mask;
        }
        int c = watchedCoordinator();
        return c == self ? 0 : 1L << c;
    }

    void reportEvents(ObjLongConsumer<String> sink) {
        sink.accept("rounds.started", roundsStarted);
        sink.accept("reformations", reformations);
        sink.accept("stepdowns", stepDowns);
        sink.accept("malformed", malformed);
        sink.accept("phase1a.refused.sticky", stickyRefusals);
        sink.accept("phase1a.retransmits", phase1Retransmits);
        sink.accept("phase1.abandoned", phase1Abandoned);
        sink.accept("catchup.queries", catchUp.queries());
        sink.accept("catchup.replies", catchUp.replies());
        sink.accept("snapshots.needed", snapshotsNeeded);
        sink.accept("proposals.dropped", proposalsDropped + coordinator.dropped());
        sink.accept("proposals.retried", own.retries());
        sink.accept("votes.refused", acceptor.refused());
        sink.accept("values.beyond.buffer", cache.dropped() + learner.beyondBuffer());
        sink.accept("exclusions.suspected", suspectExclusions);
        sink.accept("exclusions.stalled", stallExclusions);
        sink.accept("rejoins", exclusions.rejoins());
        sink.accept("layout.lagging.left.out", laggingLeftOut);
        sink.accept("skips.proposed", coordinator.skipsOpened());
        sink.accept("skips.decided", logical.skipsDecided());
        sink.accept("proposals.capped", pacer.capped());
        variant.reportEvents(sink);
    }
}
