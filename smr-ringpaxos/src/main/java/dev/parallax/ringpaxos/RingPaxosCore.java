package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.ObjLongConsumer;

/**
 * One member's Ring Paxos (seed 003 (Ring Paxos) ch. 3) as a deterministic step function: the shared
 * {@link RingEngine} (rounds, Phase 1, acceptor, learner, catch-up, proposer, failures, ring
 * re-formation, versions, compaction) and one dissemination {@link Variant}: U-Ring
 * ({@link UnicastPath}, Alg. 3) or M-Ring ({@code DatagramPath}, Alg. 2), chosen by
 * {@link RingConfig#kind()}. Every member is an acceptor, a learner and a proposer; clients may use
 * any replica ({@code ANY_REPLICA}), and {@link #coordinator()} is the leader hint for tools.
 *
 * <p><b>Driver contract.</b> See {@link Effects}: persist, sync if asked, then send (a vote is durable
 * before anything reveals it, §3.3.5). The core never sends to itself.
 *
 * <p>With {@code ring.lambda} &gt; 0 (Multi-Ring Paxos, seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5, Alg. 1 l.13-20) the coordinator decides skips ({@link ValueId#skip}) and caps client
 * instances; {@code now} is then read as nanoseconds since the Unix epoch (an epoch clock, or the
 * simulator's shared clock), and {@link #logicalNext()} follows the ring's logical numbering. Events
 * {@code skips.proposed}, {@code skips.decided}, {@code proposals.capped}.
 *
 * <p>No protocol-level deduplication: a batch decided twice is delivered twice at every replica in
 * the same order, and the client sessions answer the copy from their cache.
 *
 * <p>Not thread-safe: exactly one driver thread calls it; it never blocks.
 */
public final class RingPaxosCore implements ProtocolCore<RingWire, RingRecord, RingValue> {

    /**
     * What the core did, for tests and simulation monitors (quorum witnesses, bounds). Called on the
     * driver's thread inside a step; must not call back into the core. Every method defaults to
     * nothing.
     */
    public interface Observer {
        /** An observer that ignores everything. */
        Observer NONE = new Observer() {
        };

        /** This member completed Phase 1 of {@code round} and leads it on {@code ring}. */
        default void roundLed(long round, Ring ring) {
        }

        /** This member proposed {@code value} as {@code vid}. */
        default void proposed(ValueId vid, ByteBuffer value) {
        }

        /** The coordinator opened {@code instance} in {@code round} with {@code vid}. */
        default void opened(long instance, long round, ValueId vid, ByteBuffer value) {
        }

        /** This member voted {@code vid} for {@code instance} in {@code round} (first time only). */
        default void voted(long instance, long round, ValueId vid) {
        }

        /** This member learned that {@code instance} is decided as {@code vid} (body may still be unknown: null). */
        default void decided(long instance, ValueId vid, ByteBuffer valueOrNull) {
        }
    }

    private final RingConfig config;
    private final int self;
    private final RingEngine engine;
    private final Variant variant;
    private final Recovery recovery;
    private final RingLearner learner;
    private final RingReads reads;
    /** Messages refused because their round lay beyond reach. */
    private long roundsBeyondReach;

    /**
     * @param config           the cluster's parameters (its {@link RingConfig#kind()} picks the variant)
     * @param self             this member's id in {@code [0, }{@link RingConfig#idSpace()}{@code )} (n unless
     *                         {@code ring.member.ids} is set: a replica that joins by a membership change)
     * @param recovered        the records of this member's durable log (empty on first start)
     * @param amnesiac         whether the log may have lost records this member acted on (an unclean
     *                         stop under a sync policy that does not force): recover before voting (C10)
     * @param incarnationFloor the lowest proposer incarnation (wall-clock ms; {@code ctx.now()} in the simulator)
     * @param now              the driver's clock at creation
     * @param observer         told what the core does ({@link Observer#NONE} for none)
     * @throws IllegalArgumentException if {@code self} is not a member
     */
    public RingPaxosCore(RingConfig config, int self, List<RingRecord> recovered, boolean amnesiac,
                         long incarnationFloor, long now, Observer observer) {
        this.config = config;
        this.self = self;
        this.engine = new RingEngine(config, self, recovered, incarnationFloor, now,
                observer == null ? Observer.NONE : observer);
        this.variant = variantFor(engine, config, self);
        this.recovery = recoveryFor(engine, config, self, amnesiac);
        engine.attach(variant, recovery);
        this.learner = engine.learner();
        this.reads = new RingReads(config, self, engine);
    }

