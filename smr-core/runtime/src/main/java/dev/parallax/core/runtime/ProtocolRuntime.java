package dev.parallax.core.runtime;

import dev.parallax.core.config.Names;
import dev.parallax.core.liveness.FailureDetector;
import dev.parallax.core.liveness.MemberDetector;
import dev.parallax.core.liveness.PeerLiveness;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.protocol.ProtocolStage;
import dev.parallax.core.protocol.RecordCodec;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.stage.StageHandle;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Runs one deterministic {@link ProtocolCore} as part of a replica: everything a protocol needs
 * around its core and nothing specific to one protocol, so that every ordering protocol (Multi-Paxos,
 * S-Paxos' two cores, one core per ring of Multi-Ring Paxos) shares one runtime instead of a copy.
 *
 * <ul>
 *   <li><b>Recovery</b>: at {@link #start} the log's records are decoded and handed to the core
 *       factory, with whether the log may have lost synced-late records (amnesia).</li>
 *   <li><b>Inbox and effects</b>: peer messages arrive from the {@link Transport} into a bounded
 *       MPSC inbox; a {@link ProtocolStage} drives the core (messages, proposals, ticks) and applies
 *       its effects by the one rule of {@link dev.parallax.core.protocol.EffectApplier}: persist,
 *       sync once, then send and decide (group commit).</li>
 *   <li><b>Delivery</b>: decided values pass through a bounded SPSC queue to a delivery stage that
 *       hands them, in order, to the {@link DeliveryListener}; values the {@link ValueAdapter}
 *       maps to {@code null} (no-ops) are skipped. A lagging listener back-pressures the protocol
 *       stage, which keeps at most {@code maxUndelivered} decisions and then leaves its inbox.</li>
 *   <li><b>Failure detection</b> (optional): the transport's IO threads stamp arrivals
 *       ({@link PeerLiveness}); a {@link FailureDetector} on a dedicated thread applies the
 *       protocol's pure rule to the leader the protocol thread last published and hands a
 *       suspicion to the core ({@link ProtocolCore#onSuspect}).</li>
 *   <li><b>Safety alarm</b>: a core's {@link dev.parallax.core.protocol.SafetyViolation} stops the
 *       protocol stage (counted in {@code parallax.safety.alarms}, logged at ERROR) and reaches the
 *       {@link Builder#safetyAlarm hook}, which stops the replica serving.</li>
 *   <li><b>Metrics</b>: stage meters, the protocol stage's meters (tag {@code protocol=<name>}),
 *       {@code parallax.protocol.inbound.dropped}, {@code parallax.protocol.recovering},
 *       {@code parallax.protocol.suspicions}.</li>
 *   <li><b>Lifecycle</b>: stages are placed on threads by {@link StageThreads} (staged or compact);
 *       {@link #close} stops them, the transport and the log.</li>
 * </ul>
 *
 * <p>Protocol-specific state (a view, a leader) is published by an observer the protocol module
 * registers ({@link Builder#observer}): it runs on the protocol thread after every work cycle and
 * may write volatile fields for other threads to read.
 *
 * <p>Threads: {@link #propose}, {@link #readyForProposal}, {@link #compact} and {@link #skipTo}
 * from any thread, never blocking; {@link #start} and {@link #close} once each, by the owner. The
 * runtime owns the transport and the log it was given and closes them.
 *
 * @param <M> message type
 * @param <R> durable record type
 * @param <V> value type (what is proposed and decided)
 * @param <C> the core's type
 */
public final class ProtocolRuntime<M, R, V, C extends ProtocolCore<M, R, V>> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProtocolRuntime.class);

    /** Builds the core from its recovered records. Called once, at start, on the starting thread. */
    @FunctionalInterface
    public interface CoreFactory<R, C> {
        /**
         * @param recovered      every record in the log, decoded, oldest first
         * @param amnesiaPossible the log may have lost records it had acknowledged (see
         *                        {@code DurableLog.amnesiaPossible}): the core must recover
         *                        before it votes
         * @param now            the clock's reading
         */
        C create(List<R> recovered, boolean amnesiaPossible, long now);
    }

    /**
     * Converts between the replica's bytes and the protocol's values. {@link #fromBytes} is
     * stateless and thread-safe; {@link #toDelivery(long, Object)} runs on the delivery thread, in
     * instance order.
     */
    public interface ValueAdapter<V> {
        /** A proposed value from the replica's bytes (the bytes may be kept: the caller will not change them). */
        V fromBytes(ByteBuffer bytes);

        /** The bytes to deliver for a decided value, or {@code null} to skip it (a no-op). */
        ByteBuffer toDelivery(V value);

        /**
         * The bytes to deliver for the value decided at {@code instance}; called for every decided
         * instance in order, on the delivery thread, so an adapter may keep delivery-side state of
         * values it does not deliver (Multi-Paxos' membership changes). Default: {@link #toDelivery(Object)}.
         */
        default ByteBuffer toDelivery(long instance, V value) {
            return toDelivery(value);
        }
    }

    /**
     * Failure detection for a leader-based core: the view whose leader this replica follows (-1
     * while it leads or starts a view), as the observer publishes it, and the pure rule.
     */
    public record FailureDetection(FailureDetector.Rule rule, LongSupplier followedView, long periodNanos) {
        public FailureDetection {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(followedView, "followedView");
            if (periodNanos <= 0) {
                throw new IllegalArgumentException("periodNanos must be positive: " + periodNanos);
            }
        }
    }

    /**
     * Member suspicion for a core that depends on every member of a set (a ring, seed 003 (Ring
     * Paxos) §3.3.6): the protocol's epoch and the members watched in it, as the observer publishes
     * them, the pure rule, and how often a dedicated {@link MemberDetector} thread checks.
     */
    public record MemberWatch(MemberDetector.Rule rule, LongSupplier epoch, LongSupplier watchedMask, long periodNanos) {
        public MemberWatch {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(epoch, "epoch");
            Objects.requireNonNull(watchedMask, "watchedMask");
            if (periodNanos <= 0) {
                throw new IllegalArgumentException("periodNanos must be positive: " + periodNanos);
            }
        }
    }

    private final String name;
    private final int self;
    private final int members;
    private final Transport<M> transport;
    private final DurableLog log;
    private final RecordCodec<R> records;
    private final CoreFactory<R, C> coreFactory;
    private final ValueAdapter<V> values;
    private final Clock clock;
    private final MeterRegistry registry;
    private final StageThreads threads;
    private final boolean ownsThreads;
    private final SnapshotRequester snapshotRequester;
    private final FailureDetection detection;
    private final MemberWatch memberWatch;
    private final Consumer<C> observer;
    private final dev.parallax.core.protocol.SafetyAlarm safetyAlarm;
    private final long maxTickNanos;
    private final int maxUndelivered;
    private final BoundedQueue<ProtocolStage.Inbound<M>> inbox;
    private final BoundedQueue<V> proposals;
    private final BoundedQueue<Decision<V>> decisions;
    private final Counter droppedInbound;
    private final List<StageHandle> handles = new ArrayList<>();
    private long installedBeforeStart;
    /** The delivery state of the snapshot installed before start; null if it came with none. */
    private byte[] installedStateBeforeStart;
    private volatile C core;
    private volatile ProtocolStage<M, R, V> protocolStage;
    private final RuntimeReads reads = new RuntimeReads();
    private volatile int recovering;
    private volatile boolean closed;

    private ProtocolRuntime(Builder<M, R, V, C> b) {
        this.name = b.name;
        this.self = b.self;
        this.members = b.members;
        this.transport = b.transport;
        this.log = b.log;
        this.records = b.records;
        this.coreFactory = b.coreFactory;
        this.values = b.values;
        this.clock = b.clock;
        this.registry = b.registry;
        this.ownsThreads = b.threads == null;
        this.threads = b.threads != null ? b.threads
                : StageThreads.builder(dev.parallax.core.stage.ThreadPlacement.STAGED).waitStrategy(WaitStrategies.yieldPark()).clock(b.clock).meterRegistry(b.registry)
                .threadNamePrefix(b.name + "-" + b.self + "-").build();
        this.snapshotRequester = b.snapshotRequester;
        this.detection = b.detection;
        this.memberWatch = b.memberWatch;
        this.observer = b.observer;
        this.safetyAlarm = b.safetyAlarm;
        this.maxTickNanos = b.maxTickNanos;
        this.maxUndelivered = b.maxUndelivered;
        this.inbox = Queues.mpsc(b.inboxCapacity);
        this.proposals = Queues.mpsc(b.proposalCapacity);
        this.decisions = Queues.spsc(b.decisionCapacity);
        this.droppedInbound = Counter.builder("parallax.protocol.inbound.dropped")
                .description("peer messages dropped because the protocol inbox was full")
                .tag("protocol", name).tag("replica", Integer.toString(self)).register(registry);
    }

    /** A builder for a runtime named {@code name} (thread names, the {@code protocol} metrics tag). */
    public static <M, R, V, C extends ProtocolCore<M, R, V>> Builder<M, R, V, C> builder(String name) {
        return new Builder<>(name);
    }

    /** The runtime's name (the {@code protocol} tag of its meters). */
    public String name() {
        return name;
    }

    /** The read path: reads asked of this runtime's core ({@link dev.parallax.core.spi.ReadIndex}). Any thread. */
    public dev.parallax.core.spi.ReadIndex reads() {
        return reads;
    }

    /**
     * Recovers the core from the log, starts the stages and the transport; decided values then
     * reach {@code listener} on the delivery stage's thread.
     *
     * @throws IllegalStateException if already started or closed
     */
    public synchronized void start(DeliveryListener listener) {
        Objects.requireNonNull(listener, "listener");
        if (core != null || closed) {
            throw new IllegalStateException("already started or closed");
        }
        List<R> recovered = new ArrayList<>();
        log.read(log.firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(records.decode(r)));
        boolean amnesiac = log.amnesiaPossible();
        if (amnesiac) {
            LOG.warn("replica {} ({}): the log may have lost promises and votes (unclean stop without forced syncs); "
                    + "recovering from peers before voting", self, name);
        }
        C c = coreFactory.create(recovered, amnesiac, clock.nanoTime());
        if (installedBeforeStart > 0) {
            if (installedStateBeforeStart == null) {
                c.skipTo(installedBeforeStart);
            } else {
                c.skipTo(installedBeforeStart, ByteBuffer.wrap(installedStateBeforeStart).asReadOnlyBuffer());
            }
        }
        core = c;
        ProtocolStage<M, R, V> protocol = new ProtocolStage<>(
                name + "-protocol-" + self, self, c, inbox, proposals, log, records, transport,
                (instance, value) -> decisions.offer(new Decision<>(instance, value)),
                snapshotRequester, clock, maxTickNanos, 256, maxUndelivered);
        protocolStage = protocol;
        protocol.tentatives((instance, value, revoked) -> decisions.offer(
                new Decision<>(instance, value, revoked ? Decision.REVOKED : Decision.TENTATIVE)));
        protocol.onSafetyAlarm(safetyAlarm);
        protocol.registerMeters(registry, name);
        String replica = Integer.toString(self);
        recovering = c.recovering() ? 1 : 0;
        Gauge.builder("parallax.protocol.recovering", this, r -> r.recovering)
                .description("1 while this replica recovers from amnesia (ProtocolCore.recovering(): it does not yet count as a voter or holder)")
                .tag("protocol", name).tag("replica", replica).register(registry);
        boolean[] amnesiaOpen = {amnesiac};
        protocol.afterWork(() -> {
            observer.accept(c);
            if (amnesiaOpen[0] && !c.recovering()) {
                // The recovered state was persisted and synced in the work just done.
                amnesiaOpen[0] = false;
                recovering = 0;
                log.amnesiaResolved();
                LOG.info("replica {} ({}): recovered from amnesia; voting again", self, name);
            }
        });
        DeliveryStage<V> delivery = new DeliveryStage<>(name + "-delivery-" + self, decisions, values, listener);
        protocol.deliveryProgress(delivery::deliveredBelow);
        reads.started(protocol, delivery::deliveredBelow);
        delivery.onProgress(reads::progressed);
        FunctionCounter.builder("parallax.protocol.delivered.bytes", delivery, DeliveryStage::deliveredBytes)
                .description("bytes of decided values handed to the replica's listener")
                .tag("protocol", name).tag("replica", replica).register(registry);
        handles.add(threads.run(delivery));
        handles.add(threads.run(protocol));
        // Stamps for every id a membership change may bring in, not only the cluster file's.
        PeerLiveness liveness = new PeerLiveness(Math.max(members, MAX_MEMBER_ID + 1), clock);
        if (detection != null) {
            FailureDetector detector = new FailureDetector(name + "-fd-" + self, self, liveness, detection.rule(),
                    detection.followedView(), protocol::suspect, clock);
            FunctionCounter.builder("parallax.protocol.suspicions", detector, FailureDetector::suspicions)
                    .description("views whose leader this replica's failure detector suspected")
                    .tag("protocol", name).tag("replica", replica).register(registry);
            handles.add(threads.runDedicated(detector, WaitStrategies.park(detection.periodNanos())));
        }
        if (memberWatch != null) {
            MemberDetector watcher = new MemberDetector(name + "-md-" + self, self, liveness, memberWatch.rule(),
                    memberWatch.epoch(), memberWatch.watchedMask(), protocol::suspectMember, clock);
            FunctionCounter.builder("parallax.protocol.member.suspicions", watcher, MemberDetector::suspicions)
                    .description("(epoch, member) pairs this replica's member detector suspected")
                    .tag("protocol", name).tag("replica", replica).register(registry);
            handles.add(threads.runDedicated(watcher, WaitStrategies.park(memberWatch.periodNanos())));
        }
        transport.start((from, m) -> {
            if (!inbox.offer(new ProtocolStage.Inbound<>(from, m))) {
                droppedInbound.increment();
            }
        }, liveness);
    }

    /**
     * Offers a value for ordering. Non-blocking.
     *
     * @return false when the proposal queue is full (back-pressure)
     * @throws IllegalStateException if not started or closed
     */
    public boolean propose(ByteBuffer value) {
        if (core == null || closed) {
            throw new IllegalStateException("not started or closed");
        }
        return proposals.offer(values.fromBytes(value));
    }

    /** Whether a proposal offered now would start being ordered at once (the batcher's hint). */
    public boolean readyForProposal() {
        ProtocolStage<M, R, V> p = protocolStage;
        return p != null && p.readyForProposal();
    }

    /** A snapshot covers every position below {@code nextSequence}: the core compacts its log. */
    public void compact(long nextSequence) {
        ProtocolStage<M, R, V> p = protocolStage;
        if (p != null) {
            p.compact(nextSequence);
        }
    }

    /** A snapshot covering every position below {@code nextSequence} was installed; may come before start. */
    /**
     * Runs {@code operation} on the protocol thread with this runtime's core (see
     * {@link ProtocolStage#runOnCore}). Thread-safe; returns at once.
     *
     * @return false before start, after close, or if the protocol thread's control queue is full
     */
    public boolean runOnCore(CoreOperation<M, R, V, C> operation) {
        ProtocolStage<M, R, V> stage = protocolStage;
        C c = core;
        return stage != null && c != null && stage.runOnCore((ignored, now, out) -> operation.run(c, now, out));
    }

    /** {@link #runOnCore}'s operation, typed by the core. */
    @FunctionalInterface
    public interface CoreOperation<M, R, V, C> {
        void run(C core, long now, dev.parallax.core.protocol.Effects<M, R, V> out);
    }

    /** The highest member id a replica may have (ids {@code 0..31}: membership masks are 32 bits wide). */
    public static final int MAX_MEMBER_ID = 31;

    public synchronized void skipTo(long nextSequence) {
        reads.installed(nextSequence);
        ProtocolStage<M, R, V> p = protocolStage;
        if (p == null) {
            if (nextSequence > installedBeforeStart) {
                installedBeforeStart = nextSequence;
                installedStateBeforeStart = null;
            }
        } else {
            p.skipTo(nextSequence);
        }
    }

    /**
     * A snapshot covering every position below {@code nextSequence} was installed, carrying the
     * broadcast's {@code deliveryState} (see {@link ProtocolCore#skipTo(long, ByteBuffer)}); may
     * come before start, when the newest such snapshot and its state are kept for the core. The
     * runtime keeps {@code deliveryState}: the caller must not change it afterwards.
     */
    public synchronized void skipTo(long nextSequence, byte[] deliveryState) {
        Objects.requireNonNull(deliveryState, "deliveryState");
        reads.installed(nextSequence);
        ProtocolStage<M, R, V> p = protocolStage;
        if (p == null) {
            if (nextSequence > installedBeforeStart) {
                installedBeforeStart = nextSequence;
                installedStateBeforeStart = deliveryState;
            }
        } else {
            p.skipTo(nextSequence, ByteBuffer.wrap(deliveryState).asReadOnlyBuffer());
        }
    }

    /** The protocol stage, once started (tests and the protocol module's meters); null before. */
    public ProtocolStage<M, R, V> protocolStage() {
        return protocolStage;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        transport.close();
        for (int i = handles.size() - 1; i >= 0; i--) {
            handles.get(i).close();
        }
        if (ownsThreads) {
            threads.close();
        }
        log.close();
    }

    /**
     * Mutable builder, not thread-safe. Required: self, members, transport, log, records, core,
     * values, clock.
     */
    public static final class Builder<M, R, V, C extends ProtocolCore<M, R, V>> {
        private final String name;
        private int self = -1;
        private int members;
        private Transport<M> transport;
        private DurableLog log;
        private RecordCodec<R> records;
        private CoreFactory<R, C> coreFactory;
        private ValueAdapter<V> values;
        private Clock clock;
        private MeterRegistry registry = new SimpleMeterRegistry();
        private StageThreads threads;
        private SnapshotRequester snapshotRequester = SnapshotRequester.NONE;
        private FailureDetection detection;
        private MemberWatch memberWatch;
        private Consumer<C> observer = c -> { };
        private dev.parallax.core.protocol.SafetyAlarm safetyAlarm = dev.parallax.core.protocol.SafetyAlarm.NONE;
        private long maxTickNanos = 1_000_000;
        private int inboxCapacity = 8192;
        private int proposalCapacity = 20;
        private int decisionCapacity = 1024;
        private int maxUndelivered = ProtocolStage.DEFAULT_MAX_UNDELIVERED;

        private Builder(String name) {
            this.name = Names.check("protocol", name);
        }

        /**
         * This replica's member id and the number of members the cluster file lists; a replica
         * that joins the group by a membership change has an id beyond them, up to
         * {@link #MAX_MEMBER_ID}.
         */
        public Builder<M, R, V, C> members(int self, int members) {
            if (members < 1 || self < 0 || self > Math.max(members - 1, MAX_MEMBER_ID)) {
                throw new IllegalArgumentException("self must be 0.." + Math.max(members - 1, MAX_MEMBER_ID) + ", got " + self);
            }
            this.self = self;
            this.members = members;
            return this;
        }

        /** The channel the core's messages travel on; the runtime owns and closes it. */
        public Builder<M, R, V, C> transport(Transport<M> transport) {
            this.transport = Objects.requireNonNull(transport);
            return this;
        }

        /** The core's durable log (records recovered at start); the runtime owns and closes it. */
        public Builder<M, R, V, C> log(DurableLog log, RecordCodec<R> records) {
            this.log = Objects.requireNonNull(log);
            this.records = Objects.requireNonNull(records);
            return this;
        }

        public Builder<M, R, V, C> core(CoreFactory<R, C> factory) {
            this.coreFactory = Objects.requireNonNull(factory);
            return this;
        }

        public Builder<M, R, V, C> values(ValueAdapter<V> adapter) {
            this.values = Objects.requireNonNull(adapter);
            return this;
        }

        /** A value adapter from two functions. */
        public Builder<M, R, V, C> values(Function<ByteBuffer, V> fromBytes, Function<V, ByteBuffer> toDelivery) {
            return values(new ValueAdapter<>() {
                @Override
                public V fromBytes(ByteBuffer bytes) {
                    return fromBytes.apply(bytes);
                }

                @Override
                public ByteBuffer toDelivery(V value) {
                    return toDelivery.apply(value);
                }
            });
        }

        public Builder<M, R, V, C> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /** Where meters go; default a private simple registry. */
        public Builder<M, R, V, C> meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry);
            return this;
        }

        /**
         * The threads the stages run on (the replica's placement). Default: a private
         * {@link StageThreads} with yield-park waiting, closed with the runtime.
         */
        public Builder<M, R, V, C> threads(StageThreads threads) {
            this.threads = Objects.requireNonNull(threads);
            return this;
        }

        /** Told when this replica needs a peer's snapshot; default ignores it. */
        public Builder<M, R, V, C> snapshotRequester(SnapshotRequester r) {
            this.snapshotRequester = Objects.requireNonNull(r);
            return this;
        }

        /** Runs a failure detector on its own thread; default none (the core detects failures on ticks). */
        public Builder<M, R, V, C> failureDetection(FailureDetection detection) {
            this.detection = Objects.requireNonNull(detection);
            return this;
        }

        /** Runs a member detector on its own thread; default none. */
        public Builder<M, R, V, C> memberWatch(MemberWatch watch) {
            this.memberWatch = Objects.requireNonNull(watch);
            return this;
        }

        /** Runs on the protocol thread after every work cycle (publish volatile state, gauges). */
        public Builder<M, R, V, C> observer(Consumer<C> observer) {
            this.observer = Objects.requireNonNull(observer);
            return this;
        }

        /**
         * Told when the core reports a safety violation (after the protocol stage stopped, counted
         * and logged it): the replica's stop-serving hook. Default {@link dev.parallax.core.protocol.SafetyAlarm#NONE}.
         */
        public Builder<M, R, V, C> safetyAlarm(dev.parallax.core.protocol.SafetyAlarm alarm) {
            this.safetyAlarm = Objects.requireNonNull(alarm, "alarm");
            return this;
        }

        /** Longest time between two ticks even if the core asks for none; default 1 ms. */
        public Builder<M, R, V, C> maxTickNanos(long nanos) {
            if (nanos <= 0) {
                throw new IllegalArgumentException("maxTickNanos must be positive: " + nanos);
            }
            this.maxTickNanos = nanos;
            return this;
        }

        /** Peer messages waiting for the protocol thread; default 8192. */
        public Builder<M, R, V, C> inboxCapacity(int n) {
            this.inboxCapacity = n;
            return this;
        }

        /** Proposals waiting for the core; default 20 (seed 000 (JPaxos staged replica) §V-E ProposalQueue). */
        public Builder<M, R, V, C> proposalCapacity(int n) {
            this.proposalCapacity = n;
            return this;
        }

        /** Decided values waiting for the listener; default 1024. */
        public Builder<M, R, V, C> decisionCapacity(int n) {
            this.decisionCapacity = n;
            return this;
        }

        /** Decisions kept while the listener lags before the inbox is left alone; default {@link ProtocolStage#DEFAULT_MAX_UNDELIVERED}. */
        public Builder<M, R, V, C> maxUndelivered(int n) {
            if (n <= 0) {
                throw new IllegalArgumentException("maxUndelivered must be positive, got " + n);
            }
            this.maxUndelivered = n;
            return this;
        }

        /** @throws IllegalArgumentException if a required part is missing or the transport is another member's */
        public ProtocolRuntime<M, R, V, C> build() {
            if (self < 0 || transport == null || log == null || coreFactory == null || values == null || clock == null) {
                throw new IllegalArgumentException("members, transport, log, core, values and clock are required");
            }
            if (transport.localId() != self) {
                throw new IllegalArgumentException("transport is member " + transport.localId() + ", not " + self);
            }
            return new ProtocolRuntime<>(this);
        }
    }
}
