package dev.parallax.paxos.sim;

import dev.parallax.core.Command;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.testkit.NodeContext;
import dev.parallax.core.testkit.smr.ClientBatches;
import dev.parallax.core.testkit.smr.ClientMessage;
import dev.parallax.core.testkit.smr.SimReads;
import dev.parallax.core.testkit.smr.PendingCompaction;
import dev.parallax.core.testkit.smr.SafetyMonitor;
import dev.parallax.core.testkit.smr.SimService;
import dev.parallax.core.testkit.smr.SnapshotShelf;
import dev.parallax.paxos.MultiPaxosCore;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.Value;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.paxos.spaxos.BatchId;
import dev.parallax.paxos.spaxos.DisseminationMessage;
import dev.parallax.paxos.spaxos.DisseminationRecord;
import dev.parallax.paxos.spaxos.Executable;
import dev.parallax.paxos.spaxos.ExecutedBatches;
import dev.parallax.paxos.spaxos.ExecutedIds;
import dev.parallax.paxos.spaxos.ExecutionMirror;
import dev.parallax.paxos.spaxos.IdList;
import dev.parallax.paxos.spaxos.MembershipDecided;
import dev.parallax.paxos.spaxos.SPaxosConfig;
import dev.parallax.paxos.spaxos.SPaxosCore;
import dev.parallax.paxos.spaxos.SPaxosRecord;
import dev.parallax.paxos.spaxos.SPaxosRecordCodec;
import dev.parallax.paxos.spaxos.SPaxosValue;
import dev.parallax.paxos.spaxos.SPaxosWire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole S-Paxos replica in the simulator (seed 002 (S-Paxos) §IV): {@link SPaxosCore} driven by
 * the shared {@link EffectApplier} on the node's durable log (as {@link SimReplica} drives
 * Multi-Paxos), its incarnation floor the virtual clock; a batcher whose batches go to
 * dissemination ({@code onProposal(ClientBatch)}) at whichever replica the client reached — never a
 * redirect (§IV-A); delivery through the production {@link ExecutedBatches} encoding and
 * {@link ExecutionMirror}, as {@code SPaxosBroadcast} delivers; the shared {@link SimService}
 * (sessions, KV, replies from the receiving replica only, {@code RETRY_FROM}); snapshots every
 * {@code snapshotEvery} instances carrying the mirror's executed ids as delivery state (installed
 * with {@code skipTo(p, state)}, plan runtime change R2) and the membership history
 * ({@link MembershipDecided}s applied to the mirror in order); membership changes and leadership
 * transfers asked by the {@link MembershipNemesis} ({@link #requestMembership}, {@link #requestTransfer}).
 *
 * <p>It reports to the run's monitors as it goes: ordering decisions to the {@link SafetyMonitor}
 * (agreement on id lists; validity — each decided list was proposed by a leader, and every id in
 * a proposal became stable at some replica first, Alg. 1 l.14–18), every persisted body to the
 * {@link BodyMonitor} (an id never names two bodies) and every executed one against it, every
 * executed instance to the {@link ExecutionMonitor}, and the body store's size to
 * {@link SPaxosSimulation.Shared}. All of it is volatile except the log and the snapshot shelf.
 *
 * <p>The simulated network carries the simulated clients' messages too, so the node's messages are
 * {@code Object}s: the core's {@link SPaxosWire}s go out as their channels carry them (an ordering
 * message unwrapped, {@link #onWire}) and come back wrapped, as {@code SPaxos}' routes do.
 *
 * <p>Owned by the simulation thread.
 */
final class SPaxosSimReplica implements SimulatedReplica {
    private static final SPaxosRecordCodec CODEC = new SPaxosRecordCodec();

    private final NodeContext<Object> ctx;
    private final SPaxosConfig config;
    private final PaxosSimulation.Monitors monitors;
    private final SPaxosSimulation.Shared shared;
    private final int snapshotEvery;
    private final EffectBuffer<SPaxosWire, SPaxosRecord, SPaxosValue> effects = new EffectBuffer<>();
    private final EffectApplier<SPaxosWire, SPaxosRecord, SPaxosValue> applier;
    private final ClientBatches clients;
    private final SimService service;
    private final ExecutionMirror mirror;
    /** Event counts this incarnation's core reported last (they are cumulative per core). */
    private final Map<String, Long> reported = new HashMap<>();
    private SPaxosCore core;
    /** Every instance below it is executed here (or covered by an installed snapshot). */
    private long position;
    private final SimReads reads;
    private final PendingCompaction compaction = new PendingCompaction();

    SPaxosSimReplica(NodeContext<Object> ctx, SPaxosConfig config, PaxosSimulation.Monitors monitors,
                     SPaxosSimulation.Shared shared, int snapshotEvery) {
        this.ctx = ctx;
        this.config = config;
        this.monitors = monitors;
        this.shared = shared;
        this.snapshotEvery = snapshotEvery;
        this.mirror = new ExecutionMirror(Membership.initial(config.members()), config.paxos().window());
        this.service = new SimService(ctx, monitors.switches().dedup(), monitors.switches().localReads(),
                monitors.counters());
        this.applier = new EffectApplier<>(ctx.log(), CODEC, (to, m) -> ctx.send(to, onWire(m)), this::deliver,
                this::installFrom);
        this.reads = new SimReads(ctx, service);
        applier.reads(reads.listener());
        BatchBuilder batcher = new BatchBuilder(config.batchBytes(), config.batchTimeoutNanos());
        this.clients = new ClientBatches(ctx, service, monitors.progress(), batcher,
                () -> core.canPropose(), b -> core.onProposal(new SPaxosValue.ClientBatch(b), ctx.now(), effects), this::apply);
    }

    @Override
    public void onStart() {
        List<SPaxosRecord> recovered = new ArrayList<>();
        ctx.log().read(ctx.log().firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(CODEC.decode(r)));
        boolean amnesiac = monitors.switches().recoverAmnesia() && ctx.log().amnesiaPossible();
        core = new SPaxosCore(config, ctx.id(), recovered, amnesiac, ctx.now(), ctx.now(), new Observer());
        shared.execution.startsAt(ctx.id(), 0);
        SnapshotShelf.Snap own = monitors.shelf().get(ctx.id());
        if (own != null) {
            restore(own);
        }
    }

    /** What the core reports besides effects. */
    private final class Observer implements SPaxosCore.Observer {
        @Override
        public void orderingDecided(long instance, Value ids) {
            monitors.safety().decided(ctx.id(), instance, ids);
        }

        @Override
        public void stable(BatchId id) {
            shared.stable.add(id);
        }
    }

    private void restore(SnapshotShelf.Snap s) {
        byte[] state = shared.emptyDeliveryStateOnInstall ? new byte[0] : s.deliveryState();
        service.restore(s);
        position = s.instance();
        reads.delivered(position);
        mirror.restore(s.instance(), state.length == 0 ? new ExecutedIds().toBytes() : state);
        core.skipTo(s.instance(), ByteBuffer.wrap(state));
        shared.execution.startsAt(ctx.id(), s.instance());
    }

    /** A peer trimmed what we lack: take its snapshot (the simulated transfer always succeeds). */
    private void installFrom(int peer, long instance) {
        SnapshotShelf.Snap s = monitors.shelf().get(peer);
        if (s != null && s.instance() > position) {
            restore(s);
            monitors.shelf().put(ctx.id(), s);
            monitors.shelf().installed();
        }
    }

    /** Checks and applies effects, then runs a compaction a delivery asked for (never inside an apply). */
    private void apply() {
        checkAndApply();
        compaction.runIfAsked(ctx.log(), instance -> core.compact(instance, effects), () -> checkAndApply());
        shared.held(core.dissemination().heldBodies(), core.dissemination().heldBytes());
    }

    private void checkAndApply() {
        for (SPaxosRecord r : effects.records()) {
            if (r instanceof SPaxosRecord.Dissemination d && d.record() instanceof DisseminationRecord.BodyRecord b) {
                shared.bodies.persisted(ctx.id(), b.id(), b.body());
            }
        }
        for (EffectBuffer.Outgoing<SPaxosWire> o : effects.sends()) {
            if (o.message() instanceof SPaxosWire.Ordering w && w.message() instanceof PaxosMessage.Propose p
                    && !p.value().isNoop()) {
                proposed(p.value());
            }
        }
        applier.apply(effects);
    }

    /** A leader proposes id list {@code v}: each id must have become stable somewhere first (Alg. 1 l.16–18, l.32–36). */
    private void proposed(Value v) {
        monitors.safety().proposed(v);
        if (v.isMembership()) {
            return;
        }
        for (BatchId id : IdList.decode(v)) {
            if (!shared.stable.contains(id)) {
                throw new AssertionError("validity: replica " + ctx.id() + " proposed " + id
                        + ", which no replica saw stable");
            }
        }
    }

    /**
     * What the simulated network carries for {@code m}: what its channel's codec would encode (a
     * {@link DisseminationMessage}, or the bare {@link PaxosMessage} of an {@link SPaxosWire.Ordering},
     * as {@code SPaxos}' ordering route unwraps it), so the network's faults and byte counts see the
     * channels' own messages.
     */
    private static Object onWire(SPaxosWire m) {
        return m instanceof SPaxosWire.Ordering o ? o.message() : m;
    }

    @Override
    public void onMessage(int from, Object message) {
        SPaxosWire wire = message instanceof PaxosMessage p ? new SPaxosWire.Ordering(p)
                : message instanceof DisseminationMessage d ? d : null;
        if (wire != null) {
            if (message instanceof DisseminationMessage.Forward f) {
                shared.forwardArrived(from, ctx.id(), f.id());
            }
            core.onMessage(from, wire, ctx.now(), effects);
            apply();
            clients.proposePending();
        } else if (message instanceof ClientMessage.Request r) {
            clients.onRequest(from, r.command());
        } else if (message instanceof ClientMessage.Query q) {
            core.onReadIndex(reads.ask(from, q), ctx.now(), effects);
            apply();
        }
    }

    @Override
    public void onTick() {
        core.onTick(ctx.now(), effects);
        apply();
        if (!core.recovering() && ctx.log().amnesiaPossible()) {
            ctx.log().amnesiaResolved();
        }
        clients.onTick();
        core.reportEvents((event, count) -> {
            long delta = count - reported.getOrDefault(event, 0L);
            if (delta > 0) {
                shared.events.merge(event, delta, Long::sum);
                reported.put(event, count);
            }
        });
    }

    /** The runtime's path: encode the executable as delivered bytes, decode, mirror, then the service. */
    private void deliver(long instance, SPaxosValue value) {
        if (value instanceof MembershipDecided m) {
            if (instance < position || !mirror.applyMembership(instance, m.change())) {
                throw new AssertionError("replica " + ctx.id() + ": configuration command of instance " + instance
                        + " below its position " + position);
            }
            advance(instance);
            return;
        }
        Executable e = (Executable) value;
        if (e.instance() != instance) {
            throw new AssertionError("replica " + ctx.id() + ": executable of instance " + e.instance()
                    + " decided as instance " + instance);
        }
        ExecutedBatches.Delivered d = ExecutedBatches.decode(ExecutedBatches.encode(e));
        if (instance < position) {
            throw new AssertionError("replica " + ctx.id() + " executed instance " + instance + " below its position "
                    + position);
        }
        if (!mirror.apply(instance, d.ids())) {
            throw new AssertionError("replica " + ctx.id() + ": the mirror refused instance " + instance);
        }
        for (int i = 0; i < e.ids().size(); i++) {
            shared.bodies.executed(ctx.id(), e.ids().get(i), e.bodies().get(i));
        }
        shared.execution.executed(ctx.id(), instance, d.ids());
        monitors.progress().decided(d.commands(), ctx.now());
        for (Command c : CommandBatch.decode(d.commands())) {
            service.execute(c);
        }
        advance(instance);
    }

    /** Instance {@code instance} executed: the position moves past it, and a snapshot is taken when due. */
    private void advance(long instance) {
        long before = position;
        position = instance + 1;
        reads.delivered(position);
        if (snapshotEvery > 0 && position / snapshotEvery > before / snapshotEvery) {
            monitors.shelf().put(ctx.id(), service.snapshot(position, mirror.state()));
            compaction.request(position);
        }
    }

    /** Asks the core to propose a membership change ({@link SPaxosCore#proposeMembership}); null if proposed. */
    @Override
    public String requestMembership(MembershipChange change) {
        String refusal = core.proposeMembership(change, ctx.now(), effects);
        apply();
        return refusal;
    }

    /** Asks the core to hand the ordering leadership to {@code target} ({@link SPaxosCore#transferLeadership}). */
    @Override
    public String requestTransfer(int target) {
        String refusal = core.transferLeadership(target, ctx.now(), effects);
        apply();
        return refusal;
    }

    SPaxosCore core() {
        return core;
    }

    @Override
    public MultiPaxosCore ordering() {
        return core.ordering();
    }

    /** Ordering's or dissemination's amnesia recovery is still under way ({@link SPaxosCore#recovering()}). */
    @Override
    public boolean recovering() {
        return core.recovering();
    }

    @Override
    public long applied() {
        return core.nextToExecute();
    }

    @Override
    public boolean settled() {
        return core.executionWaiting() == 0;
    }

    @Override
    public Map<String, String> state() {
        return service.state();
    }
}
