package dev.parallax.core.protocol;

import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.DurableLog;

import java.util.List;
import java.util.Objects;

/**
 * Applies one step's effects by the {@link Effects} driver contract: append every record to the
 * log, sync once if any record asked for it, then hand out point-to-point messages, datagrams,
 * decisions, tentative positions, snapshot requests and read answers, in that order. Shared by the
 * runtime's Protocol stage and the simulator, so both obey the same rule.
 *
 * <p>A step that reports a {@link SafetyViolation} is applied differently: its violations go to the
 * {@link SafetyAlarm} first, and nothing else of that step (records, messages, decisions) nor of
 * any later step is applied — the applier stays {@link #stopped()}, so the replica neither acts on
 * nor hands out anything past the point where two decisions met. Steps without a violation are
 * applied exactly as before.
 *
 * <p>Not thread-safe: used by the one thread that drives a core. If the log throws, the exception
 * propagates before any message of the step leaves, so nothing is acknowledged that was not stored.
 *
 * @param <M> message type
 * @param <R> record type
 * @param <V> decided value type
 */
public final class EffectApplier<M, R, V> {

    /** Where messages go (the transport, or the simulated network). */
    @FunctionalInterface
    public interface Outbox<M> {
        void send(int to, M message);
    }

    /** Where datagrams go (the transport's {@code sendDatagram}, or the simulated network). */
    @FunctionalInterface
    public interface GroupOutbox<M> {
        void sendDatagram(int group, M message);
    }

    /** Where decisions go (the delivery queue, or a test's recorder). */
    @FunctionalInterface
    public interface DecisionSink<V> {
        void decided(long instance, V value);
    }

    /** Where tentative positions go (speculative execution); by default nowhere. */
    @FunctionalInterface
    public interface TentativeSink<V> {
        /** A tentative {@code value} at {@code instance}, or ({@code revoked}) a revocation from {@code instance} on. */
        void tentative(long instance, V value, boolean revoked);
    }

    private TentativeSink<V> tentatives = (instance, value, revoked) -> { };
    private final DurableLog log;
    private final RecordCodec<R> codec;
    private final Outbox<M> outbox;
    private final GroupOutbox<M> groupOutbox;
    private final DecisionSink<V> decisions;
    private final SnapshotRequester snapshots;
    private final SafetyAlarm alarm;
    private dev.parallax.core.spi.ReadListener reads = NO_READS;
    private boolean stopped;

    /** Until {@link #reads} is set: a driver that asks for no reads gets none. */
    private static final dev.parallax.core.spi.ReadListener NO_READS = new dev.parallax.core.spi.ReadListener() {
        @Override
        public void ready(long read, long position) {
            throw new IllegalStateException("read " + read + " answered, but this driver asked for none");
        }

        @Override
        public void failed(long read, int leaderHint) {
            ready(read, -1);
        }
    };

    /**
     * An applier without datagram groups: a step that sends a datagram fails with
     * {@link IllegalStateException} (after its records are stored and its sends are out).
     */
    public EffectApplier(DurableLog log, RecordCodec<R> codec, Outbox<M> outbox, DecisionSink<V> decisions,
                         SnapshotRequester snapshots) {
        this(log, codec, outbox, (group, message) -> {
            throw new IllegalStateException("this driver has no datagram groups (a datagram to group " + group + ")");
        }, decisions, snapshots);
    }

    /**
     * An applier that hands datagrams to {@code groupOutbox}, and whose safety alarm throws
     * {@link IllegalStateException} naming the violation (a driver that cannot stop a replica fails
     * loudly instead; the applier is stopped all the same).
     */
    public EffectApplier(DurableLog log, RecordCodec<R> codec, Outbox<M> outbox, GroupOutbox<M> groupOutbox,
                         DecisionSink<V> decisions, SnapshotRequester snapshots) {
        this(log, codec, outbox, groupOutbox, decisions, snapshots, violation -> {
            throw new IllegalStateException("safety violation: " + violation.describe());
        });
    }

