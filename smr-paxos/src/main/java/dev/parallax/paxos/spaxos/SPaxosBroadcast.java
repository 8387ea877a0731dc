package dev.parallax.paxos.spaxos;

import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;
import dev.parallax.paxos.PaxosRuntimeParts;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * {@link AtomicBroadcast} by S-Paxos (seed 002 (S-Paxos) §IV): one {@link ProtocolRuntime} runs
 * {@link SPaxosCore} over one transport joining the dissemination and ordering channels
 * ({@link SPaxos}) and one log. What is S-Paxos' own is here:
 * <ul>
 *   <li>values: a proposed batch is a {@link SPaxosValue.ClientBatch}; an {@link Executable} is
 *       delivered as {@link ExecutedBatches} bytes, of which the listener sees only the commands —
 *       the ids go to the {@link ExecutionMirror} first, whose record is this broadcast's
 *       {@link #deliveryState()} and is restored by {@link #snapshotInstalled(long, byte[])};</li>
 *   <li>clients are never redirected ({@link #redirectHint()} is always {@link #ANY_REPLICA},
 *       §IV-A: every replica takes client requests); {@link #leaderHint()} names the ordering
 *       leader;</li>
 *   <li>gauges {@code parallax.spaxos.bodies.held{unit=count|bytes}} and
 *       {@code parallax.spaxos.execution.waiting}; Multi-Paxos' view, leader and failure detection
 *       for the ordering core come from {@link PaxosRuntimeParts}, as for {@code PaxosBroadcast}.</li>
 * </ul>
 * The incarnation floor of the dissemination layer is the wall clock in milliseconds at start
 * (plan §1.2 rule 6). The runtime settings that are not S-Paxos' own come as one
 * {@link RuntimeOptions}.
 *
 * <p>Threads: {@link #propose}, {@link #redirectHint}, {@link #leaderHint},
 * {@link #readyForProposal}, {@link #snapshotTaken} and {@link #snapshotInstalled} from any thread,
 * never blocking; {@link #deliveryState} on the delivery thread; {@link #start} and {@link #close}
 * once each, by the owner. The broadcast owns the transport and the log it was given and closes them.
 */
public final class SPaxosBroadcast implements AtomicBroadcast {
    /** The instance name unless {@link RuntimeOptions} name another: the meters' {@code protocol} tag. */
    public static final String DEFAULT_NAME = "spaxos";
    private final ProtocolRuntime<Object, SPaxosRecord, SPaxosValue, SPaxosCore> runtime;
    private final PaxosRuntimeParts parts;
    private final ExecutionMirror mirror = new ExecutionMirror();
    private volatile long heldBodies;
    private volatile long heldBytes;
    private volatile long executionWaiting;

    private SPaxosBroadcast(Builder b) {
        SPaxosConfig config = b.config;
        int self = b.self;
        String replica = Integer.toString(self);
        RuntimeOptions options = b.options != null ? b.options : RuntimeOptions.builder().build();
        String name = options.name(DEFAULT_NAME);
        MeterRegistry registry = options.meterRegistry();
        parts = new PaxosRuntimeParts(config.paxos(), self, name, registry);
        Gauge.builder("parallax.spaxos.bodies.held", this, x -> x.heldBodies).description("batch bodies this replica holds")
                .tag("protocol", name).tag("replica", replica).tag("unit", "count").register(registry);
        Gauge.builder("parallax.spaxos.bodies.held", this, x -> x.heldBytes).description("bytes of the batch bodies held")
                .tag("protocol", name).tag("replica", replica).tag("unit", "bytes").register(registry);
        Gauge.builder("parallax.spaxos.execution.waiting", this, x -> x.executionWaiting)
                .description("decided ordering instances waiting for execution (a body is missing, or one before it)")
                .tag("protocol", name).tag("replica", replica).register(registry);
        SPaxosCore.Observer observer = b.observer;
        LongSupplier floor = b.incarnationFloor;
        ProtocolRuntime.Builder<Object, SPaxosRecord, SPaxosValue, SPaxosCore> rb =
                options.runtimeBuilder(DEFAULT_NAME, self, config.members(), b.clock);
        rb.transport(b.transport).log(b.log, new SPaxosRecordCodec())
                .core((recovered, amnesiac, now) -> {
                    SPaxosCore c = new SPaxosCore(config, self, recovered, amnesiac, floor.getAsLong(), now, observer);
                    c.ordering().detectFailuresExternally();
                    return c;
                })
                .values(SPaxosValue.ClientBatch::new,
                        v -> v instanceof Executable e ? ExecutedBatches.encode(e) : null)
                .failureDetection(parts.failureDetection())
                .observer(c -> {
                    parts.observe(c.ordering(), runtime().protocolStage().undelivered());
                    heldBodies = c.dissemination().heldBodies();
                    heldBytes = c.dissemination().heldBytes();
                    executionWaiting = c.executionWaiting();
                })
                .maxTickNanos(parts.maxTickNanos());
        this.runtime = rb.build();
    }

    /** The observer runs only after start, when the runtime field is set. */
    private ProtocolRuntime<Object, SPaxosRecord, SPaxosValue, SPaxosCore> runtime() {
        return runtime;
    }

    /** A builder; config, self, transport, log and clock are required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the runtime; each delivered instance's ids go to the execution mirror, then its
     * commands (one command batch) to {@code listener}, on the delivery thread.
     */
    @Override
    public void start(DeliveryListener listener) {
        Objects.requireNonNull(listener, "listener");
        runtime.start((sequence, value) -> {
            ExecutedBatches.Delivered d = ExecutedBatches.decode(value);
            mirror.apply(sequence, d.ids());
            listener.deliver(sequence, d.commands());
        });
    }

    @Override
    public boolean propose(ByteBuffer value) {
        return runtime.propose(value);
    }

    /** Every replica takes clients (seed 002 (S-Paxos) §IV-A): never a redirect. */
    @Override
    public int redirectHint() {
        return ANY_REPLICA;
    }

    /** The ordering layer's leader as this replica last saw it, or -1 before start. */
    @Override
    public int leaderHint() {
        return parts.leaderHint();
    }

    @Override
    public boolean readyForProposal() {
        return runtime.readyForProposal();
    }

    @Override
    public void snapshotTaken(long nextSequence) {
        runtime.compact(nextSequence);
    }

    @Override
    public void snapshotInstalled(long nextSequence) {
        snapshotInstalled(nextSequence, new byte[0]);
    }

    /** Restores the mirror and hands the executed-id record to the core ({@link SPaxosCore#skipTo(long, ByteBuffer)}). */
    @Override
    public void snapshotInstalled(long nextSequence, byte[] deliveryState) {
        mirror.restore(nextSequence, deliveryState);
        runtime.skipTo(nextSequence, deliveryState);
    }

    /** The executed-id record as of the last delivery ({@link ExecutionMirror#state}). */
    @Override
    public byte[] deliveryState() {
        return mirror.state();
    }

    /** The runtime (tests: the protocol stage). */
    public ProtocolRuntime<Object, SPaxosRecord, SPaxosValue, SPaxosCore> protocolRuntime() {
        return runtime;
    }

    @Override
    public void close() {
        runtime.close();
    }

    /** Mutable builder, not thread-safe. */
    public static final class Builder {
        private SPaxosConfig config;
        private int self = -1;
        private Transport<Object> transport;
        private DurableLog log;
        private Clock clock;
        private RuntimeOptions options;
        private SPaxosCore.Observer observer = SPaxosCore.Observer.NONE;
        private LongSupplier incarnationFloor = System::currentTimeMillis;

        private Builder() {
        }

        public Builder config(SPaxosConfig config) {
            this.config = Objects.requireNonNull(config);
            return this;
        }

        public Builder self(int self) {
            this.self = self;
            return this;
        }

        /** One transport carrying both layers' messages ({@code Channels.union} in a replica). */
        public Builder transport(Transport<Object> transport) {
            this.transport = Objects.requireNonNull(transport);
            return this;
        }

        /** The log of both layers; its records are recovered at start. */
        public Builder log(DurableLog log) {
            this.log = Objects.requireNonNull(log);
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /**
         * The runtime settings (name, meter registry, threads, snapshot service, queue bounds);
         * default {@link RuntimeOptions#builder() every default} with the name
         * {@value #DEFAULT_NAME} and a private registry.
         */
        public Builder options(RuntimeOptions options) {
            this.options = Objects.requireNonNull(options);
            return this;
        }

        /** The core's test hook; default {@link SPaxosCore.Observer#NONE}. Called on the protocol thread. */
        public Builder observer(SPaxosCore.Observer observer) {
            this.observer = Objects.requireNonNull(observer);
            return this;
        }

        /** The lowest incarnation a start may use; default the wall clock in milliseconds. */
        public Builder incarnationFloor(LongSupplier floor) {
            this.incarnationFloor = Objects.requireNonNull(floor);
            return this;
        }

        /** @throws IllegalArgumentException if a required part is missing or inconsistent */
        public SPaxosBroadcast build() {
            if (config == null || transport == null || log == null || clock == null) {
                throw new IllegalArgumentException("config, transport, log and clock are required");
            }
            if (self < 0 || self >= config.members()) {
                throw new IllegalArgumentException("self must be 0.." + (config.members() - 1) + ", got " + self);
            }
            if (transport.localId() != self) {
                throw new IllegalArgumentException("transport is member " + transport.localId() + ", not " + self);
            }
            return new SPaxosBroadcast(this);
        }
    }
}
