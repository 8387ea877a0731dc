package dev.parallax.paxos.sim;

import dev.parallax.core.Command;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.testkit.NodeContext;
import dev.parallax.core.testkit.smr.ClientMessage;
import dev.parallax.core.testkit.smr.PendingCompaction;
import dev.parallax.core.testkit.smr.ProgressMonitor;
import dev.parallax.core.testkit.smr.ReplicaCounters;
import dev.parallax.core.testkit.smr.SafetyMonitor;
import dev.parallax.core.testkit.smr.SimReads;
import dev.parallax.core.testkit.smr.SimService;
import dev.parallax.core.testkit.smr.SnapshotShelf;
import dev.parallax.paxos.MultiPaxosCore;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.PaxosRecord;
import dev.parallax.paxos.PaxosRecordCodec;
import dev.parallax.paxos.Value;
import dev.parallax.core.membership.MembershipChange;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A whole replica in the simulator: the Multi-Paxos core driven by the shared
 * {@link EffectApplier}, a batcher, a redirect to the leader for clients that reach a follower, and
 * the shared {@link SimService} (sessions, KV state machine with its at-most-once audit, replies,
 * {@code RETRY_FROM}, snapshots). All of it is volatile except the core's durable log and the
 * snapshot shelf.
 */
final class SimReplica implements SimulatedReplica {
    /**
     * Test-only switches that break the replica on purpose, to show that the simulation's checks
     * catch what they should.
     *
     * @param dedup          whether the session layer's duplicate verdicts are obeyed ({@code false}:
     *                       retried commands decided twice execute twice; the at-most-once audit must bite)
     * @param recoverAmnesia whether the core runs amnesia recovery ({@code false}: agreement must break)
     * @param localReads     whether the leader answers a get from its local state as it is when the
     *                       request arrives, not as it is at the get's slot in the order (the get
     *                       is still ordered, and the answer leaves when it executes, so sessions
     *                       and replies keep their usual course; only the value read is wrong): a
     *                       leader that lags the decided prefix after a view change, or a deposed
     *                       one that does not know it yet, reads stale data, and the
     *                       linearizability checker must catch it
     * @param unconfirmedQueries whether a leader answers a query from its state at once, without
     *                       the read-index confirmation round (a deposed leader that does not know
     *                       it yet reads stale data: the checker must catch it)
     */
    record Switches(boolean dedup, boolean recoverAmnesia, boolean localReads, boolean unconfirmedQueries) {
        /** A correct replica. */
        static final Switches CORRECT = new Switches(true, true, false, false);

        Switches(boolean dedup, boolean recoverAmnesia, boolean localReads) {
            this(dedup, recoverAmnesia, localReads, false);
        }
    }

    private static final int MAX_PENDING_BATCHES = 4;
    private static final PaxosRecordCodec CODEC = new PaxosRecordCodec();

    private final NodeContext<Object> ctx;
    private final PaxosConfig config;
    private final SafetyMonitor<Value> safety;
    private final ProgressMonitor progress;
    private final Switches switches;
    private final SnapshotShelf shelf;
    private final int snapshotEvery;
    private final PendingCompaction compaction = new PendingCompaction();
    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> effects = new EffectBuffer<>();
    private final EffectApplier<PaxosMessage, PaxosRecord, Value> applier;
    private final BatchBuilder batcher;
    private final ArrayDeque<Value> pendingBatches = new ArrayDeque<>();
    private final SimService service;
    private final SimReads reads;
    private MultiPaxosCore core;
    private long applied;
    private final ReplicaCounters counters;
    /** The core's lease reads reported to {@link #counters} so far (this incarnation). */
    private long leaseReadsReported;
    /** How fast this replica's clock runs against the simulation's, in parts per million (0: exactly). */
    private final long clockPpm;

    /** @param switches {@link Switches#CORRECT} except to show that a check bites */
    SimReplica(NodeContext<Object> ctx, PaxosConfig config, SafetyMonitor<Value> safety, ProgressMonitor progress,
               SnapshotShelf shelf, int snapshotEvery, Switches switches, ReplicaCounters counters) {
        this(ctx, config, safety, progress, shelf, snapshotEvery, switches, counters, 0);
    }

    /** As above, with a clock that runs {@code clockPpm} parts per million fast (negative: slow): the core sees only it. */
    SimReplica(NodeContext<Object> ctx, PaxosConfig config, SafetyMonitor<Value> safety, ProgressMonitor progress,
               SnapshotShelf shelf, int snapshotEvery, Switches switches, ReplicaCounters counters, long clockPpm) {
        this.ctx = ctx;
        this.clockPpm = clockPpm;
        this.counters = counters;
        this.switches = switches;
        this.service = new SimService(ctx, switches.dedup(), switches.localReads(), counters);
        this.config = config;
        this.safety = safety;
        this.progress = progress;
        this.shelf = shelf;
        this.snapshotEvery = snapshotEvery;
        this.applier = new EffectApplier<>(ctx.log(), CODEC, ctx::send, this::deliver, this::installFrom);
        this.reads = new SimReads(ctx, service);
        applier.reads(reads.listener());
        this.batcher = new BatchBuilder(config.batchBytes(), config.batchTimeoutNanos());
    }

