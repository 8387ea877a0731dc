package dev.parallax.ringpaxos.sim;

import dev.parallax.core.Command;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.liveness.MemberDetector;
import dev.parallax.core.liveness.PeerLiveness;
import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.testkit.NodeContext;
import dev.parallax.core.testkit.smr.ClientBatches;
import dev.parallax.core.testkit.smr.ClientMessage;
import dev.parallax.core.testkit.smr.PendingCompaction;
import dev.parallax.core.testkit.smr.SimService;
import dev.parallax.core.testkit.smr.SmrNode;
import dev.parallax.core.testkit.smr.SnapshotShelf;
import dev.parallax.ringpaxos.RingWire;
import dev.parallax.ringpaxos.MPacket;
import dev.parallax.ringpaxos.MPacketCodec;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxosCore;
import dev.parallax.ringpaxos.RingRecord;
import dev.parallax.ringpaxos.RingRecordCodec;
import dev.parallax.ringpaxos.RingSuspicion;
import dev.parallax.ringpaxos.RingValue;
import dev.parallax.ringpaxos.ValueId;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole Ring Paxos member in the simulator, U-Ring or M-Ring: {@link RingPaxosCore} recovered from
 * the node's durable log at every (re)start and driven by the shared {@link EffectApplier} (records,
 * sync, then sends through {@code ctx::send} and datagrams through {@code ctx::multicast}, as the
 * runtime's {@code ProtocolStage} applies them; votes are durable before they are forwarded);
 * an M-Ring member joins datagram group 0 at every start (a crash ends a membership); a
 * batcher whose batches go to the core at whichever member the client reached — every member
 * proposes, no redirect ({@code redirectHint() == ANY_REPLICA}); delivery of each
 * {@link RingValue.Chosen} to the shared {@link SimService} (sessions answer a batch decided twice
 * from their cache), then {@code onDelivered} (R3: the learner's version, §3.3.7, and M-Ring's
 * backlog, §3.3.6); snapshots every {@code snapshotEvery} instances, compacting the log
 * ({@code compact}), installed from a peer with {@code skipTo} when the core reports that the
 * catch-up lies below a trim; optionally {@code slowExecution}: at most k decided instances
 * executed per tick, the rest wait (a slow state machine).
 *
 * <p>Optionally ({@link RingSimulation.Options#runtimeDetector}) failure detection is the replica's:
 * the core {@code detectFailuresExternally()}, a {@link PeerLiveness} stamped on every arrival from a
 * member (frames and datagrams alike, as the transports stamp) and the runtime's own
 * {@link MemberDetector} with {@link RingSuspicion}, checked every tick (the runtime checks every
 * heartbeat / 4), whose suspicions reach the core as {@code ProtocolStage.suspectMember} hands them
 * on (a negative epoch is ignored). A member may also start late ({@link RingSimulation.Shared#startAt}):
 * until then it is a machine whose process has not started, which ignores everything sent to it.
 *
 * <p>It reports to the run's {@link RingSimulation.Shared} monitors as it goes: the core's
 * {@link RingPaxosCore.Observer} events to {@link QuorumWitness} and {@link BoundsMonitor}, every
 * proposal's (id, body) and every delivered (id, body) to the safety monitor, batches to the
 * progress monitor, the core's event counts and re-formations at every tick. All of it is volatile
 * except the log and the snapshot shelf.
 *
 * <p>Owned by the simulation thread.
 */
final class RingSimReplica implements SmrNode {
    /** The datagram group M-Ring members join. */
    static final int GROUP = 0;
    /** The datagram header {@code net.DatagramPort} adds (rule M1: packets of at most {@code mring.packet.bytes − 16}). */
    static final int DATAGRAM_HEADER = 16;
    private static final RingRecordCodec CODEC = new RingRecordCodec();

    private final NodeContext<Object> ctx;
    private final RingSimulation.Shared shared;
    private final RingConfig config;
    private final int snapshotEvery;
    private final EffectBuffer<RingWire, RingRecord, RingValue> effects = new EffectBuffer<>();
    private final EffectApplier<RingWire, RingRecord, RingValue> applier;
    private final ClientBatches clients;
    /** Decided and not yet executed, in instance order (only a slow member holds more than one step's). */
    private final ArrayDeque<Decided> undelivered = new ArrayDeque<>();
    private final SimService service;
    /** Speculative execution ({@code mring.speculation=on}; seed 003 (Marandi thesis) §4.2.1), else null. */
    private final dev.parallax.core.speculation.SpeculationLedger<dev.parallax.core.speculation.SpeculativeBatches.Batch> speculation;
    private final dev.parallax.core.testkit.smr.SimReads reads;
    /** Event counts this incarnation's core reported last (they are cumulative per core). */
    private final Map<String, Long> reported = new HashMap<>();
    private long reportedReformations;
    private long reportedStepDowns;
    private RingPaxosCore core;
    /**
     * The member history over what this member executed (as {@code RingDeliveredMembership} keeps
     * it in a replica): what its snapshots carry; after a restart, rebuilt like the service's state
     * (its own snapshot, then re-execution).
     */
    private final dev.parallax.core.membership.MembershipHistory delivered;
    /** Every instance below it is executed here (or covered by an installed snapshot). */
    private long applied;
    /** Rule 1 of the Multi-Ring plan over what the core handed out in this incarnation (the check of its logical next). */
    private long logicalReplay;
    /** The next instance the core is expected to deliver (applied + undelivered). */
    private long nextDecided;
    private final PendingCompaction compaction = new PendingCompaction();
    private boolean applying;
    /** Not started yet: ignores every input until its start time ({@link RingSimulation.Shared#startAt}). */
    private boolean dormant;
    /** The runtime's arrival stamps and member detector (null unless the run uses them). */
    private PeerLiveness stamps;
    private MemberDetector detector;
    /** Suspicions the detector handed over in this tick: (epoch, member) pairs. */
    private final List<long[]> suspected = new ArrayList<>();

    private record Decided(long instance, RingValue.Chosen value) {
    }

    RingSimReplica(NodeContext<Object> ctx, RingSimulation.Shared shared) {
        this.ctx = ctx;
        this.shared = shared;
        this.config = shared.scenario.config();
        this.snapshotEvery = shared.scenario.snapshotEvery();
        this.delivered = new dev.parallax.core.membership.MembershipHistory(
                dev.parallax.core.membership.Membership.initial(config.members()), config.window());
        this.service = new SimService(ctx, true, shared.options.localReads(), shared.counters);
        this.reads = new dev.parallax.core.testkit.smr.SimReads(ctx, service);
        this.applier = new EffectApplier<>(ctx.log(), CODEC, ctx::send, (group, m) -> ctx.sendDatagram(group, m),
                this::deliver, this::installFrom, v -> shared.safety.alarm(ctx.id(), v));
        applier.reads(reads.listener());
        if (config.speculation()) {
            speculation = new dev.parallax.core.speculation.SpeculationLedger<>(
                    service.speculation(shared.options.answerEarly()), 0);
            service.queriesSeeDecidedState(speculation);
            applier.tentatives(this::tentative);
        } else {
            speculation = null;
        }
        BatchBuilder batcher = new BatchBuilder(config.batchBytes(), config.batchTimeoutNanos());
        this.clients = new ClientBatches(ctx, service, shared.progress, batcher,
                () -> core.canPropose(), b -> core.onProposal(new RingValue.ClientBatch(b), ctx.now(), effects), this::apply);
    }

    @Override
    public void onStart() {
        if (ctx.now() < shared.startAt(ctx.id())) {
            dormant = true;
            return;
        }
        start();
    }

    private void start() {
        List<RingRecord> recovered = new ArrayList<>();
        ctx.log().read(ctx.log().firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(CODEC.decode(r)));
        boolean amnesiac = shared.options.recoverAmnesia() && ctx.log().amnesiaPossible();
        // The incarnation floor is the virtual clock (production: wall-clock ms).
        core = new RingPaxosCore(config, ctx.id(), recovered, amnesiac, ctx.now(), ctx.now(), new Observer());
        if (shared.options.runtimeDetector()) {
            core.detectFailuresExternally();
            stamps = new PeerLiveness(config.members(), ctx::now);
            detector = new MemberDetector("md-" + ctx.id(), ctx.id(), stamps, new RingSuspicion(config, ctx.id()),
                    core::watchedEpoch, core::watchedMask, (epoch, member) -> suspected.add(new long[] {epoch, member}),
                    ctx::now);
        }
        if (config.kind() == Ring.Kind.M_RING) {
            ctx.joinGroup(GROUP);
        }
        SnapshotShelf.Snap own = shared.shelf.get(ctx.id());
        if (own != null) {
            restore(own);
        }
    }

    /** What the core reports besides effects, to the run's monitors. */
    private final class Observer implements RingPaxosCore.Observer {
        @Override
        public void roundLed(long round, Ring ring) {
            shared.quorum.roundLed(ctx.id(), round, ring);
        }

        @Override
        public void proposed(ValueId vid, ByteBuffer body) {
            shared.proposed(ctx.id(), vid, body, ctx.now());
        }

        @Override
        public void opened(long instance, long round, ValueId vid, ByteBuffer body) {
            shared.quorum.opened(ctx.id(), instance, round, vid);
            if (config.membershipChanges() && shared.witnessSets) {
                shared.quorum.openedUnder(ctx.id(), instance, round, core.membershipHistory().at(instance));
            }
            shared.bounds.opened(ctx.id(), instance);
        }

        @Override
        public void voted(long instance, long round, ValueId vid) {
            shared.quorum.voted(ctx.id(), instance, round, vid);
        }

        @Override
        public void decided(long instance, ValueId vid, ByteBuffer body) {
            shared.quorum.decided(ctx.id(), instance, vid);
            shared.decided(ctx.id(), vid, ctx.now());
        }
    }

    private void restore(SnapshotShelf.Snap s) {
        if (speculation != null) {
            speculation.reset(s.instance());
        }
        service.restore(s);
        applied = s.instance();
        while (!undelivered.isEmpty() && undelivered.peek().instance() < applied) {
            undelivered.poll();
        }
        nextDecided = Math.max(nextDecided, applied);
        if (s.deliveryState().length > 0) {
            delivered.restore(ByteBuffer.wrap(s.deliveryState()));
        }
        core.skipTo(s.instance(), ByteBuffer.wrap(s.deliveryState()).asReadOnlyBuffer());
    }

    /** A peer trimmed what we lack: take its snapshot (the simulated transfer always succeeds). */
    private void installFrom(int peer, long instance) {
        SnapshotShelf.Snap s = shared.shelf.get(peer);
        if (s != null && s.instance() > applied) {
            restore(s);
            shared.shelf.put(ctx.id(), s);
            shared.shelf.installed();
        }
    }

    /**
     * Applies effects, executes what may run now, reports delivery progress and runs a compaction a
     * delivery asked for (never inside an apply).
     */
    private void apply() {
        if (applying) {
            return;
        }
        applying = true;
        try {
            applier.apply(effects);
            executeReady(isSlow() ? 0 : Integer.MAX_VALUE);
            reads.delivered(applied);
            if (core.logicalNext() != logicalReplay) {
                throw new AssertionError("logical numbering: member " + ctx.id() + "'s core has logical next "
                        + core.logicalNext() + ", rule 1 over what it handed out gives " + logicalReplay);
            }
        } finally {
            applying = false;
        }
    }

    private boolean isSlow() {
        return shared.options.slowMember() == ctx.id();
    }

    /**
     * Executes up to {@code budget} decided instances, tells the core how far it executed (which may
     * deliver more: executed too, within the budget), and compacts if a snapshot was taken.
     */
    private void executeReady(int budget) {
        int left = budget;
        while (left > 0 && !undelivered.isEmpty()) {
            long before = applied;
            while (left > 0 && !undelivered.isEmpty()) {
                execute(undelivered.poll());
                left--;
            }
            if (applied > before) {
                shared.bounds.delivered(applied);
                core.onDelivered(applied, ctx.now(), effects);
                applier.apply(effects);
            }
        }
        shared.undelivered(ctx.id(), undelivered.size());
        compaction.runIfAsked(ctx.log(), instance -> core.compact(instance, effects), () -> applier.apply(effects));
    }

    /** The transport stamps every arrival from a member before the protocol sees it. */
    private void stamp(int from) {
        if (stamps != null && from >= 0 && from < config.members()) {
            stamps.heard(from);
        }
    }

    @Override
    public void onMessage(int from, Object message) {
        if (dormant) {
            return;
        }
        stamp(from);
        if (message instanceof ClientMessage.Request r) {
            clients.onRequest(from, r.command());
        } else if (message instanceof ClientMessage.Query q) {
            if (shared.options.queries() == RingSimulation.Options.UNCONFIRMED_QUERIES && core.isCoordinator()) {
                reads.answerNow(from, q);
            } else {
                core.onReadIndex(reads.ask(from, q), ctx.now(), effects);
                apply();
            }
        } else if (message instanceof RingWire m) {
            core.onMessage(from, m, ctx.now(), effects);
            apply();
            clients.proposePending();
        }
    }

    @Override
    public void onDatagram(int from, int group, Object message) {
        if (dormant) {
            return;
        }
        if (from == ctx.id()) {
            return; // the runtime's datagram port drops its own (R1 contract)
        }
        if (!(message instanceof RingWire m)) {
            return;
        }
        stamp(from);
        core.onMessage(from, m, ctx.now(), effects);
        apply();
        clients.proposePending();
    }

    @Override
    public void onTick() {
        if (dormant) {
            if (ctx.now() < shared.startAt(ctx.id())) {
                return;
            }
            dormant = false;
            start();
        }
        core.onTick(ctx.now(), effects);
        apply();
        detect();
        if (isSlow()) {
            executeReady(shared.options.slowPerTick());
        }
        if (!core.recovering() && ctx.log().amnesiaPossible()) {
            ctx.log().amnesiaResolved();
        }
        clients.onTick();
        reportTotals();
    }

    /**
     * The runtime's member detector checks once; its suspicions reach the core as the protocol stage
     * hands them on: a negative epoch or a member outside 0..63 ignored.
     */
    private void detect() {
        if (detector == null) {
            return;
        }
        detector.doWork();
        for (long[] s : suspected) {
            if (s[0] >= 0 && s[1] >= 0 && s[1] < Long.SIZE) {
                core.onSuspectMember((int) s[1], s[0], ctx.now(), effects);
                apply();
            }
        }
        suspected.clear();
    }

    /** Adds this incarnation's event counts, re-formations and step-downs since the last report to the run's totals. */
    void reportTotals() {
        if (core == null) {
            return;
        }
        java.util.function.ObjLongConsumer<String> sink = (event, count) -> {
            long delta = count - reported.getOrDefault(event, 0L);
            if (delta > 0) {
                shared.events.merge(event, delta, Long::sum);
                reported.put(event, count);
            }
        };
        core.reportEvents(sink);
        if (speculation != null) {
            speculation.reportEvents(sink);   // the replica's speculation ledger, summed like the core's events
        }
        shared.reformations += core.reformations() - reportedReformations;
        reportedReformations = core.reformations();
        shared.stepDowns += core.stepDowns() - reportedStepDowns;
        reportedStepDowns = core.stepDowns();
    }

    /** The applier's decision sink: in instance order, queued for execution. */
    private void deliver(long instance, RingValue value) {
        if (!(value instanceof RingValue.Chosen chosen)) {
            throw new AssertionError("member " + ctx.id() + " delivered " + value + " at " + instance
                    + ", not a Chosen value");
        }
        if (instance != nextDecided) {
            throw new AssertionError("member " + ctx.id() + " delivered instance " + instance + " but expected "
                    + nextDecided);
        }
        nextDecided++;
        ValueId vid = chosen.vid();
        logicalReplay = vid.isSkip() ? Math.max(logicalReplay, vid.upTo())
                : vid.isNoop() || vid.isConfig() ? logicalReplay : logicalReplay + 1;
        shared.safety.decided(ctx.id(), instance, chosen);
        undelivered.add(new Decided(instance, chosen));
    }

    private void execute(Decided d) {
        if (d.instance() != applied) {
            throw new AssertionError("member " + ctx.id() + " executes instance " + d.instance() + " but expected "
                    + applied);
        }
        applied++;
        ByteBuffer bytes = d.value().bytes();
        if (config.membershipChanges()) {
            delivered.apply(d.instance(), d.value().vid().isConfig(), d.value().vid().isConfig() ? bytes : null);
        }
        ByteBuffer batch = executable(d.value());
        if (batch != null) {
            shared.progress.decided(bytes, ctx.now());
            shared.deliveredBytes[ctx.id()] += bytes.remaining();
        }
        if (speculation != null) {
            speculation.decided(d.instance(), batch);   // confirmed, or executed plainly
        } else if (batch != null) {
            for (Command c : CommandBatch.decode(batch.duplicate())) {
                service.execute(c);
            }
        }
        if (snapshotEvery > 0 && applied % snapshotEvery == 0) {
            if (speculation != null) {
                speculation.suspend();   // never a snapshot of speculative state
            }
            shared.shelf.put(ctx.id(), service.snapshot(applied,
                    config.membershipChanges() ? delivered.encode() : new byte[0]));
            if (speculation != null) {
                speculation.resume();
            }
            compaction.request(applied);
        }
    }

    /** The batch a chosen value executes, or null (a no-op, a skip, a configuration command, nothing). */
    private static ByteBuffer executable(RingValue.Chosen v) {
        boolean batch = !v.vid().isBodiless() && !v.vid().isConfig() && v.bytes().hasRemaining();
        return batch ? v.bytes() : null;
    }

    /**
     * The applier's tentative sink (speculative execution): a revocation always, a tentative position
     * only while no decision waits for execution (as the runtime's protocol stage drops them then).
     */
    private void tentative(long instance, RingValue value, boolean revoked) {
        if (revoked) {
            speculation.revoke(instance);
        } else if (undelivered.isEmpty() && value instanceof RingValue.Chosen c) {
            speculation.tentative(instance, executable(c));
        }
    }

    /**
     * The bytes a datagram takes on the wire: {@link MPacketCodec#size} plus the datagram header of
     * {@code net.DatagramPort} (16 bytes, rule M1), checked against
     * {@link dev.parallax.core.testkit.DatagramPlan#maxPacketSize()} = {@code mring.packet.bytes}.
     */
    static int datagramBytes(Object message) {
        if (message instanceof MPacket p) {
            return MPacketCodec.size(p) + DATAGRAM_HEADER;
        }
        throw new AssertionError("not a datagram: " + message);
    }

    RingPaxosCore core() {
        return core;
    }

    /**
     * An operator's membership request at this member ({@code RingPaxosCore#proposeMembership}),
     * its effects applied; why it was refused, or null. Not started or recovering: refused.
     */
    String requestMembership(MembershipChange change) {
        if (core == null || dormant) {
            return "not started";
        }
        String refusal = core.proposeMembership(change, ctx.now(), effects);
        apply();
        return refusal;
    }

    /**
     * An operator's leadership transfer at this member ({@code RingPaxosCore#transferLeadership},
     * rules T1–T4), its effects applied; why it was refused, or null. Not started: refused.
     */
    String requestTransfer(int target) {
        if (core == null || dormant) {
            return "not started";
        }
        String refusal = core.transferLeadership(target, ctx.now());
        apply();
        return refusal;
    }

    @Override
    public boolean recovering() {
        return core != null && core.recovering();
    }

    @Override
    public long applied() {
        return applied;
    }

    /** Nothing decided waits for execution. */
    @Override
    public boolean settled() {
        return undelivered.isEmpty();
    }

    @Override
    public Map<String, String> state() {
        return service.state();
    }

    /** Applied position, round, role and ring, for failure messages. */
    String describe() {
        if (core == null) {
            return "not started";
        }
        return "applied " + applied + (undelivered.isEmpty() ? "" : " (+" + undelivered.size() + " waiting)")
                + ", first undecided " + core.firstUndecided() + ", round " + core.round()
                + (core.isCoordinator() ? " coordinating" : "") + ", ring " + core.ring()
                + (core.recovering() ? ", recovering" : "")
                + (config.membershipChanges() ? ", members " + core.membershipHistory() : "");
    }
}