    /**
     * The dissemination variant of {@code config.kind()}: U-Ring's {@link UnicastPath} (Alg. 3) or
     * M-Ring's {@link DatagramPath} (Alg. 2).
     */
    static Variant variantFor(Engine engine, RingConfig config, int self) {
        if (config.kind() == Ring.Kind.U_RING) {
            return new UnicastPath(engine, config, self);
        }
        return new DatagramPath(engine, config, self);
    }

    /**
     * The amnesia recovery hook (C10): {@link Recovery#NONE} for a cluster of one member (nobody to
     * ask, nobody to answer); otherwise a {@link RingRecovery}, which recovers this member if
     * {@code amnesiac} and in any case answers the recovery queries of amnesiac peers.
     */
    static Recovery recoveryFor(RingEngine engine, RingConfig config, int self, boolean amnesiac) {
        if (config.members() == 1) {
            return Recovery.NONE;
        }
        return new RingRecovery(config, self, amnesiac, engine.recoveryHost());
    }

    /**
     * A message from {@code from}. One whose round lies beyond reach
     * ({@link RingWireBounds#beyondReach}: more than 2^32 above every round this member knows) is
     * refused here, before anything is promised or stored, and counted
     * ({@code event=round.beyond.reach}). A message carrying a decision that differs from one this
     * member keeps is not handled: each such decision is reported as a safety violation
     * ({@link Effects#safetyViolation}, naming both origins; see {@link RingLearner}), and the
     * driver stops the replica.
     */
    @Override
    public void onMessage(int from, RingWire message, long now, Effects<RingWire, RingRecord, RingValue> out) {
        long round = message == null ? -1 : RingWireBounds.roundOf(message);
        RingAcceptor acceptor = engine.acceptor();
        if (RingWireBounds.isRound(round)    // a round outside [0, 2^62-1] is the engine's: malformed
                && RingWireBounds.beyondReach(round, Math.max(acceptor.rnd(), acceptor.durableRound()))) {
            roundsBeyondReach++;
            return;
        }
        if (RingReads.owns(message) && from >= 0 && from < config.idSpace()
                && RingWireBounds.violation((RingUnicast) message, config.idSpace()) == null) {
            reads.onMessage(from, message, now, out);
            reads.check(now, out);
            return;
        }
        learner.hearing(message == null ? RingLearner.LOCAL_STEP
                : new RingLearner.Source(from, message.getClass().getSimpleName(), round));
        if (!contradictsKeptDecisions(message)) {
            engine.onMessage(from, message, now, out);   // a malformed read message is counted there
        }
        learner.hearing(RingLearner.LOCAL_STEP);
        afterStep(now, out);
    }

    /** The end of every step: conflicting decisions reported, read-index rounds checked ({@link RingReads}). */
    private void afterStep(long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (variant instanceof DatagramPath d) {
            d.roundIs(engine.rnd(), out);   // speculation: a new round revokes the tentative positions
        }
        learner.reportConflicts(out);
        reads.check(now, out);
    }

    /**
     * Read-index ({@link RingReads}, rules Q1–Q5): the coordinator of the round notes the read and
     * confirms its round with a quorum of voters; another member asks its coordinator.
     */
    @Override
    public void onReadIndex(long read, long now, Effects<RingWire, RingRecord, RingValue> out) {
        reads.onLocalRead(read, now, out);
        reads.check(now, out);
    }

