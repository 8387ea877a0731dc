package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.util.ArrayList;
import java.util.List;

/**
 * Where proposals go and how the coordinator opens instances for them: the proposer's hand-over
 * (rule C7; Ring Paxos (seed 003) §3.3.1: every member proposes; one that does not coordinate
 * forwards its proposal towards the coordinator, which queues it) and the coordinator opening instances (C3):
 * its own vote, persisted in the step, then the variant's 2A, within the variant's window and, on
 * U-Ring, the backlog bound over what the ring members delivered. With skips (Multi-Ring Paxos;
 * Ring Paxos / Multi-Ring / P-SMR (seed 003) ch. 5, Alg. 1 l.13-20) it offers the skip
 * {@link SkipPacer} finds due and applies the cap: no client instance while one interval ahead.
 *
 * <p>Owns only whether an opening is in progress (an opening may re-enter itself through the
 * variant: the request is then remembered and served by the running one). The queue and the open
 * instances are {@link Coordinator}'s, the rate {@link SkipPacer}'s, the logical numbering of
 * what was emitted {@link RingEngine}'s (it delivers).
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingOpening {
    private final RingConfig config;
    private final RingAcceptor acceptor;
    private final RingLearner learner;
    private final ValueCache cache;
    private final OwnProposals own;
    private final Coordinator coordinator;
    private final SkipPacer pacer;
    private final LogicalNumbering logical;
    private final RingRounds rounds;
    private final RingLiveness liveness;
    private final RingReports reports;
    private final RingPaxosCore.Observer observer;
    private final RingGroup group;
    private final RingHandOver handOver;
    private Variant variant;
    /** G1, G7: the configuration command to open next (its encoded change), or null. */
    private java.nio.ByteBuffer changeToOpen;
    /** G7: the instance this coordinator opened its last configuration command at, -1 for none. */
    private long changeOpenedAt = -1;
    /** The round {@link #changeToOpen} was taken in: a later round drops it (its operator is told by a time-out). */
    private long changeRound = -1;
    private Recovery recovery = Recovery.NONE;

    private boolean opening;
    private boolean openAgain;
    /** Skips on demand, leading: the logical next after the last client value this coordinator opened. */
    private long openedFrontier;
    /** Skips on demand, following: the highest frontier already sent to the coordinator. */
    private long forwardedDemand;
    /** Skips offered on demand (event {@code skips.demanded}). */
    private long demandedSkips;

    RingOpening(RingConfig config, RingAcceptor acceptor, RingLearner learner, ValueCache cache, OwnProposals own,
                Coordinator coordinator, SkipPacer pacer, LogicalNumbering logical, RingRounds rounds,
                RingLiveness liveness, RingReports reports, RingPaxosCore.Observer observer, RingGroup group,
                RingHandOver handOver) {
        this.group = group;
        this.handOver = handOver;
        this.config = config;
        this.acceptor = acceptor;
        this.learner = learner;
        this.cache = cache;
        this.own = own;
        this.coordinator = coordinator;
        this.pacer = pacer;
        this.logical = logical;
        this.rounds = rounds;
        this.liveness = liveness;
        this.reports = reports;
        this.observer = observer;
    }

    /** Wires the dissemination variant and the recovery hook (once, before the first input). */
    void attach(Variant variant, Recovery recovery) {
        this.variant = variant;
        this.recovery = recovery;
    }

    /**
     * A proposal reached this member: the coordinator (leading, or in its Phase 1) queues it; any
     * other member forwards it — to the working coordinator when stranded above its round.
     */
    void proposalArrived(ProposalEntry proposal, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (rounds.coordinates()) {
            if (!coordinator.offer(proposal)) {
                return;
            }
            cache.remember(proposal.vid(), proposal.value());
            if (rounds.leading()) {
                openMore(now, out);
            }
        } else if (!recovery.recovering()) {
            if (liveness.stranded(rounds.coordinates(), now)) {
                out.send(liveness.workingCoordinator(), new RingMessage.Proposal(acceptor.rnd(), List.of(proposal)));
            } else {
                variant.forwardProposal(proposal, out);
            }
        }
    }

    /** The leading coordinator's tick: offers the skip due (if any), then opens what it may. */
    void leaderTick(long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (atEffectiveInstance(now, out)) {
            return;
        }
        long skip = pacer.skipDue(now, logical.next());
        if (skip > 0) {
            coordinator.offerSkip(ValueId.skip(skip));
        }
        openMore(now, out);
    }

    /**
     * Skip on demand (Multi-Ring Paxos; seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1):
     * another ring of this process decided up to logical {@code upTo}, so the merge (task 4) waits
     * on this ring. The paper leaves an idle ring behind until its next paced skip, up to Δ later;
     * a leading coordinator with nothing queued skips now, to {@code min(upTo, its target with the
     * lead)} — never past its own clock's target, so a demand skip never raises a lead (the pacer's
     * hybrid clock stays a clock). Nothing with {@code ring.skip.demand=off} (a peer's demand is then
     * ignored too), while recovering, handing over, or with client values queued (they advance the
     * ring themselves). True if a skip was offered.
     */
    boolean skipOnDemand(long upTo, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (!config.skipOnDemand() || !pacer.enabled() || !rounds.leading() || recovery.recovering()
                || handOver.holdsOpening() || coordinator.queuedHead() != null) {
            return false;
        }
        long target = Math.min(upTo, pacer.target(now));
        if (pacer.estimate(logical.next()) >= target) {
            return false;
        }
        coordinator.offerSkip(ValueId.skip(target));
        demandedSkips++;
        openMore(now, out);
        return true;
    }

    /**
     * The client-value frontier for skips on demand: {@code emitted} (the logical next after the
     * last client value emitted) or, while leading, the one after the last client value this
     * coordinator opened if higher (an estimate: the instance may yet be decided otherwise), so
     * that the other rings of the process skip while the value's own instance is still in flight.
     */
    long valueFrontier(long emitted) {
        return rounds.leading() ? Math.max(emitted, openedFrontier) : emitted;
    }

    /**
     * Skip on demand: the coordinator skips ({@link #skipOnDemand}), another member tells the
     * coordinator of {@code round} ({@link #forwardSkipDemand}).
     */
    void demanded(long upTo, long round, int coordinatorId, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (rounds.leading()) {
            skipOnDemand(upTo, now, out);
        } else {
            forwardSkipDemand(upTo, round, coordinatorId, out);
        }
    }

    /**
     * Skips on demand at a member that does not lead the ring: the demand goes to the coordinator
     * of its round ({@link RingMessage.SkipDemand}), once per higher frontier. Nothing before a
     * round is known, or while this member leads (it skips itself).
     */
    void forwardSkipDemand(long upTo, long round, int coordinatorId, Effects<RingWire, RingRecord, RingValue> out) {
        if (!config.skipOnDemand() || !pacer.enabled() || rounds.leading() || round < 0 || coordinatorId < 0
                || upTo <= forwardedDemand) {
            return;
        }
        forwardedDemand = upTo;
        out.send(coordinatorId, new RingMessage.SkipDemand(round, upTo));
    }

    /** A member's {@link RingMessage.SkipDemand}: acted on only by the coordinator of that round. */
    void onSkipDemand(RingMessage.SkipDemand d, long round, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (d.round() == round) {
            skipOnDemand(d.upTo(), now, out);
        }
    }

    /** Skips offered on demand (event {@code skips.demanded}). */
    long demandedSkips() {
        return demandedSkips;
    }

    /** The coordinator opens more instances if its window and bounds allow (C3), unless it hands over (T1). */
    void openMore(long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (!rounds.leading() || recovery.recovering() || handOver.holdsOpening()) {
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
                    Phase2Entry e = next();
                    if (e == NONE) {
                        break;      // G3: the instance's set is unknown here, or not the ring's
                    }
                    e = e != null ? e : coordinator.take(clients);
                    if (e == null && config.membershipChanges()
                            && group.pending(learner.firstUndecided()) > coordinator.nextInstance()) {
                        e = coordinator.takeOwn(ValueId.NOOP, ByteBufferUtil.EMPTY);     // G6
                    }
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
                    if (!acceptor.vote(instance, acceptor.rnd(), e.vid(), e.value(), out)) {
                        break;
                    }
                    cache.remember(e.vid(), e.value());
                    coordinator.opened(instance, e.vid(), now);
                    pacer.opened(instance, e.vid());
                    k = LogicalNumbering.after(k, e.vid());
                    if (pacer.enabled() && e.vid().isClientValue()) {
                        openedFrontier = Math.max(openedFrontier, k);   // skips on demand: the other rings may skip now
                    }
                    observer.voted(instance, acceptor.rnd(), e.vid());
                    observer.opened(instance, acceptor.rnd(), e.vid(), e.value());
                    batch.add(e);
                }
                if (!batch.isEmpty()) {
                    variant.open(rounds.ring(), acceptor.rnd(), batch, out);
                }
            } while (openAgain && rounds.leading());
        } finally {
            opening = false;
        }
    }

    private static final Phase2Entry NONE = new Phase2Entry(0, ValueId.NOOP, ByteBufferUtil.EMPTY);

    /**
     * G3: {@link #NONE} if the next instance may not be opened on this ring; the configuration
     * command to open there, if one waits and no re-proposal is due; else null (take the queue's).
     */
    private Phase2Entry next() {
        long i = coordinator.nextInstance();
        if (config.membershipChanges() && !group.mayOpen(i, learner.firstUndecided(), rounds.ringSet())) {
            return NONE;
        }
        if (changeToOpen == null || changeRound != acceptor.rnd()) {
            changeToOpen = null;
            return null;
        }
        Phase2Entry e = coordinator.takeOwn(ValueId.configuration(acceptor.rnd(), i), changeToOpen);
        if (e != null) {
            changeToOpen = null;
            changeOpenedAt = i;
        }
        return e;
    }

    /**
     * G5: this coordinator reached an effective instance {@code e} (the next instance is governed
     * by another set than its ring's): once everything below {@code e} is decided here it re-forms
     * on the new set — or steps down, no voter there. True if the round changed.
     */
    private boolean atEffectiveInstance(long now, Effects<RingWire, RingRecord, RingValue> out) {
        long e = coordinator.nextInstance();
        long first = learner.firstUndecided();
        if (!config.membershipChanges() || group.at(e).equals(rounds.ringSet()) || !group.history().knows(e, first)
                || first < e) {
            return false;
        }
        if (group.selfVotes(first)) {
            liveness.reforming(coordinator.open(), now);
            rounds.startRound(rounds.nextOwnRound(), now, out);
        } else {
            rounds.stepDown(now, out);
        }
        return true;
    }

    /**
     * G1, G7: this coordinator opens {@code change} next, or says why not ({@link RingGroup#refusal}).
     *
     * @param heard    the ids heard within the suspect time-out
     * @param progress per id, the first undecided instance it last reported
     */
    String proposeMembership(dev.parallax.core.membership.MembershipChange change, int heard, long[] progress, long now,
                             Effects<RingWire, RingRecord, RingValue> out) {
        if (!config.membershipChanges()) {
            return "this ring's members are fixed: set ring.member.ids (at least the cluster's n) to change them";
        }
        long first = learner.firstUndecided();
        boolean inFlight = changeToOpen != null || (changeOpenedAt >= first && rounds.leading());
        String refusal = group.refusal(change, rounds.leading(), liveness.watchedCoordinator(), first, inFlight,
                heard, progress);
        if (refusal != null) {
            return refusal;
        }
        changeToOpen = java.nio.ByteBuffer.wrap(change.encode()).asReadOnlyBuffer();
        changeRound = acceptor.rnd();
        openMore(now, out);
        return null;
    }

    /** U-Ring's backlog bound (C3): open no instance too far above what the slowest ring member delivered. */
    private boolean belowBacklog() {
        if (config.kind() != Ring.Kind.U_RING) {
            return true;
        }
        long min = reports.delivered();
        for (int m : rounds.ring().order()) {
            min = Math.min(min, reports.deliveredBy(m));
        }
        return coordinator.nextInstance() < Math.max(min, 0) + config.maxBacklog();
    }

    /** Read-index Q3 ({@link RingReads}): a membership change waits to be opened, or is opened and undecided. */
    boolean changeInFlight(long firstUndecided) {
        return changeToOpen != null || changeOpenedAt >= firstUndecided;
    }

    /** Coordinator: fewer than {@code ring.eager.below} open and not capped; others: fewer own pending than that. */
    boolean canPropose(long now) {
        if (recovery.recovering()) {
            return false;
        }
        if (rounds.leading()) {
            return coordinator.open() < config.eagerBelow() && !capped(now);
        }
        return own.size() < config.eagerBelow();
    }

    /** The coordinator's cap holds client instances back now (λ &gt; 0, one interval ahead of the target). */
    boolean capped(long now) {
        return rounds.leading() && pacer.enabled() && pacer.capped(now, pacer.estimate(logical.next()));
    }
}