    /** An applier that hands datagrams to {@code groupOutbox} and safety violations to {@code alarm}. */
    public EffectApplier(DurableLog log, RecordCodec<R> codec, Outbox<M> outbox, GroupOutbox<M> groupOutbox,
                         DecisionSink<V> decisions, SnapshotRequester snapshots, SafetyAlarm alarm) {
        this.log = Objects.requireNonNull(log, "log");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.groupOutbox = Objects.requireNonNull(groupOutbox, "groupOutbox");
        this.decisions = Objects.requireNonNull(decisions, "decisions");
        this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
        this.alarm = Objects.requireNonNull(alarm, "alarm");
    }

    /** Where read answers go ({@link Effects#readReady}, {@link Effects#readFailed}); set before the first step. */
    public void reads(dev.parallax.core.spi.ReadListener listener) {
        this.reads = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Where tentative positions and revocations go ({@link Effects#tentative}), after the step's
     * decisions; set before the first step. Unset, they are dropped.
     */
    public void tentatives(TentativeSink<V> sink) {
        this.tentatives = Objects.requireNonNull(sink, "sink");
    }

    /** Whether a step reported a safety violation: from then on every step is discarded unapplied. */
    public boolean stopped() {
        return stopped;
    }

    /**
     * Applies and clears {@code effects}.
     *
     * @return the earliest wake-up the core asked for, or {@link Long#MAX_VALUE}
     * @throws dev.parallax.core.spi.DurableLogException if storing failed; no message was sent
     */
    public long apply(EffectBuffer<M, R, V> effects) {
        if (stopped || !effects.safetyViolations().isEmpty()) {
            return stop(effects);
        }
        List<R> records = effects.records();
        for (int i = 0; i < records.size(); i++) {
            log.append(codec.encode(records.get(i)));
        }
        if (effects.syncRequested()) {
            log.sync();
        }
        List<EffectBuffer.Outgoing<M>> sends = effects.sends();
        for (int i = 0; i < sends.size(); i++) {
            EffectBuffer.Outgoing<M> o = sends.get(i);
            outbox.send(o.to(), o.message());
        }
        List<EffectBuffer.GroupSend<M>> datagrams = effects.datagrams();
        for (int i = 0; i < datagrams.size(); i++) {
            EffectBuffer.GroupSend<M> g = datagrams.get(i);
            groupOutbox.sendDatagram(g.group(), g.message());
        }
        List<EffectBuffer.Decision<V>> decided = effects.decisions();
        for (int i = 0; i < decided.size(); i++) {
            EffectBuffer.Decision<V> d = decided.get(i);
            decisions.decided(d.instance(), d.value());
        }
        List<EffectBuffer.Tentative<V>> tentative = effects.tentatives();
        for (int i = 0; i < tentative.size(); i++) {
            EffectBuffer.Tentative<V> t = tentative.get(i);
            tentatives.tentative(t.instance(), t.value(), t.revoked());
        }
        List<EffectBuffer.SnapshotRequest> requests = effects.snapshotRequests();
        for (int i = 0; i < requests.size(); i++) {
            snapshots.request(requests.get(i).peer(), requests.get(i).instance());
        }
        List<EffectBuffer.ReadAnswer> answers = effects.reads();
        for (int i = 0; i < answers.size(); i++) {
            EffectBuffer.ReadAnswer a = answers.get(i);
            if (a.ready()) {
                reads.ready(a.read(), a.position());
            } else {
                reads.failed(a.read(), a.leaderHint());
            }
        }
        long wake = effects.wakeAt();
        effects.clear();
        return wake;
    }

    /** Raises the step's violations (stopping first, so that an alarm that throws still stops), discards the rest. */
    private long stop(EffectBuffer<M, R, V> effects) {
        stopped = true;
        List<SafetyViolation> violations = List.copyOf(effects.safetyViolations());
        effects.clear();
        for (SafetyViolation v : violations) {
            alarm.raised(v);
        }
        return Long.MAX_VALUE;
    }
}
