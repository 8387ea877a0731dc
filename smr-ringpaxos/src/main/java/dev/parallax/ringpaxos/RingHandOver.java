package dev.parallax.ringpaxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.protocol.Effects;

/**
 * Leadership transfer on a ring (rules T1–T4). Seed 003 (Ring Paxos) has no transfer: a round's
 * coordinator is whoever completes its Phase 1 (§3.3.2), and a new one is chosen only when the old
 * one is suspected (§3.3.5). This is Raft's (Ongaro's thesis §3.10) adapted to rounds:
 * <ul>
 *   <li><b>T1, the coordinator stops opening.</b> Asked to hand over to a voter of the set in
 *       effect that it heard within the suspect time-out, the leading coordinator opens nothing more
 *       (no client value, skip or configuration command; queued proposals wait), for at most the
 *       suspect time-out.</li>
 *   <li><b>T2, the target catches up.</b> Once the target's {@code Alive} reports every instance
 *       the coordinator opened decided there, the coordinator stops coordinating its round and
 *       sends {@link RingMessage.HandOver} to every member. Past the suspect time-out it gives the
 *       transfer up and opens again.</li>
 *   <li><b>T3, the target starts a round at once.</b> On the {@code HandOver} of its round's
 *       coordinator it starts Phase 1 of the next round it coordinates, without waiting to suspect
 *       anyone; a member that may not start rounds (recovering, or no voter) ignores it.</li>
 *   <li><b>T4, stickiness yields to the named successor.</b> A member told of the hand-over answers
 *       the successor's Phase 1A although the old coordinator was heard lately (rule C8's
 *       stickiness plays pre-vote's part and would refuse it), and counts the hand-over as hearing
 *       the old coordinator, so no other member starts a round first. The old coordinator, no
 *       longer leading, answers it too. A {@code HandOver} that arrives after the Phase 1A costs a
 *       Phase 1A retransmission.</li>
 * </ul>
 * Safety does not rest on any of this: the successor's round is an ordinary round whose Phase 1
 * learns every value a quorum may have accepted (Paxos P2c). If the successor never completes its
 * Phase 1, the old coordinator (coordinating its round on paper only) starts a new round after the
 * longest ranked time-out ({@link RingLiveness#claimsRound}), and the others suspect as usual.
 *
 * <p>Owns the transfer in progress and how many hand-overs were sent; reads what the coordinator
 * opened, the members' reports and what was heard; acts through {@link RingRounds}.
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingHandOver {
    private final RingConfig config;
    private final int self;
    private final RingAcceptor acceptor;
    private final RingLearner learner;
    private final RingRounds rounds;
    private final RingReports reports;
    private final RingLiveness liveness;
    private final Coordinator coordinator;
    private final RingGroup group;
    private Recovery recovery = Recovery.NONE;

    /** The member being handed the coordination, -1 for none. */
    private int target = -1;
    /** The round the transfer was started in: it ends with that round's leadership. */
    private long round = -1;
    private long deadline;
    private long sent;
    private long abandoned;

    RingHandOver(RingConfig config, int self, RingAcceptor acceptor, RingLearner learner, RingRounds rounds,
                 RingReports reports, RingLiveness liveness, Coordinator coordinator, RingGroup group) {
        this.config = config;
        this.self = self;
        this.acceptor = acceptor;
        this.learner = learner;
        this.rounds = rounds;
        this.reports = reports;
        this.liveness = liveness;
        this.coordinator = coordinator;
        this.group = group;
    }

    /** Wires the recovery hook (once, before the first input). */
    void attach(Recovery recovery) {
        this.recovery = recovery;
    }

    /**
     * T1: starts handing the coordination over to {@code to}.
     *
     * @return null if started (or {@code to} is this member, which leads), else why not
     */
    String start(int to, long now) {
        if (!rounds.leading()) {
            int c = liveness.watchedCoordinator();
            return "member " + self + " does not coordinate this ring ("
                    + (acceptor.rnd() < 0 || c == self ? "no member does now" : "member " + c + " does") + ")";
        }
        if (to == self) {
            return null;
        }
        Membership set = group.at(learner.firstUndecided());
        if (to < 0 || to >= config.idSpace() || !set.isVoter(to)) {
            return "member " + to + " is not a voter of " + set.describe();
        }
        if (!liveness.live(to, now)) {
            return "member " + to + " was not heard within the suspect time-out (ring.suspect.ms)";
        }
        target = to;
        round = acceptor.rnd();
        deadline = now + config.suspectNanos();
        return null;
    }

    /** T1: whether the coordinator holds back from opening instances now (a transfer runs). */
    boolean holdsOpening() {
        return target >= 0 && round == acceptor.rnd() && rounds.leading();
    }

    /**
     * T2, on the leading coordinator's tick and on an {@code Alive}: hands over once the target
     * decided everything opened, or gives the transfer up past its deadline.
     *
     * @return true if this member handed its round over (it no longer leads)
     */
    boolean check(long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (target < 0) {
            return false;
        }
        if (!holdsOpening()) {
            target = -1;     // the round ended (or its leadership) before the target caught up
            abandoned++;
            return false;
        }
        if (now - deadline >= 0) {
            target = -1;
            abandoned++;
            return false;
        }
        if (reports.progress()[target] < coordinator.nextInstance()) {
            return false;
        }
        int successor = target;
        target = -1;
        sent++;
        rounds.handOver(successor, now, out);
        return true;
    }

    /** T3, T4: the {@code HandOver} of {@code from}. */
    void onHandOver(int from, RingMessage.HandOver h, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (h.round() != acceptor.rnd() || from != config.coordinatorOf(h.round()) || from == self) {
            return;
        }
        if (h.successor() != self) {
            liveness.handedOver(h.successor(), now);
        } else if (!recovery.recovering() && !rounds.coordinates()) {
            rounds.startRound(rounds.nextOwnRound(), now, out);
        }
    }

    /**
     * The voter to hand over to when the operator names none (a replica stopping on SIGTERM): of the
     * voters of the set in effect other than this member and heard within the suspect time-out, the
     * one that reported the highest first undecided instance (the lowest id among equals), provided
     * that lies within the window of what this coordinator opened; -1 if there is none (or this
     * member does not lead).
     */
    int bestTarget(long now) {
        if (!rounds.leading()) {
            return -1;
        }
        long[] progress = reports.progress();
        Membership set = group.at(learner.firstUndecided());
        int best = -1;
        for (int m = 0; m < config.idSpace(); m++) {
            if (m != self && set.isVoter(m) && liveness.live(m, now) && progress[m] >= 0
                    && (best < 0 || progress[m] > progress[best])) {
                best = m;
            }
        }
        return best >= 0 && progress[best] >= coordinator.nextInstance() - config.window() ? best : -1;
    }

    /** Hand-overs sent. */
    long sent() {
        return sent;
    }

    /** Transfers given up: past their deadline, or their round (or its leadership) ended first. */
    long abandoned() {
        return abandoned;
    }
}
