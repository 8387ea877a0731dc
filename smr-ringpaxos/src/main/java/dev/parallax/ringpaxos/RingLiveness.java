package dev.parallax.ringpaxos;

import java.util.Arrays;

/**
 * Failure handling (rule C8; Ring Paxos (seed 003) §3.3.5): who was heard when, suspicion of the
 * coordinator (ranked time-outs, {@link RingSuspicion}), stickiness (a pre-vote's role), when a
 * coordinator steps down (check-quorum, a ring that stays stalled), when it re-forms its ring
 * (a suspected or lagging member excluded, {@link Exclusions}; a member asking back), the restart
 * hold and the "stranded" state of a member that promised a round that never started.
 *
 * <p>It judges; {@link RingRounds} acts. Owns the arrival stamps of every member, the restart
 * hold, what it heard of the coordinator of its round (its traffic, its step-down), a working
 * coordinator heard below its round, the stall clock of re-formations since the last decision,
 * the rejoin pace and the exclusions. Reads the acceptor's round and the learner's decided prefix.
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingLiveness {

    /** What the coordinator's failure checks call for on a tick. */
    enum Verdict {
        /** Nothing: keep leading. */
        STAY,
        /** Stop coordinating ({@link RingRounds#stepDown}). */
        STEP_DOWN,
        /** A member was excluded: re-form the ring. */
        REFORM
    }

    private final RingConfig config;
    private final int self;
    private final int n;
    private final RingGroup group;
    /** The ids a message ever came from (as a mask). */
    private int seen;
    private final RingAcceptor acceptor;
    private final RingLearner learner;
    private final RingReports reports;
    private final RingCounters counters;
    private final RingSuspicion suspicion;
    private final Exclusions exclusions;

    private final long[] lastHeard;
    private boolean started;
    private final boolean recoveredAny;
    private final long holdUntil;
    private boolean heardPeer;
    private boolean heardAnyPeer;
    private boolean external;
    private long heldSuspicion = Long.MIN_VALUE;
    private boolean coordinatorSteppedDown;
    /** The member the coordinator of our round handed its coordination to (T4, {@link RingHandOver}), -1 for none. */
    private int handedTo = -1;
    private long steppedDownAt;
    /** When the coordinator of our round was last seen at work (its Heartbeat or Phase 1A, a packet of the round). */
    private long coordinatorHeardAt;
    /**
     * A coordinator leading a round below ours that we hear (we promised a round that never
     * started: we are stranded above the working round), its round, and when we last heard it.
     */
    private int workingCoordinator = -1;
    private long workingRound = -1;
    private long workingHeardAt;
    private int reformsSinceDecision;
    /** When the first re-formation since the last decision happened. */
    private long stalledSince;
    private long lastRejoinAt = Long.MIN_VALUE;

    /**
     * @param recoveredAny whether this member restarted with a log (it then holds back from
     *                     starting rounds until it hears a peer or the restart hold ends)
     * @param now          the driver's clock at creation: every member counts as just heard
     */
    RingLiveness(RingConfig config, int self, RingAcceptor acceptor, RingLearner learner, RingReports reports,
                 RingCounters counters, boolean recoveredAny, RingGroup group, long now) {
        this.config = config;
        this.self = self;
        this.n = config.members();
        this.group = group;
        this.acceptor = acceptor;
        this.learner = learner;
        this.reports = reports;
        this.counters = counters;
        this.suspicion = new RingSuspicion(config, self, () -> group.at(learner.firstUndecided()));
        this.exclusions = new Exclusions(config.idSpace(), config.rejoinBackoffNanos());
        this.recoveredAny = recoveredAny;
        this.heardPeer = !recoveredAny;
        this.holdUntil = now + config.restartHoldNanos();
        this.coordinatorHeardAt = now;
        this.lastHeard = new long[config.idSpace()];
        Arrays.fill(lastHeard, now);
    }

    // ---------------------------------------------------------------- what was heard

    /** A well-formed message of {@code from} arrived at {@code now}. */
    void heard(int from, long now) {
        lastHeard[from] = Math.max(lastHeard[from], now);
        seen |= 1 << from;
        if (from != self) {
            heardPeer = true;
            heardAnyPeer = true;
        }
    }

    /**
     * Coordinator traffic of our round — its Heartbeat or Phase 1A, a ring packet of the round
     * carrying 2As or decisions (only the coordinator's work makes those) — is what keeps members
     * from suspecting it (as Multi-Paxos' leader traffic): a member that coordinates the round on
     * paper only, or a candidate that gave up, still sends other messages, and proposals alone may
     * still travel a ring whose coordinator moved on.
     */
    void noteCoordinatorTraffic(int from, Object m, long now) {
        long round = acceptor.rnd();
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

    /** The coordinator of our round said it steps down: suspect it without waiting a full time-out. */
    void onStepDown(int from, RingMessage.StepDown sd, long now) {
        long round = acceptor.rnd();
        if (sd.round() == round && from == config.coordinatorOf(round) && from != self) {
            coordinatorSteppedDown = true;
            steppedDownAt = now;
        }
    }

    /** The coordinator of our round heartbeats: whatever it said before, it works. */
    void coordinatorHeartbeat() {
        coordinatorSteppedDown = false;
    }

    /** A coordinator heartbeats a round below ours: we may be stranded above it. */
    void heardWorkingCoordinator(int from, long round, long now) {
        workingCoordinator = from;
        workingRound = round;
        workingHeardAt = now;
    }

    /** The round changed: whatever its old coordinator said no longer counts. */
    void roundChanged() {
        coordinatorSteppedDown = false;
        handedTo = -1;
    }

    /**
     * T4 ({@link RingHandOver}): the coordinator of our round handed its coordination to
     * {@code successor}: its Phase 1A is not refused by stickiness, and the hand-over counts as
     * hearing the coordinator (no other member starts a round first).
     */
    void handedOver(int successor, long now) {
        handedTo = successor;
        coordinatorHeardAt = Math.max(coordinatorHeardAt, now);
    }

    /**
     * Runtime failure detection ({@code detectFailuresExternally}): ticks no longer suspect, except
     * before the first round and after the coordinator's step-down ({@link #claimsRound}).
     */
    void detectExternally() {
        external = true;
    }

    /** Member {@code m} is up by what we heard: heard within the suspect time-out, and some peer heard at all. */
    boolean live(int m, long now) {
        return now - lastHeard[m] <= config.suspectNanos() && heardAnyPeer;
    }

    boolean excluded(int m, long now) {
        return exclusions.excluded(m, now);
    }

    /** {@code m} was laid out on a ring at {@code now}. */
    void onRing(int m, long now) {
        exclusions.onRing(m, now);
    }

    long rejoins() {
        return exclusions.rejoins();
    }

    // ---------------------------------------------------------------- the coordinator of our round

    /** The coordinator of our round (member 0 before any round: the first candidate). */
    int watchedCoordinator() {
        long round = acceptor.rnd();
        return round < 0 ? 0 : config.coordinatorOf(round);
    }

    /** The members the detector watches: the ring when {@code leading}, else the coordinator, as bits. */
    long watchedMask(boolean leading, Ring ring) {
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

    private boolean suspectsCoordinator(long roundChangedAt, long now) {
        int c = watchedCoordinator();
        if (c == self) {
            return false;
        }
        long heard = Math.max(coordinatorHeardAt, roundChangedAt);
        if (coordinatorSteppedDown) {
            // It told us: the ranked time-outs start as if it had been silent for a suspect time-out.
            heard = Math.min(heard, steppedDownAt - config.suspectNanos());
        }
        return suspicion.suspects(acceptor.rnd(), c, heard, now);
    }

    /**
     * Stickiness (C8, pre-vote's role): refuse a Phase 1A of another coordinator while the
     * coordinator of our round was heard within 3/4 of the suspect time-out and did not step down;
     * a coordinator that leads refuses too (check-quorum removes it if it truly lost its quorum).
     * The successor the coordinator handed over to is not refused (T4, {@link RingHandOver}).
     */
    boolean sticky(int candidate, boolean leading, long now) {
        long round = acceptor.rnd();
        if (round < 0) {
            return false;
        }
        int c = config.coordinatorOf(round);
        if (c == self) {
            // A working coordinator is not deposed by a member that merely cannot hear it.
            return leading;
        }
        return c != candidate && candidate != handedTo && !coordinatorSteppedDown
                && now - coordinatorHeardAt < config.suspectNanos() * 3 / 4;
    }

    /**
     * We hear a coordinator at work in a round below ours: our own round's coordinator does not
     * lead ({@code coordinates}: whether this member leads or runs a Phase 1 itself).
     */
    boolean stranded(boolean coordinates, long now) {
        return workingCoordinator >= 0 && workingCoordinator != self && workingRound < acceptor.rnd()
                && now - workingHeardAt < config.suspectNanos() && !coordinates;
    }

    /** The coordinator heard below our round ({@link #stranded}). */
    int workingCoordinator() {
        return workingCoordinator;
    }

    // ---------------------------------------------------------------- starting rounds

    /**
     * The first tick: whether this member starts the first round at once (a cluster of one, or
     * member 0 on a first start in no round). Later calls return false.
     */
    boolean startsFirstRound() {
        if (started) {
            return false;
        }
        started = true;
        return n == 1 || (!recoveredAny && self == 0 && acceptor.rnd() < 0);
    }

    /** A tick while recovering: the first start is over (nothing is started). */
    void markStarted() {
        started = true;
    }

    /** Restarted with a log, heard no peer yet, and the restart hold is not over. */
    private boolean holding(long now) {
        return recoveredAny && !heardPeer && now - holdUntil < 0;
    }

    /**
     * The ranked suspect time-out of rank n−1 ({@link RingSuspicion}: {@code suspect × (1 + rank/2)}),
     * {@code suspect × (n+1)/2}: at least the longest any other member (rank ≤ n−2) applies to this
     * one as coordinator. For odd n it equals the former {@code suspect × (1 + (n−1)/2)}.
     */
    private long longestRankedTimeout() {
        int voters = config.membershipChanges() ? Math.max(n, group.at(learner.firstUndecided()).voterCount()) : n;
        return config.suspectNanos() * (voters + 1) / 2;
    }

    /**
     * On a tick of a member that neither leads nor runs a Phase 1: whether it starts a round of its
     * own now. Always in a cluster of one. A member that coordinates its round on paper only
     * (restarted, or stepped down), or whose first Phase 1 reached nobody and left it in no round
     * (E1: members started seconds apart), tries again after the longest ranked time-out if nobody
     * took over (never reusing the round). Any other member does when it suspects the coordinator
     * of its round, or on a suspicion held back during the restart hold (which this consumes).
     * Ticks suspect without external detection, after a step-down, and before any round: the
     * runtime's detector watches no epoch then (a negative one is "not started" to it), so without
     * the ticks a cold start whose member 0 is down would never form a ring. Member 0 is only the
     * first candidate: seed 003 (Ring Paxos) §3.3.5 has "the other processes" select a new
     * coordinator when one fails, and every member ranks the first candidate's silence alike
     * ({@link RingSuspicion}: member 1 moves first).
     */
    boolean claimsRound(long roundChangedAt, long highestStarted, long now) {
        long round = acceptor.rnd();
        if (n == 1) {
            return true;
        }
        if ((round >= 0 && config.coordinatorOf(round) == self) || (round < 0 && highestStarted >= 0)) {
            return !holding(now) && now - roundChangedAt > longestRankedTimeout();
        }
        boolean ticksSuspect = !external || coordinatorSteppedDown || round < 0;
        if (!holding(now) && ((ticksSuspect && suspectsCoordinator(roundChangedAt, now))
                || heldSuspicion == round)) {
            heldSuspicion = Long.MIN_VALUE;
            return true;
        }
        return false;
    }

    /**
     * The runtime's detector suspects the coordinator of round {@code epoch}: during the restart
     * hold the suspicion is kept for the first tick after it (true); otherwise false (start a round).
     */
    boolean holdsSuspicion(long epoch, long now) {
        if (holding(now)) {
            heldSuspicion = epoch;
            return true;
        }
        return false;
    }

    // ---------------------------------------------------------------- the coordinator's checks

    /** Check-quorum (C8): fewer than {@code quorum − 1} others heard within the suspect time-out. */
    boolean quorumLost(long now) {
        if (!heardAnyPeer && now - holdUntil < 0) {
            return false;
        }
        dev.parallax.core.membership.Membership set = group.at(learner.firstUndecided());
        return !set.isQuorum(heard(now) | (1 << self));
    }

    /** The ids a message really came from within the suspect time-out (not counted as heard at creation), as a mask. */
    int heardFrom(long now) {
        return heard(now) & seen;
    }

    /** The ids heard within the suspect time-out, as a mask (this member's own bit not set unless heard). */
    int heard(long now) {
        int mask = 0;
        for (int m = 0; m < lastHeard.length; m++) {
            if (m != self && now - lastHeard[m] <= config.suspectNanos()) {
                mask |= 1 << m;
            }
        }
        return mask;
    }

    /**
     * The leading coordinator's failure checks on a tick (C8): it steps down when it lost its
     * quorum, or when re-forming did not help (two re-formations without a decision for three stall
     * time-outs: let another member try); it excludes a ring member silent for the suspect time-out
     * (unless the runtime detects failures), or the first lagging member when the oldest open
     * instance ({@code oldestOpen}, -1 for none, opened at {@code oldestOpenedAt}) is stalled, and
     * then re-forms.
     */
    Verdict leaderVerdict(Ring ring, long oldestOpen, long oldestOpenedAt, long now) {
        if (n > 1 && quorumLost(now)) {
            return Verdict.STEP_DOWN;
        }
        if (n > 1 && reformsSinceDecision >= 2 && now - stalledSince > 3 * config.stallNanos()) {
            // Check-quorum's second half (C8): re-forming does not help; let another member try.
            return Verdict.STEP_DOWN;
        }
        if (!external) {
            for (int m : ring.order()) {
                if (m != self && now - lastHeard[m] > config.suspectNanos()) {
                    excludeSuspected(m, now);
                    return Verdict.REFORM;
                }
            }
        }
        if (oldestOpen >= 0 && now - oldestOpenedAt > config.stallNanos()) {
            int lagging = firstLagging(ring, oldestOpen);
            counters.stallExclusion();
            exclusions.exclude(lagging, now);
            return Verdict.REFORM;
        }
        return Verdict.STAY;
    }

    /**
     * Stall exclusion (re-formation trigger 2): the first member in ring order from position 1, the
     * coordinator last, whose latest {@code Alive.lastSeen} lies below {@code instance}; if that
     * is the coordinator, its predecessor (the broken link is the one into it).
     */
    private int firstLagging(Ring ring, long instance) {
        int[] order = ring.order();
        int c = ring.coordinator();
        int cp = ring.position(c);
        for (int k = 1; k <= order.length; k++) {
            int m = order[(cp + k) % order.length];
            if (m == c) {
                break;
            }
            if (reports.lastSeenOf(m) < instance) {
                return m;
            }
        }
        return ring.predecessor(c);
    }

    /** A ring member is suspected (by a tick or the runtime's detector): keep it off the next ring. */
    void excludeSuspected(int member, long now) {
        counters.suspectExclusion();
        exclusions.exclude(member, now);
    }

    /** The coordinator re-forms its ring with {@code open} instances open: starts or continues the stall clock. */
    void reforming(int open, long now) {
        counters.reformation();
        if (open == 0) {
            reformsSinceDecision = 0;   // nothing was waiting: not a stall
        }
        if (reformsSinceDecision++ == 0) {
            stalledSince = now;
        }
    }

    /** An instance this member had open was decided: re-formations since then no longer stall. */
    void openInstanceDecided() {
        reformsSinceDecision = 0;
    }

    /**
     * This member starts a round while not leading: a new candidacy, not a re-formation. The stall
     * count belongs to one leadership (as Raft's check-quorum to one term): a member that stepped
     * down after two re-formations without a decision, then elected again on an idle ring, would
     * otherwise step down at its first tick, for ever.
     */
    void newCandidacy() {
        reformsSinceDecision = 0;
    }

    /**
     * A member reports ({@code Alive}) in round {@code round}, which this member coordinates but
     * does not lead and is not starting ({@code coordinates}: it leads or runs a Phase 1): the
     * round's candidate gave up or its coordinator stepped down, and the member still waits for it.
     * True when it should be told again with a {@code StepDown}: the first one may have been lost,
     * and the runtime's detector never suspects a coordinator that keeps talking (its arrival stamps
     * count every message). The paper is silent; Raft (§5.1) has every server answer a message of
     * a stale term with its own, which ends the sender's wait the same way.
     */
    boolean abandonedRound(long round, boolean coordinates) {
        return round >= 0 && !coordinates && config.coordinatorOf(round) == self;
    }

    private boolean rejoinPaced(long now) {
        return lastRejoinAt == Long.MIN_VALUE || now - lastRejoinAt >= config.suspectNanos();
    }

    /**
     * A member that hears us ({@code leading}) promised a round above ours that never started (its
     * candidate gave up): it cannot vote in our round. True (and counted as a re-formation) when
     * the coordinator should re-form above that round now (rejoin, at most once per suspect time-out).
     */
    boolean reformsAbove(RingMessage.Alive a, boolean leading, long now) {
        if (leading && a.round() > acceptor.rnd() && rejoinPaced(now)) {
            lastRejoinAt = now;
            exclusions.rejoined();
            counters.reformation();
            return true;
        }
        return false;
    }

    /**
     * Re-formation trigger 3: {@code from}, off {@code ring}, asks back ({@code Alive(wantsRing)});
     * true when it may rejoin now — not excluded, within {@code ring.rejoin.lag} of what we know
     * decided, at most once per suspect time-out.
     */
    boolean readmits(int from, RingMessage.Alive a, Ring ring, long now) {
        if (a.wantsRing() && !ring.contains(from) && !exclusions.excluded(from, now)
                && a.decidedBelow() >= learner.knownDecidedBelow() - config.rejoinLag()
                && rejoinPaced(now)) {
            lastRejoinAt = now;
            exclusions.rejoined();
            return true;
        }
        return false;
    }
}
