package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.util.Arrays;

/**
 * What members tell each other periodically, and what they last told this member: the
 * coordinator's {@code Heartbeat} (its round, ring, decided prefix and version floor), each
 * member's {@code Alive} (its first undecided instance, delivered count, backlog and the highest
 * instance of the round it saw), the versions behind garbage collection (Ring Paxos (seed 003)
 * §3.3.7, {@link VersionTable}) and the learner's side of flow control (§3.3.6).
 *
 * <p>Owns the version table, when this member last sent each report, whether its backlog was high,
 * the highest instance it saw in the current round, and per member the highest instance reported
 * seen ({@code Alive.lastSeen}, for stall exclusion) and the first undecided instance reported
 * ({@code Phase1B} or {@code Alive}, for leaving lagging members off a layout).
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingReports {
    private final RingConfig config;
    private final int self;
    private final int n;
    private final RingLearner learner;
    private final VersionTable versions;

    private long lastHeartbeat = Long.MIN_VALUE;
    private long lastAlive = Long.MIN_VALUE;
    private boolean backlogHigh;
    /** The highest instance of the current round this member saw an entry of. */
    private long lastSeen = -1;
    /** Each member's latest {@code Alive.lastSeen} in the current round; -1 unknown. */
    private final long[] lastSeenOf;
    /** Each member's first undecided instance as it last reported it (Phase 1B, Alive); -1 unknown. */
    private final long[] reportedFirst;

    /** Who hears the heartbeats (G4, G8); null: ids {@code 0..n-1}. */
    private final RingGroup group;

    RingReports(RingConfig config, int self, RingLearner learner, RingGroup group) {
        this.config = config;
        this.self = self;
        this.n = config.idSpace();
        this.learner = learner;
        this.group = group;
        this.versions = new VersionTable(n, config.quorum(), self);
        this.lastSeenOf = new long[n];
        Arrays.fill(lastSeenOf, -1);
        this.reportedFirst = new long[n];
        Arrays.fill(reportedFirst, -1);
    }

    // ---------------------------------------------------------------- the coordinator's Heartbeat

    boolean heartbeatDue(long now) {
        return lastHeartbeat == Long.MIN_VALUE || now - lastHeartbeat >= config.heartbeatNanos();
    }

    /** The coordinator of {@code round} tells every other member its ring, decided prefix and version floor. */
    void sendHeartbeat(long round, Ring ring, long now, Effects<RingWire, RingRecord, RingValue> out) {
        lastHeartbeat = now;
        versions.recompute();
        RingMessage.Heartbeat hb = new RingMessage.Heartbeat(round, ring, learner.knownDecidedBelow(), versions.floor());
        for (int m : group.others(group.recipients(learner.firstUndecided()))) {
            out.send(m, hb);
        }
    }

    // ---------------------------------------------------------------- this member's Alive

    boolean aliveDue(long now) {
        return lastAlive == Long.MIN_VALUE || now - lastAlive >= config.heartbeatNanos();
    }

    /**
     * Sends this member's {@code Alive} of {@code round} to {@code target}; it asks back onto the
     * ring (U-Ring) when {@code ring} leaves it out. {@code variantLastSeen} is what the variant saw.
     */
    void sendAlive(int target, long round, Ring ring, long variantLastSeen, long now,
                   Effects<RingWire, RingRecord, RingValue> out) {
        lastAlive = now;
        boolean wantsRing = ring != null && !ring.contains(self) && config.kind() == Ring.Kind.U_RING;
        out.send(target, new RingMessage.Alive(round, learner.firstUndecided(), versions.delivered(),
                Math.max(0, learner.firstUndecided() - versions.delivered()), Math.max(lastSeen, variantLastSeen), wantsRing));
    }

    /**
     * The learner's side of flow control (M6; Ring Paxos (seed 003) §3.3.6): whether an
     * {@code Alive} is due because of the backlog (decided, not yet executed) — at once when it
     * reaches {@code mring.fc.threshold}; on M-Ring, again every {@code mring.fc.decrease} while it
     * stays there (the coordinator halves at most that often and grows meanwhile: one report per
     * heartbeat cannot hold it down, B6), and at once when it drops below (the coordinator may grow
     * again). Only a member that reports to another coordinator ({@code reporting}) sends one.
     */
    boolean backlogAliveDue(boolean reporting, long now) {
        long backlog = learner.firstUndecided() - versions.delivered();
        boolean high = backlog >= config.mringFcThreshold();
        boolean due = false;
        if (reporting) {
            boolean mRing = config.kind() == Ring.Kind.M_RING;
            due = (high && !backlogHigh)
                    || (mRing && high && (lastAlive == Long.MIN_VALUE || now - lastAlive >= config.mringFcDecreaseNanos()))
                    || (mRing && !high && backlogHigh);
        }
        backlogHigh = high;
        return due;
    }

    // ---------------------------------------------------------------- what others report

    /** Any member's {@code Alive}: its delivered count and first undecided instance. */
    void alive(int from, RingMessage.Alive a) {
        versions.report(from, a.delivered());
        reportedFirst[from] = a.decidedBelow();
    }

    /** An {@code Alive} of the round this member leads: the highest instance {@code from} saw. */
    void aliveInRound(int from, RingMessage.Alive a) {
        lastSeenOf[from] = Math.max(lastSeenOf[from], a.lastSeen());
    }

    /** Member {@code from} reported its first undecided instance in a {@code Phase1B}. */
    /** Per id, the first undecided instance it last reported (-1 if never); this member's own for itself. */
    long[] progress() {
        long[] p = reportedFirst.clone();
        p[self] = learner.firstUndecided();
        return p;
    }

    void reportedFirst(int from, long decidedBelow) {
        reportedFirst[from] = decidedBelow;
    }

    /** E2: member {@code m} reported a first undecided instance more than ring.rejoin.lag below what we know decided. */
    boolean farBehind(int m) {
        return reportedFirst[m] >= 0 && reportedFirst[m] < learner.knownDecidedBelow() - config.rejoinLag();
    }

    /** Member {@code m}'s latest {@code Alive.lastSeen} in the current round, -1 unknown. */
    long lastSeenOf(int m) {
        return lastSeenOf[m];
    }

    /** An entry of {@code instance} of the current round arrived here. */
    void sawInstance(long instance) {
        lastSeen = Math.max(lastSeen, instance);
    }

    /** The round changed: what was seen of the old one no longer counts. */
    void roundChanged() {
        lastSeen = -1;
        Arrays.fill(lastSeenOf, -1);
    }

    // ---------------------------------------------------------------- versions (§3.3.7)

    /** The replica delivered everything below {@code nextInstance}. */
    void delivered(long nextInstance) {
        versions.delivered(nextInstance);
    }

    /** The quorum-th highest delivered count, own included. */
    void recomputeFloor() {
        versions.recompute();
    }

    void noteFloor(long floor) {
        versions.noteFloor(floor);
    }

    long floor() {
        return versions.floor();
    }

    long delivered() {
        return versions.delivered();
    }

    /** Member {@code m}'s delivered count as last reported. */
    long deliveredBy(int m) {
        return versions.of(m);
    }
}
