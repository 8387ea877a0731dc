package dev.parallax.core.testkit;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.protocol.RecordCodec;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A hand-driven cluster of any {@link ProtocolCore} for unit and golden-trace tests: messages wait
 * in one FIFO until the script delivers them, time moves only when the script says, and every
 * input the script gives (proposals, suspicions, isolation, crashes, compaction) and every effect
 * the cores emit (persist with its sync flag, send, send datagrams {@code mcast}, decide, snapshot
 * request, timer request {@code wake-at}) is written to a readable trace, one line each, prefixed by the virtual time.
 * No randomness: the same script gives the same trace, which {@link GoldenFiles} compares with a
 * checked-in file. Effects are applied by the runtime's {@link EffectApplier} (persist and sync
 * before sending), each member over its own {@link InMemoryDurableLog} that survives
 * {@link #crashAndRestart}.
 *
 * <p>Datagrams: every member is in every datagram group; a datagram queues one {@link Envelope}
 * (marked {@code datagram}) per other member, in id order, delivered, lost or dropped like any
 * message (so a script reorders or loses copies by its own choice). Delivery progress
 * ({@link ProtocolCore#onDelivered}) reaches the cores only when the script says
 * ({@link #delivered(int, long)}), or after every step that decided something once
 * {@link #autoDelivered(boolean)} is on (off by default, so existing traces do not change).
 *
 * <p>Values, messages and records appear in the trace by their {@code toString}, which must be
 * deterministic. A protocol's tests may bind the type parameters once by subclassing with a
 * constructor only (as smr-paxos' {@code ScriptedCluster} does for Multi-Paxos).
 *
 * <p>Not thread-safe: one test thread drives it.
 *
 * @param <C> the core type (so tests can inspect protocol-specific state through {@link #core})
 * @param <M> message type
 * @param <R> durable record type
 * @param <V> proposed and decided value type
 */
public class ScriptedCluster<C extends ProtocolCore<M, R, V>, M, R, V> {

    /**
     * A message waiting in the network; {@code datagram} when it is one copy of a datagram (see
     * the {@code mcast} trace line).
     */
    public record Envelope<M>(int from, int to, M message, boolean datagram) {
        /** A point-to-point message. */
        public Envelope(int from, int to, M message) {
            this(from, to, message, false);
        }
    }

    /** Builds member {@code id}'s core from the records that survived in its log, at time {@code now}. */
    @FunctionalInterface
    public interface CoreFactory<C, R> {
        C create(int id, List<R> recovered, long now);
    }

    private final CoreFactory<? extends C, R> factory;
    private final RecordCodec<R> codec;
    private final List<InMemoryDurableLog.Storage> storage = new ArrayList<>();
    private final List<InMemoryDurableLog> logs = new ArrayList<>();
    private final List<C> cores = new ArrayList<>();
    private final List<List<V>> delivered = new ArrayList<>();
    private final ArrayDeque<Envelope<M>> network = new ArrayDeque<>();
    private final Set<Integer> isolated = new HashSet<>();
    /** One-way cut links, {@code from << 32 | to}. */
    private final Set<Long> cutLinks = new HashSet<>();
    private final List<String> trace = new ArrayList<>();
    private final EffectBuffer<M, R, V> effects = new EffectBuffer<>();
    /** Per member: the delivery progress last handed to its core by {@link #autoDelivered}. */
    private final List<Long> deliveredBelow = new ArrayList<>();
    private boolean autoDelivered;
    private long now;

    /**
     * Starts {@code members} cores (ids 0..members-1) at time 0, each over an empty log.
     *
     * @throws IllegalArgumentException if {@code members < 1}
     */
    public ScriptedCluster(int members, RecordCodec<R> codec, CoreFactory<? extends C, R> factory) {
        if (members < 1) {
            throw new IllegalArgumentException("members must be >= 1: " + members);
        }
        this.codec = Objects.requireNonNull(codec, "codec");
        this.factory = Objects.requireNonNull(factory, "factory");
        for (int i = 0; i < members; i++) {
            storage.add(new InMemoryDurableLog.Storage());
            logs.add(null);
            cores.add(null);
            delivered.add(new ArrayList<>());
            deliveredBelow.add(0L);
            start(i);
        }
    }

    /** Member {@code id}'s running core (a new object after {@link #crashAndRestart}). */
    public C core(int id) {
        return cores.get(id);
    }

    public int members() {
        return cores.size();
    }

    /** Values member {@code id} decided since its last (re)start, in order. */
    public List<V> delivered(int id) {
        return delivered.get(id);
    }

    /** The trace so far; the list is live and may be cleared by a test that looks at one phase. */
    public List<String> trace() {
        return trace;
    }

    /** Virtual time in nanoseconds. */
    public long now() {
        return now;
    }

    /** Messages waiting in the network. */
    public int pending() {
        return network.size();
    }

    /** The waiting messages, oldest first (a copy). */
    public List<Envelope<M>> queued() {
        return List.copyOf(network);
    }

    /** Member {@code id}'s durable log (the current incarnation's). */
    public InMemoryDurableLog log(int id) {
        return logs.get(id);
    }

    /** Number of records in member {@code id}'s durable log. */
    public long logSize(int id) {
        InMemoryDurableLog log = logs.get(id);
        return log.nextIndex() - log.firstIndex();
    }

    /** Writes a line of the script's own into the trace (at the current time). */
    public void note(String text) {
        trace.add(now + " " + text);
    }

    /** Moves time forward by {@code advance} nanoseconds and ticks every member, in id order. */
    public void tick(long advance) {
        now += advance;
        for (int i = 0; i < cores.size(); i++) {
            cores.get(i).onTick(now, effects);
            apply(i);
        }
    }

    /** Offers {@code value} to member {@code id}; see {@link ProtocolCore#onProposal}. */
    public boolean propose(int id, V value) {
        boolean taken = cores.get(id).onProposal(value, now, effects);
        trace.add(now + " " + id + " propose " + value + " -> " + taken);
        apply(id);
        return taken;
    }

    /** An operation of a protocol's own on one core (an operator's request), with the step's effects. */
    @FunctionalInterface
    public interface CoreAction<C, M, R, V> {
        void run(C core, long now, Effects<M, R, V> out);
    }

    /**
     * Runs {@code action} on member {@code id} now (trace line {@code <label>}) and applies its
     * effects like any step's.
     */
    public void act(int id, String label, CoreAction<? super C, M, R, V> action) {
        trace.add(now + " " + id + " " + label);
        action.run(cores.get(id), now, effects);
        apply(id);
    }

    /** Tells member {@code id} its failure detector suspects the leader of {@code view}; see {@link ProtocolCore#onSuspect}. */
    public void suspect(int id, long view) {
        trace.add(now + " " + id + " suspect view " + view);
        cores.get(id).onSuspect(view, now, effects);
        apply(id);
    }

    /**
     * Tells member {@code id} its member detector suspects {@code member} in {@code epoch} (trace
     * line {@code suspect member}); see {@link ProtocolCore#onSuspectMember}.
     */
    public void suspectMember(int id, int member, long epoch) {
        trace.add(now + " " + id + " suspect member " + member + " epoch " + epoch);
        cores.get(id).onSuspectMember(member, epoch, now, effects);
        apply(id);
    }

    /**
     * Tells member {@code id} every decision below {@code nextInstance} was executed (trace line
     * {@code delivered below}); see {@link ProtocolCore#onDelivered}.
     */
    public void delivered(int id, long nextInstance) {
        trace.add(now + " " + id + " delivered below " + nextInstance);
        deliveredBelow.set(id, Math.max(deliveredBelow.get(id), nextInstance));
        cores.get(id).onDelivered(nextInstance, now, effects);
        apply(id);
    }

    /**
     * When on, every step of a member that decided something is followed by
     * {@link #delivered(int, long)} up to its highest decision so far (only when that grew).
     * Default off.
     */
    public void autoDelivered(boolean on) {
        this.autoDelivered = on;
    }

    /**
     * Delivers queued messages (including those sent meanwhile) until none are left, at most
     * {@code limit}.
     *
     * @return how many were taken from the queue (delivered or dropped by an isolation)
     */
    public int deliverAll(int limit) {
        int n = 0;
        while (!network.isEmpty() && n < limit) {
            deliverNext();
            n++;
        }
        return n;
    }

    /**
     * Delivers the oldest queued message, or drops it (with a {@code drop} trace line) if its sender
     * or receiver is isolated or the link between them is cut in its direction.
     *
     * @throws IllegalStateException if no message is queued
     */
    public void deliverNext() {
        Envelope<M> e = network.poll();
        if (e == null) {
            throw new IllegalStateException("no message is queued");
        }
        if (isolated.contains(e.from()) || isolated.contains(e.to())
                || cutLinks.contains(((long) e.from() << 32) | e.to())) {
            trace.add(now + " drop " + e.from() + "->" + e.to() + " " + e.message());
            return;
        }
        cores.get(e.to()).onMessage(e.from(), e.message(), now, effects);
        apply(e.to());
    }

    /**
     * Loses the oldest queued message (a {@code lost} trace line), as a network that loses one
     * message would: scripts use it to keep one replica from learning something.
     *
     * @throws IllegalStateException if no message is queued
     */
    public void dropNext() {
        Envelope<M> e = network.poll();
        if (e == null) {
            throw new IllegalStateException("no message is queued");
        }
        trace.add(now + " lost " + e.from() + "->" + e.to() + " " + e.message());
    }

    /** Drops every queued message instead of delivering it (no trace line). */
    public void dropAll() {
        network.clear();
    }

    /** Cuts member {@code id} off: messages from or to it are dropped when their turn comes. */
    public void isolate(int id) {
        isolated.add(id);
        trace.add(now + " isolate " + id);
    }

    /**
     * Cuts the link from {@code from} to {@code to}, one way: what {@code from} sends {@code to} is
     * dropped when its turn comes, while {@code to} still reaches {@code from} (partial partitions).
     */
    public void cutLink(int from, int to) {
        cutLinks.add(((long) from << 32) | to);
        trace.add(now + " cut " + from + "->" + to);
    }

    /** Ends every isolation and every cut link. */
    public void heal() {
        isolated.clear();
        cutLinks.clear();
        trace.add(now + " heal");
    }

    /**
     * What the Protocol stage does on a snapshot: {@link ProtocolCore#compact}, then drop every log
     * record written before it.
     */
    public void compact(int id, long instance) {
        InMemoryDurableLog log = logs.get(id);
        long cut = log.nextIndex();
        cores.get(id).compact(instance, effects);
        apply(id);
        log.truncateBefore(cut);
        log.sync();
        trace.add(now + " " + id + " compacted below " + instance + ", log now starts at " + log.firstIndex());
    }

    /** Crashes member {@code id} (losing its unsynced records and its volatile state) and restarts it from its log. */
    public void crashAndRestart(int id) {
        storage.get(id).crash(0);
        trace.add(now + " crash+restart " + id);
        start(id);
    }

    private void start(int id) {
        InMemoryDurableLog log = InMemoryDurableLog.open(storage.get(id));
        logs.set(id, log);
        List<R> recovered = new ArrayList<>();
        log.read(log.firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(codec.decode(r)));
        cores.set(id, factory.create(id, recovered, now));
        delivered.set(id, new ArrayList<>());
        deliveredBelow.set(id, 0L);
    }

    private void apply(int id) {
        for (R r : effects.records()) {
            trace.add(now + " " + id + " persist " + r + (effects.syncRequested() ? " (sync)" : ""));
        }
        for (EffectBuffer.Outgoing<M> o : effects.sends()) {
            trace.add(now + " " + id + " send ->" + o.to() + " " + o.message());
        }
        for (EffectBuffer.GroupSend<M> g : effects.datagrams()) {
            trace.add(now + " " + id + " mcast " + g.group() + " " + g.message());
        }
        long decidedBelow = 0;
        for (EffectBuffer.Decision<V> d : effects.decisions()) {
            trace.add(now + " " + id + " decide " + d.instance() + " " + d.value());
            decidedBelow = Math.max(decidedBelow, d.instance() + 1);
        }
        for (EffectBuffer.Tentative<V> t : effects.tentatives()) {
            trace.add(now + " " + id + (t.revoked() ? " revoke-tentatives from " + t.instance()
                    : " tentative " + t.instance() + " " + t.value()));
        }
        for (EffectBuffer.SnapshotRequest s : effects.snapshotRequests()) {
            trace.add(now + " " + id + " snapshot-needed from " + s.peer() + " below " + s.instance());
        }
        for (EffectBuffer.ReadAnswer a : effects.reads()) {
            trace.add(now + " " + id + (a.ready() ? " read-ready " + a.read() + " at " + a.position()
                    : " read-failed " + a.read() + " hint " + a.leaderHint()));
        }
        if (effects.wakeAt() != Long.MAX_VALUE) {
            trace.add(now + " " + id + " wake-at " + effects.wakeAt());
        }
        EffectApplier<M, R, V> applier = new EffectApplier<M, R, V>(logs.get(id), codec,
                (to, m) -> network.add(new Envelope<>(id, to, m)),
                (group, m) -> {
                    for (int to = 0; to < cores.size(); to++) {
                        if (to != id) {
                            network.add(new Envelope<>(id, to, m, true));
                        }
                    }
                },
                (i, v) -> delivered.get(id).add(v),
                (peer, i) -> { });
        applier.reads(new dev.parallax.core.spi.ReadListener() {   // read answers are traced above
            @Override
            public void ready(long read, long position) {
            }

            @Override
            public void failed(long read, int leaderHint) {
            }
        });
        applier.apply(effects);
        if (autoDelivered && decidedBelow > deliveredBelow.get(id)) {
            delivered(id, decidedBelow);
        }
    }
}
