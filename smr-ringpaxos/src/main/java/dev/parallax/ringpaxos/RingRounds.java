package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Rounds and Phase 1 (rules C1, C2; Ring Paxos (seed 003) §3.3.2 and §3.3.5, Alg. 2/3 Tasks 1–3):
 * {@code coordinator(r) = r mod n}; a member starts the next round it coordinates, answers the
 * Phase 1A of a higher round (unless {@link RingLiveness#sticky stickiness} refuses it), completes
 * Phase 1 on a quorum ({@link RingConfig#quorum()}) of complete answers, its own included, lays out
 * the ring of the round through the {@link Variant} and re-proposes (Paxos P2c). Also the round
 * changes every other input causes (adopting a newer round, a promise) and the coordinator's
 * step-down. Only {@code coordinator(r)} creates round-r entries, once; a restarted member never
 * reuses a round it may have led (its promise is synced before its Phase 1A leaves).
 *
 * <p>Owns the ring of the current round, whether this member leads it, the Phase 1 in progress,
 * the highest round it ever started and when the round last changed. {@link RingLiveness} decides
 * when to start a round or step down; this class does it.
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingRounds {
    /** The highest round the wire carries (rounds lie in [0, 2^62−1]). */
    static final long MAX_ROUND = RingWireBounds.MAX_NUMBER;

    private final RingConfig config;
    private final int self;
    private final Engine engine;
    private final RingAcceptor acceptor;
    private final RingLearner learner;
    private final OwnProposals own;
    private final Coordinator coordinator;
    private final SkipPacer pacer;
    private final RingLiveness liveness;
    private final RingReports reports;
    private final RingCounters counters;
    private final RingPaxosCore.Observer observer;
    private final RingGroup group;
    private Variant variant;
    private Recovery recovery = Recovery.NONE;

    private Ring ring;
    /** The set the ring of the round this member leads was drawn from (G3, G5; {@link RingGroup}). */
    private dev.parallax.core.membership.Membership ringSet;
    private PhaseOne phaseOne;
    private boolean leading;
    /** The highest round this member started a Phase 1 for (never started again). */
    private long highestStarted = -1;
    private long roundChangedAt;

    /**
     * @param engine the engine, which opens instances once a Phase 1 completes
     * @param now    the driver's clock at creation (the round counts as changed then)
     */
    RingRounds(RingConfig config, int self, Engine engine, RingAcceptor acceptor, RingLearner learner,
               OwnProposals own, Coordinator coordinator, SkipPacer pacer, RingLiveness liveness,
               RingReports reports, RingCounters counters, RingPaxosCore.Observer observer, RingGroup group, long now) {
        this.config = config;
        this.self = self;
        this.engine = engine;
        this.acceptor = acceptor;
        this.learner = learner;
        this.own = own;
        this.coordinator = coordinator;
        this.pacer = pacer;
        this.liveness = liveness;
        this.reports = reports;
        this.counters = counters;
        this.observer = observer;
        this.group = group;
        this.roundChangedAt = now;
    }

    /** Wires the dissemination variant and the recovery hook (once, before the first input). */
    void attach(Variant variant, Recovery recovery) {
        this.variant = variant;
        this.recovery = recovery;
    }

    // ---------------------------------------------------------------- state

    /** The ring of the current round, or null if none is known. */
    Ring ring() {
        return ring;
    }

    /** The set the ring of the round this member leads was drawn from, or null (G3). */
    dev.parallax.core.membership.Membership ringSet() {
        return ringSet;
    }

    /** Whether this member coordinates the current round and finished its Phase 1. */
    boolean leading() {
        return leading;
    }

    /** Whether a Phase 1 of this member's is in progress. */
    boolean inPhaseOne() {
        return phaseOne != null;
    }

    /** Whether this member coordinates (leads its round, or runs Phase 1 of a round it would lead). */
    boolean coordinates() {
        return leading || phaseOne != null;
    }

    /** The highest round this member started a Phase 1 for, -1 for none. */
    long highestStarted() {
        return highestStarted;
    }

    /** When the round last changed (or this member stepped down, or gave up a Phase 1). */
    long roundChangedAt() {
        return roundChangedAt;
    }

    /** A follower learns the ring of its round from the coordinator's traffic. */
    void followRing(Ring newRing, long now) {
        ring = newRing;
        variant.roundChanged(ring, false, now);
    }

    // ---------------------------------------------------------------- Phase 1 (C1, C2)

    void onPhase1A(int from, RingMessage.Phase1A a, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (recovery.recovering() || from == self || from != config.coordinatorOf(a.round())) {
            return;
        }
        if (a.round() > acceptor.rnd()) {
            if (liveness.sticky(from, leading, now)) {
                counters.stickyRefusal();
                return;
            }
            acceptor.promise(a.round(), out);
            changeRound(null, true, now, out);
        } else if (a.round() == acceptor.rnd()) {
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

    void onPhase1B(int from, RingMessage.Phase1B b, long now, Effects<RingWire, RingRecord, RingValue> out) {
        learner.noteDecidedBelow(b.decidedBelow());
        if (from != self) {
            reports.reportedFirst(from, b.decidedBelow());
        }
        if (phaseOne == null || b.round() != phaseOne.round() || from == self) {
            return;
        }
        if (!phaseOne.onPage(from, b)) {
            out.send(from, new RingMessage.Phase1A(b.round(), b.continueFrom()));
        }
        if (phaseOne.done()) {
            finishPhaseOne(now, out);
        }
    }

    /**
     * A tick during Phase 1: give it up after the suspect time-out or when {@code quorumLost};
     * otherwise resend the Phase 1A to whoever has not answered completely, every retransmit period.
     */
    void phaseOneTick(boolean quorumLost, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (now - phaseOne.startedAt() > config.suspectNanos() || quorumLost) {
            abandonPhaseOne(now, out);
        } else if (now - phaseOne.sentAt() >= config.retransmitNanos()) {
            phaseOne.resent(now);
            for (int m : group.others(group.recipients(phaseOne.from()))) {
                if (!phaseOne.answered(m)) {
                    out.send(m, new RingMessage.Phase1A(phaseOne.round(), phaseOne.from()));
                    counters.phase1Retransmit();
                }
            }
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
    void startRound(long round, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (round < 0 || round > MAX_ROUND || recovery.recovering() || !group.selfVotes(learner.firstUndecided())) {
            return;     // G5: only a voter starts rounds
        }
        counters.roundStarted();
        highestStarted = Math.max(highestStarted, round);
        acceptor.reserve(round, out);
        if (leading) {
            // Re-formation: stop opening on the old ring; the queue goes over to the new round.
            leading = false;
            coordinator.endRound();
            pacer.roundEnded();
            variant.roundChanged(ring, false, now);
        } else {
            liveness.newCandidacy();
        }
        long from = learner.firstUndecided();
        phaseOne = new PhaseOne(round, from, answered -> group.phaseOneCovers(answered | (1 << self), from), now);
        for (int m : group.others(group.recipients(from))) {
            out.send(m, new RingMessage.Phase1A(round, phaseOne.from()));
        }
        if (phaseOne.done()) {
            finishPhaseOne(now, out);
        }
    }

    /** The next round this member may start: above its round and every round it started. */
    long nextOwnRound() {
        return config.nextRoundOf(self, Math.max(acceptor.rnd(), highestStarted));
    }

    /**
     * Phase 1 did not complete within the suspect time-out, or this member lost its quorum: give
     * it up. A coordinator that was re-forming its ring steps down; a candidate simply stays in
     * its round, and its suspicion clock starts again.
     */
    private void abandonPhaseOne(long now, Effects<RingWire, RingRecord, RingValue> out) {
        long abandoned = phaseOne.round();
        phaseOne = null;
        for (int m : group.others(group.recipients(learner.firstUndecided()))) {
            // Whoever promised the abandoned round need not wait for a suspect time-out.
            out.send(m, new RingMessage.StepDown(abandoned));
        }
        counters.phase1Abandoned();
        roundChangedAt = now;
        for (ProposalEntry p : coordinator.drain()) {
            variant.forwardProposal(p, out);    // to whoever leads our round
        }
        if (acceptor.rnd() >= 0 && config.coordinatorOf(acceptor.rnd()) == self) {
            stepDown(now, out);
        }
    }

    private void finishPhaseOne(long now, Effects<RingWire, RingRecord, RingValue> out) {
        PhaseOne po = phaseOne;
        phaseOne = null;
        if (po.round() > acceptor.rnd()) {
            // Our own promise (durable since the Phase 1A left) and our own answer, now.
            acceptor.adopt(po.round());
            List<ProposalEntry> keep = coordinator.drain();
            changeRound(null, false, now, out);
            for (ProposalEntry p : keep) {
                coordinator.offer(p);
            }
        } else if (po.round() < acceptor.rnd()) {
            return;     // overtaken meanwhile (defensive: a round change already ends Phase 1)
        }
        long[] cont = new long[1];
        po.onPage(self, new RingMessage.Phase1B(po.round(), acceptor.trimmedBelow(), learner.firstUndecided(),
                acceptor.page(po.from(), Integer.MAX_VALUE, Integer.MAX_VALUE, cont), RingMessage.Phase1B.COMPLETE));
        learner.noteDecidedBelow(po.decidedBelow());
        ringSet = group.at(Math.max(po.start(), learner.firstUndecided()));
        // G5: the set may have changed since Phase 1 started; a coordinator that no longer votes
        // there lays out no ring (it would be an acceptor of it).
        Ring laid = ringSet.isVoter(self) ? layout(po, now) : null;
        if (laid == null) {
            stepDown(now, out);
            return;
        }
        ring = laid;
        leading = true;
        for (int m : ring.order()) {
            liveness.onRing(m, now);
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
        observer.roundLed(acceptor.rnd(), ring);
        reports.sendHeartbeat(acceptor.rnd(), ring, now, out);
        engine.openMore(out);
    }

    /**
     * The ring of {@code po}'s round (C2), through the variant: from the members that answered and
     * the others heard, excluded members left out unless the rest are not enough for a quorum (then
     * the excluded members that answered go on, last); null if even they are not enough.
     * E2: a member far behind is not laid out as an acceptor (it would hold the ring's backlog
     * bound); it learns from the heartbeats every member gets and catches up (C6) or asks for a
     * snapshot, and rejoins later (re-formation trigger 3). Only when the ring cannot be formed
     * without it does it go on — last, after every member that is up to date.
     */
    private Ring layout(PhaseOne po, long now) {
        int others = ringSet.quorum() - 1;     // G5: acceptors besides this one, a majority of the set's voters
        List<Integer> responders = new ArrayList<>();
        List<Integer> lagging = new ArrayList<>();
        for (int m : po.responders()) {
            if (m != self && ringSet.isVoter(m) && !liveness.excluded(m, now)) {
                (reports.farBehind(m) ? lagging : responders).add(m);
            }
        }
        List<Integer> live = new ArrayList<>();
        List<Integer> learners = new ArrayList<>();
        for (int m : group.others(ringSet.members())) {
            if (!responders.contains(m) && !lagging.contains(m) && !liveness.excluded(m, now)
                    && liveness.live(m, now)) {
                (!ringSet.isVoter(m) ? learners : reports.farBehind(m) ? lagging : live).add(m);
            }
        }
        if (responders.size() + live.size() < others) {
            live.addAll(lagging);
        } else {
            counters.laggingLeftOut(lagging.size());
        }
        if (responders.size() + live.size() < others) {
            // Exclusions leave no quorum (two in a ring of three): they are a liveness aid only, so
            // the members that answered this Phase 1 — up, then — go on after all, last. Seed 003
            // (Ring Paxos) §3.3.5: a coordinator that suspects acceptors "may simply try to contact
            // all the acceptors in order to gather an m-quorum". Stepping down instead left every
            // member off any ring while the exclusions lasted.
            for (int m : po.responders()) {
                if (m != self && ringSet.isVoter(m) && !responders.contains(m) && !live.contains(m)) {
                    live.add(m);
                }
            }
        }
        return responders.size() + live.size() >= others
                ? variant.layout(po.round(), responders, live, others, learners) : null;
    }

    // ---------------------------------------------------------------- round changes

    /** The round changed (a promise, an adoption, a round we start): everything of the old one ends. */
    private void changeRound(Ring newRing, boolean forwardOwn, long now, Effects<RingWire, RingRecord, RingValue> out) {
        leading = false;
        phaseOne = null;
        ring = newRing;
        liveness.roundChanged();
        roundChangedAt = now;
        reports.roundChanged();
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
    void adoptRound(long round, Ring newRing, long now, Effects<RingWire, RingRecord, RingValue> out) {
        acceptor.adopt(round);
        changeRound(newRing, true, now, out);
        if (config.coordinatorOf(round) == self && !recovery.recovering()) {
            startRound(nextOwnRound(), now, out);
        }
    }

    /**
     * Check-quorum or no ring (C8): stop coordinating, tell the members (they need not wait for a
     * suspect time-out), stop heartbeating. We stay in the round, coordinating it on paper only.
     */
    void stepDown(long now, Effects<RingWire, RingRecord, RingValue> out) {
        counters.steppedDown();
        stopCoordinating(now, new RingMessage.StepDown(acceptor.rnd()), out);
    }

    /**
     * T2 ({@link RingHandOver}): stop coordinating as {@link #stepDown} does, but tell the members
     * to let {@code successor} take over at once instead of suspecting this member.
     */
    void handOver(int successor, long now, Effects<RingWire, RingRecord, RingValue> out) {
        stopCoordinating(now, new RingMessage.HandOver(acceptor.rnd(), successor), out);
    }

    private void stopCoordinating(long now, RingMessage notice, Effects<RingWire, RingRecord, RingValue> out) {
        leading = false;
        phaseOne = null;
        coordinator.clear();
        pacer.roundEnded();
        roundChangedAt = now;
        variant.roundChanged(ring, false, now);
        for (int m : group.others(group.recipients(learner.firstUndecided()))) {
            out.send(m, notice);
        }
    }
}
