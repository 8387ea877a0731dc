package dev.parallax.paxos;

import dev.parallax.core.log.InMemoryDurableLog;
import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.protocol.EffectBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A hand-driven cluster of {@link MultiPaxosCore}s for unit and golden-trace tests: messages wait
 * in one FIFO until the script delivers them, time moves only when the script says, and every
 * applied effect (persist, send, decide, snapshot request, timer request {@code wake-at}) is written
 * to a readable trace. No randomness.
 */
final class ScriptedCluster {
    record Envelope(int from, int to, PaxosMessage message) {
    }

    private final PaxosConfig config;
    private final InMemoryDurableLog.Storage[] storage;
    private final MultiPaxosCore[] cores;
    private final InMemoryDurableLog[] logs;
    private final ArrayDeque<Envelope> network = new ArrayDeque<>();
    private final Set<Integer> isolated = new HashSet<>();
    private final List<String> trace = new ArrayList<>();
    private final List<List<Value>> delivered = new ArrayList<>();
    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> effects = new EffectBuffer<>();
    private final PaxosRecordCodec codec = new PaxosRecordCodec();
    private long now;

    ScriptedCluster(PaxosConfig config) {
        this.config = config;
        int n = config.members();
        storage = new InMemoryDurableLog.Storage[n];
        cores = new MultiPaxosCore[n];
        logs = new InMemoryDurableLog[n];
        for (int i = 0; i < n; i++) {
            storage[i] = new InMemoryDurableLog.Storage();
            delivered.add(new ArrayList<>());
            start(i);
        }
    }

    private void start(int id) {
        logs[id] = InMemoryDurableLog.open(storage[id]);
        List<PaxosRecord> recovered = new ArrayList<>();
        logs[id].read(logs[id].firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(codec.decode(r)));
        cores[id] = new MultiPaxosCore(config, id, recovered, now);
        delivered.set(id, new ArrayList<>());
    }

    MultiPaxosCore core(int id) {
        return cores[id];
    }

    List<Value> delivered(int id) {
        return delivered.get(id);
    }

    List<String> trace() {
        return trace;
    }

    long now() {
        return now;
    }

    int pending() {
        return network.size();
    }

    /** Moves time forward and ticks every replica. */
    void tick(long advance) {
        now += advance;
        for (int i = 0; i < cores.length; i++) {
            cores[i].onTick(now, effects);
            apply(i);
        }
    }

    boolean propose(int id, Value v) {
        boolean taken = cores[id].onProposal(v, now, effects);
        trace.add(now + " " + id + " propose " + v + " -> " + taken);
        apply(id);
        return taken;
    }

    /** Delivers queued messages (including those sent meanwhile) until none are left, at most {@code limit}. */
    int deliverAll(int limit) {
        int n = 0;
        while (!network.isEmpty() && n < limit) {
            deliverNext();
            n++;
        }
        return n;
    }

    void deliverNext() {
        Envelope e = network.poll();
        if (isolated.contains(e.from()) || isolated.contains(e.to())) {
            trace.add(now + " drop " + e.from() + "->" + e.to() + " " + e.message());
            return;
        }
        cores[e.to()].onMessage(e.from(), e.message(), now, effects);
        apply(e.to());
    }

    /** Drops every queued message instead of delivering it. */
    void dropAll() {
        network.clear();
    }

    void isolate(int id) {
        isolated.add(id);
        trace.add(now + " isolate " + id);
    }

    void heal() {
        isolated.clear();
        trace.add(now + " heal");
    }

    /** What the Protocol stage does on a snapshot: checkpoint, then drop every earlier log record. */
    void compact(int id, long instance) {
        long cut = logs[id].nextIndex();
        cores[id].compact(instance, effects);
        apply(id);
        logs[id].truncateBefore(cut);
        logs[id].sync();
        trace.add(now + " " + id + " compacted below " + instance + ", log now starts at " + logs[id].firstIndex());
    }

    /** Number of records in a replica's durable log. */
    long logSize(int id) {
        return logs[id].nextIndex() - logs[id].firstIndex();
    }

    /** Crashes a replica (losing unsynced records) and restarts it from its log. */
    void crashAndRestart(int id) {
        storage[id].crash(0);
        trace.add(now + " crash+restart " + id);
        start(id);
    }

    private void apply(int id) {
        for (PaxosRecord r : effects.records()) {
            trace.add(now + " " + id + " persist " + r + (effects.syncRequested() ? " (sync)" : ""));
        }
        for (EffectBuffer.Outgoing<PaxosMessage> o : effects.sends()) {
            trace.add(now + " " + id + " send ->" + o.to() + " " + o.message());
        }
        for (EffectBuffer.Decision<Value> d : effects.decisions()) {
            trace.add(now + " " + id + " decide " + d.instance() + " " + d.value());
        }
        for (EffectBuffer.SnapshotRequest s : effects.snapshotRequests()) {
            trace.add(now + " " + id + " snapshot-needed from " + s.peer() + " below " + s.instance());
        }
        if (effects.wakeAt() != Long.MAX_VALUE) {
            trace.add(now + " " + id + " wake-at " + effects.wakeAt());
        }
        new EffectApplier<PaxosMessage, PaxosRecord, Value>(logs[id], codec,
                (to, m) -> network.add(new Envelope(id, to, m)),
                (i, v) -> delivered.get(id).add(v),
                (peer, i) -> { }).apply(effects);
    }
}
