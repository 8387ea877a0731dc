package dev.parallax.paxos.sim;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.testkit.NodeContext;
import dev.parallax.core.testkit.SimNode;
import dev.parallax.paxos.MultiPaxosCore;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.PaxosRecord;
import dev.parallax.paxos.PaxosRecordCodec;
import dev.parallax.paxos.Value;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A whole replica in the simulator: the Multi-Paxos core driven by the shared
 * {@link EffectApplier}, a batcher, a KV state machine with a reply cache (at-most-once execution
 * by (client, sequence)), and the client-facing logic (redirect when not leader, answer the client
 * whose request this replica took). All of it is volatile except the core's durable log.
 */
final class SimReplica implements SimNode<Object> {
    private static final int MAX_PENDING_BATCHES = 4;
    private static final PaxosRecordCodec CODEC = new PaxosRecordCodec();

    private final NodeContext<Object> ctx;
    private final PaxosConfig config;
    private final SafetyMonitor safety;
    private final SnapshotShelf shelf;
    private final int snapshotEvery;
    private long pendingCompaction = -1;
    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> effects = new EffectBuffer<>();
    private final EffectApplier<PaxosMessage, PaxosRecord, Value> applier;
    private final BatchBuilder batcher;
    private final ArrayDeque<Value> pendingBatches = new ArrayDeque<>();
    private KvCommands kv = new KvCommands();
    private Map<Long, long[]> lastSeq = new HashMap<>();
    private Map<Long, String> lastReply = new HashMap<>();
    private final Map<CommandId, Integer> owners = new HashMap<>();
    private Set<CommandId> executed = new HashSet<>();
    private MultiPaxosCore core;
    private long applied;

    SimReplica(NodeContext<Object> ctx, PaxosConfig config, SafetyMonitor safety, SnapshotShelf shelf, int snapshotEvery) {
        this.ctx = ctx;
        this.config = config;
        this.safety = safety;
        this.shelf = shelf;
        this.snapshotEvery = snapshotEvery;
        this.applier = new EffectApplier<>(ctx.log(), CODEC, ctx::send, this::deliver, this::installFrom);
        this.batcher = new BatchBuilder(config.batchBytes(), config.batchTimeoutNanos());
    }

    @Override
    public void onStart() {
        List<PaxosRecord> recovered = new ArrayList<>();
        ctx.log().read(ctx.log().firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(CODEC.decode(r)));
        core = new MultiPaxosCore(config, ctx.id(), recovered, ctx.now());
        SnapshotShelf.Snap own = shelf.get(ctx.id());
        if (own != null) {
            restore(own);
        }
    }

    private void restore(SnapshotShelf.Snap s) {
        kv = new KvCommands(s.kv());
        lastSeq = s.lastSeq();
        lastReply = s.lastReply();
        executed = s.executed();
        applied = s.instance();
        core.skipTo(s.instance());
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

    /** Applies effects, then runs a compaction a delivery asked for (never inside an apply). */
    private void apply() {
        applier.apply(effects);
        if (pendingCompaction >= 0) {
            long instance = pendingCompaction;
            pendingCompaction = -1;
            long cut = ctx.log().nextIndex();
            core.compact(instance, effects);
            applier.apply(effects);
            ctx.log().truncateBefore(cut);
            ctx.log().sync();
        }
    }

    @Override
    public void onMessage(int from, Object message) {
        if (message instanceof PaxosMessage m) {
            core.onMessage(from, m, ctx.now(), effects);
            apply();
            proposePending();
        } else if (message instanceof ClientMessage.Request r) {
            onRequest(from, r.command());
        }
    }

    @Override
    public void onTick() {
        core.onTick(ctx.now(), effects);
        apply();
        ByteBuffer batch = batcher.poll(ctx.now(), core.canPropose() && pendingBatches.isEmpty());
        if (batch != null) {
            pendingBatches.add(Value.of(batch));
        }
        proposePending();
    }

    private void onRequest(int client, Command c) {
        long[] seq = lastSeq.get(c.id().clientId());
        if (seq != null && c.id().sequence() <= seq[0]) {
            if (c.id().sequence() == seq[0]) {
                ctx.send(client, new ClientMessage.Reply(c.id(), lastReply.get(c.id().clientId())));
            }
            return;
        }
        if (!core.isLeader()) {
            ctx.send(client, new ClientMessage.NotLeader(core.leaderHint()));
            return;
        }
        if (pendingBatches.size() >= MAX_PENDING_BATCHES) {
            return; // back-pressure: the client times out and retries
        }
        owners.put(c.id(), client);
        ByteBuffer batch = batcher.add(c, ctx.now());
        if (batch == null) {
            batch = batcher.poll(ctx.now(), core.canPropose() && pendingBatches.isEmpty());
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
            if (!core.onProposal(v, ctx.now(), effects)) {
                return;
            }
            safety.proposed(v);
            pendingBatches.poll();
            apply();
        }
    }

    private void deliver(long instance, Value value) {
        safety.decided(ctx.id(), instance, value);
        if (instance != applied) {
            throw new AssertionError("replica " + ctx.id() + " got instance " + instance + " but expected " + applied);
        }
        applied++;
        if (!value.isNoop()) {
            for (Command c : CommandBatch.decode(value.bytes())) {
                execute(c);
            }
        }
        if (snapshotEvery > 0 && applied % snapshotEvery == 0) {
            shelf.put(ctx.id(), new SnapshotShelf.Snap(applied, kv.data(), lastSeq, lastReply, executed));
            pendingCompaction = applied;
        }
    }

    private void execute(Command c) {
        long[] seq = lastSeq.computeIfAbsent(c.id().clientId(), k -> new long[]{-1});
        if (c.id().sequence() <= seq[0]) {
            return; // duplicate of an executed command: at most once
        }
        if (!executed.add(c.id())) {
            throw new AssertionError("replica " + ctx.id() + " executed " + c.id() + " twice");
        }
        String out = kv.execute(c.payload());
        seq[0] = c.id().sequence();
        lastReply.put(c.id().clientId(), out);
        Integer owner = owners.remove(c.id());
        if (owner != null) {
            ctx.send(owner, new ClientMessage.Reply(c.id(), out));
        }
    }

    MultiPaxosCore core() {
        return core;
    }

    long applied() {
        return applied;
    }

    Map<String, String> state() {
        return kv.data();
    }
}