    /** Reads waiting at this coordinator or asked of it (tests). */
    int readsWaiting() {
        return reads.waiting();
    }

    /**
     * Whether {@code message} claims a decision other than one this member keeps for the same
     * instance (whatever its round or sender: a correct member only ever reports true decisions).
     * Each such claim is recorded by the learner; the message is then not handled at all.
     */
    private boolean contradictsKeptDecisions(RingWire message) {
        boolean conflict = false;
        if (message instanceof MPacket p) {
            for (InstanceVid d : p.decisions()) {
                conflict |= learner.conflicts(d.instance(), d.vid());
            }
        } else if (message instanceof UPacket p) {
            for (DecisionEntry d : p.decisions()) {
                conflict |= learner.conflicts(d.instance(), d.vid());
            }
        } else if (message instanceof RingMessage.CatchUpReply r) {
            for (DecisionEntry d : r.decided()) {
                conflict |= learner.conflicts(d.instance(), d.vid());
            }
        }
        return conflict;
    }

    @Override
    public void onTick(long now, Effects<RingWire, RingRecord, RingValue> out) {
        engine.onTick(now, out);
        afterStep(now, out);
    }

    /**
     * Offers a client batch ({@link RingValue.ClientBatch}): it gets a value id and stays pending
     * until decided (C7).
     *
     * @return false when this member already has {@code ring.max.pending} own proposals undecided,
     *         or is recovering (back-pressure: the caller keeps the batch)
     * @throws IllegalArgumentException for anything but a client batch
     */
    @Override
    public boolean onProposal(RingValue value, long now, Effects<RingWire, RingRecord, RingValue> out) {
        boolean taken = engine.onProposal(value, now, out);
        afterStep(now, out);
        return taken;
    }

    /**
     * C9 (§3.3.7): trims at {@code min(instance, versionFloor)} — what a quorum of learners applied — and
     * re-persists (sync) the trim point, the promise, the remaining votes, the kept decisions and
     * the incarnation; the driver then drops every earlier record.
     */
    @Override
    public void compact(long instance, Effects<RingWire, RingRecord, RingValue> out) {
        engine.compact(instance, out);
    }

    /** A snapshot covering everything below {@code instance} was installed: the learner jumps, the acceptor trims. */
    @Override
    public void skipTo(long instance) {
        engine.skipTo(instance);
    }

    /**
     * {@link #skipTo(long)}, and the snapshot's member history ({@link RingDeliveredMembership}'s
     * state; empty for none) is taken if it applied further ({@link RingGroup}); a malformed one is
     * ignored (decisions and catch-up bring the rest).
     */
    @Override
    public void skipTo(long instance, ByteBuffer deliveryState) {
        engine.skipTo(instance);
        if (deliveryState.hasRemaining()) {
            try {
                engine.group().restore(deliveryState);
            } catch (IllegalArgumentException malformed) {
                // nothing to take
            }
        }
    }

    @Override
    public void reportEvents(ObjLongConsumer<String> sink) {
        engine.reportEvents(sink);
        sink.accept("round.beyond.reach", roundsBeyondReach);
        sink.accept("decision.conflicts", learner.conflictsSeen());
    }

    /** Messages refused because their round lay beyond reach ({@link RingWireBounds#beyondReach}). */
    public long roundsBeyondReach() {
        return roundsBeyondReach;
    }

    /** Coordinator: fewer than {@code ring.eager.below} open; others: fewer own pending than that. */
    @Override
    public boolean canPropose() {
        return engine.canPropose();
    }

    @Override
    public boolean recovering() {
        return engine.recovering();
    }

    /** Versions (§3.3.7): the replica delivered everything below {@code nextInstance}. */
    @Override
    public void onDelivered(long nextInstance, long now, Effects<RingWire, RingRecord, RingValue> out) {
        engine.onDelivered(nextInstance, now, out);
        afterStep(now, out);
    }

