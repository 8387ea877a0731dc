package dev.parallax.paxos.sim;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.replica.ClientSessions;
import dev.parallax.core.testkit.NodeContext;
import dev.parallax.core.testkit.SimNode;
import dev.parallax.paxos.MultiPaxosCore;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.PaxosRecord;
import dev.parallax.paxos.PaxosRecordCodec;
import dev.parallax.paxos.Value;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole replica in the simulator: the Multi-Paxos core driven by the shared
 * {@link EffectApplier}, a batcher, the production session layer ({@link ClientSessions}: exactly
 * once and in order per client, with a reply cache), a KV state machine that independently counts
 * how often each command is applied ({@link KvCommands#apply}), and the client-facing logic
 * (redirect when not leader, answer the client whose request this replica took, ask it to resend
 * from a gap in its session as the production replica's {@code RETRY_FROM} does). All of it is
 * volatile except the core's durable log and the snapshot shelf.
 */
final class SimReplica implements SimNode<Object> {
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
     */
    record Switches(boolean dedup, boolean recoverAmnesia, boolean localReads) {
        /** A correct replica. */
        static final Switches CORRECT = new Switches(true, true, false);
    }

    private static final int MAX_PENDING_BATCHES = 4;
    /** Replies kept per client: at least the most commands a simulated client has outstanding. */
    static final int REPLY_WINDOW = 4;
    /** Sessions kept: far more than the simulations' clients, so none is ever evicted. */
    private static final int MAX_SESSIONS = 1024;
    private static final PaxosRecordCodec CODEC = new PaxosRecordCodec();

    private final NodeContext<Object> ctx;
    private final PaxosConfig config;
    private final SafetyMonitor safety;
    private final ProgressMonitor progress;
    private final Switches switches;
    private final ReplicaCounters counters;
    private final SnapshotShelf shelf;
    private final int snapshotEvery;
    private long pendingCompaction = -1;
    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> effects = new EffectBuffer<>();
    private final EffectApplier<PaxosMessage, PaxosRecord, Value> applier;
    private final BatchBuilder batcher;
    private final ArrayDeque<Value> pendingBatches = new ArrayDeque<>();
    private KvCommands kv = new KvCommands();
    private final ClientSessions sessions = new ClientSessions(REPLY_WINDOW, MAX_SESSIONS);
    private final Map<CommandId, Integer> owners = new HashMap<>();
    private final Map<CommandId, String> readAtArrival = new HashMap<>();
    private MultiPaxosCore core;
    private long applied;

    /** @param switches {@link Switches#CORRECT} except to show that a check bites */
    SimReplica(NodeContext<Object> ctx, PaxosConfig config, SafetyMonitor safety, ProgressMonitor progress,
               SnapshotShelf shelf, int snapshotEvery, Switches switches, ReplicaCounters counters) {
        this.ctx = ctx;
        this.switches = switches;
        this.counters = counters;
        this.config = config;
        this.safety = safety;
        this.progress = progress;
        this.shelf = shelf;
        this.snapshotEvery = snapshotEvery;
        this.applier = new EffectApplier<>(ctx.log(), CODEC, ctx::send, this::deliver, this::installFrom);
        this.batcher = new BatchBuilder(config.batchBytes(), config.batchTimeoutNanos());
    }

    @Override
    public void onStart() {
        List<PaxosRecord> recovered = new ArrayList<>();
        ctx.log().read(ctx.log().firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(CODEC.decode(r)));
        core = new MultiPaxosCore(config, ctx.id(), recovered, switches.recoverAmnesia() && ctx.log().amnesiaPossible(), ctx.now());
        SnapshotShelf.Snap own = shelf.get(ctx.id());
        if (own != null) {
            restore(own);
        }
    }

    private void restore(SnapshotShelf.Snap s) {
        kv = new KvCommands(s.kv(), s.applications());
        try {
            sessions.readFrom(new DataInputStream(new ByteArrayInputStream(s.sessions())));
        } catch (IOException e) {
            throw new UncheckedIOException("replica " + ctx.id() + " could not read the sessions of a snapshot", e);
        }
        applied = s.instance();
        core.skipTo(s.instance());
    }

    private SnapshotShelf.Snap snapshot() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            sessions.writeTo(new DataOutputStream(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SnapshotShelf.Snap(applied, kv.data(), kv.applications(), bytes.toByteArray());
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
        if (!core.recovering() && ctx.log().amnesiaPossible()) {
            ctx.log().amnesiaResolved();
        }
        ByteBuffer batch = batcher.poll(ctx.now(), core.canPropose() && pendingBatches.isEmpty());
        if (batch != null) {
            pendingBatches.add(Value.of(batch));
        }
        proposePending();
    }

    private void onRequest(int client, Command c) {
        if (c.id().sequence() < sessions.next(c.id().clientId())) {
            CommandResult cached = sessions.cached(c.id());
            if (cached != null) {
                ctx.send(client, new ClientMessage.Reply(c.id(), text(cached)));
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
        if (switches.localReads()) {
            String local = kv.readLocally(c.payload());
            if (local != null) {
                readAtArrival.putIfAbsent(c.id(), local);
            }
        }
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
            progress.proposed(ctx.id(), v, ctx.now());
            pendingBatches.poll();
            apply();
        }
    }

    private void deliver(long instance, Value value) {
        safety.decided(ctx.id(), instance, value);
        progress.decided(value, ctx.now());
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
            shelf.put(ctx.id(), snapshot());
            pendingCompaction = applied;
        }
    }

    private void execute(Command c) {
        ClientSessions.Verdict verdict = sessions.admit(c.id());
        if (verdict == ClientSessions.Verdict.DUPLICATE && !switches.dedup()) {
            verdict = ClientSessions.Verdict.EXECUTE;
        }
        switch (verdict) {
            case EXECUTE -> {
                String out = kv.apply(c.id(), c.payload());
                sessions.store(c.id(), CommandResult.ok(ByteBuffer.wrap(out.getBytes(StandardCharsets.UTF_8))));
                reply(c.id(), out);
            }
            case DUPLICATE -> {
                CommandResult cached = sessions.cached(c.id());
                if (cached != null) {
                    reply(c.id(), text(cached));
                }
            }
            // A client that gave up on command k sends k+1 while k is still in flight: k+1 may be
            // decided first (or k lost with a deposed leader). Not executed; the client resends
            // from the session's next sequence, in order.
            case GAP -> {
                counters.gap();
                Integer owner = owners.remove(c.id());
                if (owner != null) {
                    ctx.send(owner, new ClientMessage.RetryFrom(c.id(), sessions.next(c.id().clientId())));
                }
            }
            // The replicas keep far more sessions than there are clients: none is ever evicted.
            case EXPIRED -> throw new AssertionError("replica " + ctx.id() + ": session verdict " + verdict
                    + " for " + c.id() + " (next expected " + sessions.next(c.id().clientId()) + ")");
        }
    }

    private void reply(CommandId id, String out) {
        Integer owner = owners.remove(id);
        String early = readAtArrival.remove(id); // only with the local-reads mutation
        if (owner != null) {
            ctx.send(owner, new ClientMessage.Reply(id, early != null ? early : out));
        }
    }

    private static String text(CommandResult r) {
        ByteBuffer b = r.reply();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
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