    @Override
    public void onStart() {
        List<PaxosRecord> recovered = new ArrayList<>();
        ctx.log().read(ctx.log().firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(CODEC.decode(r)));
        core = new MultiPaxosCore(config, ctx.id(), recovered, switches.recoverAmnesia() && ctx.log().amnesiaPossible(), now());
        SnapshotShelf.Snap own = shelf.get(ctx.id());
        if (own != null) {
            restore(own);
        }
    }

    private void restore(SnapshotShelf.Snap s) {
        service.restore(s);
        applied = s.instance();
        if (s.deliveryState().length > 0) {
            core.installMembership(s.deliveryState());
        }
        core.skipTo(s.instance());
        reads.delivered(applied);
    }

    /** A peer trimmed what we lack: take its snapshot (the simulated transfer always succeeds). */
    private void installFrom(int peer, long instance) {
        SnapshotShelf.Snap s = shelf.get(peer);
        if (s != null && s.instance() > applied) {
            restore(s);
            shelf.put(ctx.id(), s);
            shelf.installed();
        }
    }

    /** This replica's clock: the simulation's, running {@link #clockPpm} fast (rates matter to leases; offsets do not). */
    private long now() {
        long t = ctx.now();
        return t + t / 1_000 * clockPpm / 1_000;
    }

    /** Applies effects, then runs a compaction a delivery asked for (never inside an apply). */
    private void apply() {
        applier.apply(effects);
        compaction.runIfAsked(ctx.log(), instance -> core.compact(instance, effects), () -> applier.apply(effects));
    }

    @Override
    public void onMessage(int from, Object message) {
        if (message instanceof PaxosMessage m) {
            core.onMessage(from, m, now(), effects);
            apply();
            proposePending();
        } else if (message instanceof ClientMessage.Request r) {
            onRequest(from, r.command());
        } else if (message instanceof ClientMessage.Query q) {
            if (switches.unconfirmedQueries() && core.isLeader()) {
                reads.answerNow(from, q);
            } else {
                core.onReadIndex(reads.ask(from, q), now(), effects);
                apply();
            }
        }
    }

    @Override
    public void onTick() {
        core.onTick(now(), effects);
        apply();
        core.reportEvents((event, count) -> {
            if (event.equals("reads.lease")) {
                counters.event(event, count - leaseReadsReported);
                leaseReadsReported = count;
            }
        });
        if (!core.recovering() && ctx.log().amnesiaPossible()) {
            ctx.log().amnesiaResolved();
        }
        ByteBuffer batch = batcher.poll(now(), core.canPropose() && pendingBatches.isEmpty());
        if (batch != null) {
            pendingBatches.add(Value.of(batch));
        }
        proposePending();
    }

    private void onRequest(int client, Command c) {
        if (service.answeredFromCache(client, c)) {
            return;
        }
        if (!core.isLeader()) {
            ctx.send(client, new ClientMessage.NotLeader(core.leaderHint()));
            return;
        }
        if (pendingBatches.size() >= MAX_PENDING_BATCHES) {
            return; // back-pressure: the client times out and retries
        }
        service.accept(client, c);
        ByteBuffer batch = batcher.add(c, now());
        if (batch == null) {
            batch = batcher.poll(now(), core.canPropose() && pendingBatches.isEmpty());
        }
        if (batch != null) {
            pendingBatches.add(Value.of(batch));
        }
        proposePending();
    }

    private void proposePending() {
        while (!pendingBatches.isEmpty()) {
            if (!core.isLeader()) {
                pendingBatches.clear(); // lost with leadership; clients retry
                return;
            }
            Value v = pendingBatches.peek();
            if (!core.onProposal(v, now(), effects)) {
                return;
            }
            safety.proposed(v);
            progress.proposed(ctx.id(), v.bytes(), ctx.now());
            pendingBatches.poll();
            apply();
        }
    }

    private void deliver(long instance, Value value) {
        safety.decided(ctx.id(), instance, value);
        if (!value.isMembership()) {
            progress.decided(value.bytes(), ctx.now());
        }
        if (instance != applied) {
            throw new AssertionError("replica " + ctx.id() + " got instance " + instance + " but expected " + applied);
        }
        applied++;
        if (!value.isNoop() && !value.isMembership()) {
            for (Command c : CommandBatch.decode(value.bytes())) {
                service.execute(c);
            }
        }
        reads.delivered(applied);
        if (snapshotEvery > 0 && applied % snapshotEvery == 0) {
            // The membership travels with the snapshot (production: the broadcast's delivery state).
            shelf.put(ctx.id(), service.snapshot(applied, core.membershipHistory().encode()));
            compaction.request(applied);
        }
    }

    MultiPaxosCore core() {
        return core;
    }

    /** Asks the core to propose a membership change (see {@link MultiPaxosCore#proposeMembership}); null if proposed. */
    @Override
    public String requestMembership(MembershipChange change) {
        String refusal = core.proposeMembership(change, now(), effects);
        if (refusal == null) {
            safety.proposed(Value.membership(change));
        }
        apply();
        return refusal;
    }

    /** Asks the core to hand leadership to {@code target} (see {@link MultiPaxosCore#transferLeadership}). */
    @Override
    public String requestTransfer(int target) {
        String refusal = core.transferLeadership(target, now(), effects);
        apply();
        return refusal;
    }

    @Override
    public MultiPaxosCore ordering() {
        return core;
    }

    @Override
    public long applied() {
        return applied;
    }

    @Override
    public Map<String, String> state() {
        return service.state();
    }
}