    /** The runtime's member detector suspects {@code member} in round {@code epoch} (C8). */
    @Override
    public void onSuspectMember(int member, long epoch, long now, Effects<RingWire, RingRecord, RingValue> out) {
        engine.onSuspectMember(member, epoch, now, out);
        afterStep(now, out);
    }

    /**
     * Hands failure detection to the runtime's member detector ({@link RingSuspicion} over arrival
     * stamps, {@link #watchedEpoch()}, {@link #watchedMask()}): ticks no longer suspect, except
     * before the first round (member 0 may never start; Ring Paxos §3.3.5) and after a step-down.
     * Call before the first input.
     */
    public void detectFailuresExternally() {
        engine.detectFailuresExternally();
    }

    /**
     * A membership change ({@link RingGroup}, rules G1–G8): this member, coordinating its round,
     * opens {@code change} as a configuration command; it takes effect {@code ring.window}
     * instances after the instance that decides it. Refused (the reason returned) unless
     * {@code ring.member.ids} is set, this member leads, no other change is in flight, and the
     * change keeps a majority of heard voters and promotes only a caught-up learner.
     *
     * @return null if opened (or queued to open next), else why not
     */
    public String proposeMembership(dev.parallax.core.membership.MembershipChange change, long now,
                                    Effects<RingWire, RingRecord, RingValue> out) {
        String refusal = engine.proposeMembership(change, now, out);
        afterStep(now, out);
        return refusal;
    }

    /**
     * A leadership transfer (rules T1–T4, {@link RingHandOver}; Raft thesis §3.10 adapted to
     * rounds): this member, leading its round, opens nothing more; once {@code target} reports every
     * instance opened decided, it stops coordinating and tells the members to let {@code target}
     * start its round at once. Given up after {@code ring.suspect.ms} (opening resumes).
     *
     * @return null if started (or {@code target} is this member, which leads), else why not: this
     *         member does not lead, {@code target} is no voter of the set in effect or was not heard
     *         within the suspect time-out
     */
    public String transferLeadership(int target, long now) {
        return engine.transferLeadership(target, now);
    }

    /**
     * The voter a transfer should go to when the operator names none: a voter heard within the
     * suspect time-out whose reported decided prefix is the highest and within the window of what
     * this coordinator opened, as of the last input; -1 if there is none or this member does not lead.
     */
    public int transferTarget() {
        return engine.transferTarget();
    }

    /** Which member set governs each instance, as far as this member knows ({@link RingGroup}). */
    public dev.parallax.core.membership.MembershipHistory membershipHistory() {
        return engine.group().history();
    }

    /** The member set in effect at the first undecided instance. */
    public dev.parallax.core.membership.Membership membership() {
        return engine.group().at(engine.firstUndecided());
    }

    /**
     * An installed snapshot's member history (its delivery side's,
     * {@link dev.parallax.core.membership.MembershipHistory#encode}): taken if it applied further
     * than this member's. Call with {@link #skipTo}, on the driver's thread.
     *
     * @throws IllegalArgumentException if malformed
     */
    public boolean restoreMembership(java.nio.ByteBuffer encoded) {
        return engine.group().restore(encoded);
    }

    /** The acceptor's current round, -1 before any. */
    public long round() {
        return engine.rnd();
    }

    /** Whether this member coordinates its round and finished Phase 1. */
    public boolean isCoordinator() {
        return engine.leading();
    }

    /** The coordinator of this member's round (the leader hint), -1 before the first round. */
    public int coordinator() {
        return engine.coordinator();
    }

    /** The ring of the current round, or null. */
    public Ring ring() {
        return engine.ring();
    }

    /** Every instance below this one was decided and handed out. */
    public long firstUndecided() {
        return engine.firstUndecided();
    }

    /**
     * The ring's logical next over the values this member handed out, in order (Multi-Ring Paxos'
     * logical numbering: a client value +1, a NOOP +0, a skip {@code max(next, upTo)}); equal at members
     * that handed out the same prefix. Starts at 0, also after a restart or an installed snapshot,
     * where it is then a lower bound of the ring's.
     */
    public long logicalNext() {
        return engine.logicalNext();
    }

