package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

/**
 * The heartbeat and {@code Alive} exchange between the coordinator and the members (C8, C9; Ring
 * Paxos (seed 003) §3.3.5–§3.3.7): a member adopts the round, ring, decided prefix and version
 * floor a coordinator's heartbeat carries, and reports its own progress in an {@code Alive} to its
 * round's coordinator (periodically, and at once for flow control, §3.3.6); the coordinator takes
 * in the reports, tells a member stuck in an abandoned round to step down, and re-forms above a
 * member that promised a round that never started, or to readmit one (both through
 * {@link RingRounds}; the readmission is the caller's, {@link #onAlive}).
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingAliveExchange {
    private final RingConfig config;
    private final int self;
    private final RingAcceptor acceptor;
    private final RingLearner learner;
    private final RingRounds rounds;
    private final RingLiveness liveness;
    private final RingReports reports;
    private Variant variant;

    RingAliveExchange(RingConfig config, int self, RingAcceptor acceptor, RingLearner learner, RingRounds rounds,
                      RingLiveness liveness, RingReports reports) {
        this.config = config;
        this.self = self;
        this.acceptor = acceptor;
        this.learner = learner;
        this.rounds = rounds;
        this.liveness = liveness;
        this.reports = reports;
    }

    /** Wires the dissemination variant (once, before the first input). */
    void attach(Variant variant) {
        this.variant = variant;
    }

    private long rnd() {
        return acceptor.rnd();
    }

    /** A tick: this member's periodic {@code Alive}, then the flow-control one if due. */
    void tick(long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (reportsToCoordinator() && reports.aliveDue(now)) {
            sendAlive(now, out);
        }
        reportBacklog(now, out);
    }

    void onHeartbeat(int from, RingMessage.Heartbeat hb, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (from != config.coordinatorOf(hb.round()) || from == self) {
            return;
        }
        learner.noteDecidedBelow(hb.decidedBelow());    // a fact, whatever the round
        if (hb.round() < rnd()) {
            liveness.heardWorkingCoordinator(from, hb.round(), now);
            return;
        }
        if (hb.round() > rnd()) {
            rounds.adoptRound(hb.round(), hb.ring(), now, out);
        } else if (!rounds.coordinates() && !hb.ring().equals(rounds.ring())) {
            rounds.followRing(hb.ring(), now);
        }
        liveness.coordinatorHeartbeat();
        learner.noteDecidedBelow(hb.decidedBelow());
        reports.noteFloor(hb.versionFloor());
    }

    /** A member's {@code Alive}; true if the coordinator should re-form its ring to readmit the member. */
    boolean onAlive(int from, RingMessage.Alive a, long now, Effects<RingWire, RingRecord, RingValue> out) {
        reports.alive(from, a);
        learner.noteDecidedBelow(a.decidedBelow());
        if (liveness.reformsAbove(a, rounds.leading(), now)) {
            // A member that hears us promised a round above ours that never started (its candidate
            // gave up): it cannot vote in our round. Re-form above it (rejoin).
            rounds.startRound(config.nextRoundOf(self, Math.max(a.round(), Math.max(rnd(), rounds.highestStarted()))),
                    now, out);
            return false;
        }
        if (liveness.abandonedRound(a.round(), rounds.coordinates())) {
            out.send(from, new RingMessage.StepDown(a.round()));
            return false;
        }
        if (a.round() != rnd() || !rounds.leading()) {
            return false;
        }
        reports.aliveInRound(from, a);
        variant.alive(from, a, now);
        reports.recomputeFloor();
        return liveness.readmits(from, a, rounds.ring(), now);
    }

    /** Whether this member reports to another coordinator (it follows a round it does not coordinate). */
    private boolean reportsToCoordinator() {
        return !rounds.coordinates() && rnd() >= 0 && config.coordinatorOf(rnd()) != self;
    }

    /** This member's {@code Alive}, to its round's coordinator, or to the working one when stranded. */
    private void sendAlive(long now, Effects<RingWire, RingRecord, RingValue> out) {
        int target = liveness.stranded(rounds.coordinates(), now) ? liveness.workingCoordinator() : config.coordinatorOf(rnd());
        reports.sendAlive(target, rnd(), rounds.ring(), variant.lastSeen(), now, out);
    }

    /** The learner's side of flow control (§3.3.6, {@link RingReports#backlogAliveDue}). */
    void reportBacklog(long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (reports.backlogAliveDue(reportsToCoordinator(), now)) {
            sendAlive(now, out);
        }
    }
}