    /**
     * The logical next right after the last client value this member emitted, or, at the leading
     * coordinator, opened (0 before any): a merge that delivers that value waits until every other
     * ring it merges passed it, which is what skips on demand ({@link #onSkipDemand}) ask the idle
     * rings' coordinators for — from the coordinator as soon as it opens the value, so that the
     * skips run beside the value's own instance.
     */
    public long valueFrontier() {
        return engine.valueFrontier();
    }

    /**
     * How many logical instances the highest skip target this member has seen ran ahead of its own
     * clock's target {@code λ·⌊now / 1 ms⌋ / 1000} when it saw it (never lowered; 0 with λ = 0 and
     * while the clocks agree): what its ring's coordinator adds to that target. A process running
     * several rings (Multi-Ring Paxos, seed 003 ch. 5) hands the largest of its rings' leads to
     * every one of them ({@link #adoptPaceLead}), so that the rings follow a coordinator whose clock
     * runs ahead instead of leaving the merge waiting for the whole skew.
     */
    public long paceLead() {
        return engine.pacer().lead();
    }

    /**
     * Another ring of this process saw a lead of {@code lead} ({@link #paceLead}): this ring's is at
     * least that from now on. An input like the others (the driver's thread, between steps); it
     * sends nothing, the next tick's skip check uses it.
     */
    public void adoptPaceLead(long lead) {
        engine.pacer().adoptLead(lead);
    }

    /**
     * Another ring of this process opened or decided up to logical instance {@code upTo} and this
     * ring is behind it (Multi-Ring Paxos, {@code ring.skip.demand=on}): a leading coordinator with
     * nothing queued skips now instead of at its next paced check ({@link RingOpening#skipOnDemand});
     * another member sends the demand to the coordinator ({@link RingMessage.SkipDemand}, once per
     * higher {@code upTo}). An input like the others, on the driver's thread
     * ({@code ProtocolRuntime.runOnCore}).
     */
    public void onSkipDemand(long upTo, long now, Effects<RingWire, RingRecord, RingValue> out) {
        engine.onSkipDemand(upTo, now, out);
    }

    /** Whether the coordinator's cap holds client instances back ({@code ring.lambda} &gt; 0; false elsewhere). */
    public boolean capped() {
        return engine.capped();
    }

    /** Delivery progress last reported by the runtime ({@link #onDelivered}). */
    public long delivered() {
        return engine.delivered();
    }

    /** Instances the coordinator may have open now (the variant's window). */
    public int window() {
        return engine.window();
    }

    /** Coordinator: open instances; others: own undecided proposals. */
    public int outstanding() {
        return engine.leading() ? engine.openCount() : engine.ownPending();
    }

    /** Decided-but-undelivered instances plus buffered bodies. */
    public int learnerBuffered() {
        return engine.learnerBuffered();
    }

    /** Bytes of {@link #learnerBuffered()}. */
    public long learnerBufferedBytes() {
        return engine.learnerBufferedBytes();
    }

    /** The garbage-collection floor (§3.3.7): the quorum-th highest delivered count known. */
    public long versionFloor() {
        return engine.versionFloor();
    }

    /** Rings this member re-formed as coordinator. */
    public long reformations() {
        return engine.reformations();
    }

    /** Times this member stepped down as coordinator. */
    public long stepDowns() {
        return engine.stepDowns();
    }

    /** The round the member detector watches in (its epoch). */
    public long watchedEpoch() {
        return engine.rnd();
    }

    /** The members the detector watches: the ring (coordinator) or the coordinator (others), as bits. */
    public long watchedMask() {
        return engine.watchedMask();
    }

    /** This member's id. */
    public int self() {
        return self;
    }

    /** The configuration. */
    public RingConfig config() {
        return config;
    }

    /** The engine (package: tests and the variants). */
    RingEngine engine() {
        return engine;
    }

    Variant variant() {
        return variant;
    }
}
