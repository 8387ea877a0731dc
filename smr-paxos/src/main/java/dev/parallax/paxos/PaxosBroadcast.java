package dev.parallax.paxos;

import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.protocol.ProtocolStage;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.WaitStrategy;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * {@link AtomicBroadcast} by Multi-Paxos: the Multi-Paxos part of a {@link ProtocolRuntime}, which
 * runs the {@link MultiPaxosCore} (inbox, effects with one log sync per batch, delivery in order,
 * failure detection, metrics, threads). What is Multi-Paxos' own is here: the core built from the
 * recovered records, values (the no-op is not delivered) and the redirect rule (clients go to the
 * leader); the failure detector's rule ({@link SuspicionRule}) and the view it watches — none until
 * a restarted replica's local replay is handed to execution, so the detector's clock starts then —
 * and the view and leader gauges and the check-quorum and pre-vote counters are
 * in {@link PaxosRuntimeParts}, shared with S-Paxos. Built with {@link #builder}.
 *
 * <p>Back-pressure and failure detection are the runtime's (see {@link ProtocolRuntime}):
 * {@link #propose} returns {@code false} when the proposal queue is full; a lagging listener holds
 * the protocol stage back without blocking it; a detector on its own thread reads arrival stamps.
 *
 * <p>Threads: {@link #propose}, {@link #redirectHint} and {@link #leaderHint} from any thread;
 * {@link #start} and {@link #close} once each, by the owner. The broadcast owns the transport and
 * the log it was given and closes them.
 */
public final class PaxosBroadcast implements AtomicBroadcast {
    private final ProtocolRuntime<PaxosMessage, PaxosRecord, Value, MultiPaxosCore> runtime;
    private final PaxosRuntimeParts parts;

    private PaxosBroadcast(Builder b) {
        PaxosConfig config = b.config;
        int self = b.self;
        this.parts = new PaxosRuntimeParts(config, self, b.name, b.registry);
        ProtocolRuntime.Builder<PaxosMessage, PaxosRecord, Value, MultiPaxosCore> rb = ProtocolRuntime.builder(b.name);
        rb.members(self, config.members()).transport(b.transport).log(b.log, new PaxosRecordCodec())
                .core((recovered, amnesiac, now) -> {
                    MultiPaxosCore c = new MultiPaxosCore(config, self, recovered, amnesiac, now);
                    c.detectFailuresExternally();
                    return c;
                })
                .values(Value::of, v -> v.isNoop() ? null : v.bytes())
                .clock(b.clock).meterRegistry(b.registry).snapshotRequester(b.snapshotRequester)
                .failureDetection(parts.failureDetection())
                .observer(parts.<MultiPaxosCore>observer(c -> c, this::undelivered))
                .maxTickNanos(parts.maxTickNanos())
                .inboxCapacity(b.inboxCapacity).proposalCapacity(b.proposalCapacity)
                .decisionCapacity(b.decisionCapacity).maxUndelivered(b.maxUndelivered);
        if (b.threads != null) {
            rb.threads(b.threads);
        } else {
            rb.threads(StageThreads.builder(dev.parallax.core.stage.ThreadPlacement.STAGED).waitStrategy(b.waitStrategy).clock(b.clock).meterRegistry(b.registry)
                    .build());
        }
        this.runtime = rb.build();
    }

    /** Protocol thread only: decisions kept for a lagging execution (the local replay, after a restart). */
    private int undelivered() {
        return runtime.protocolStage().undelivered();
    }

    /** A builder; config, self, transport, log and clock are required. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void start(DeliveryListener listener) {
        runtime.start(listener);
    }

    @Override
    public boolean propose(ByteBuffer value) {
        return runtime.propose(value);
    }

    @Override
    public void snapshotTaken(long nextSequence) {
        runtime.compact(nextSequence);
    }

    @Override
    public void snapshotInstalled(long nextSequence) {
        runtime.skipTo(nextSequence);
    }

    @Override
    public boolean readyForProposal() {
        return runtime.readyForProposal();
    }

    /**
     * Multi-Paxos' redirect rule: clients go to the leader this replica believes in, as the
     * protocol thread last published it; -1 (take them here) before start or while no leader is
     * known — the batcher then holds them until a leader takes proposals.
     */
    @Override
    public int redirectHint() {
        return parts.leaderHint();
    }

    @Override
    public void close() {
        runtime.close();
    }

    /** Mutable builder, not thread-safe. */
    public static final class Builder {
        private PaxosConfig config;
        private int self = -1;
        private Transport<PaxosMessage> transport;
        private DurableLog log;
        private Clock clock;
        private WaitStrategy.Factory waitStrategy = dev.parallax.core.stage.WaitStrategies.yieldPark();
        private MeterRegistry registry = new SimpleMeterRegistry();
        private int inboxCapacity = 8192;
        private int proposalCapacity = 20;
        private int decisionCapacity = 1024;
        private int maxUndelivered = ProtocolStage.DEFAULT_MAX_UNDELIVERED;
        private SnapshotRequester snapshotRequester = SnapshotRequester.NONE;
        private StageThreads threads;
        private String name = "paxos";

        private Builder() {
        }

        /**
         * The threads the stages run on (the replica's placement); default one thread per stage
         * with the {@link #waitStrategy}, owned by the broadcast.
         */
        public Builder threads(StageThreads threads) {
            this.threads = Objects.requireNonNull(threads);
            return this;
        }

        /**
         * The instance's name: the {@code protocol} tag of its meters and the prefix of its thread
         * names; default {@code paxos}. Several instances in one process need distinct names.
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name);
            return this;
        }

        /** Told when this replica needs a peer's snapshot; default ignores it (no snapshots). */
        public Builder snapshotRequester(dev.parallax.core.spi.SnapshotRequester r) {
            this.snapshotRequester = Objects.requireNonNull(r);
            return this;
        }

        public Builder config(PaxosConfig config) {
            this.config = config;
            return this;
        }

        public Builder self(int self) {
            this.self = self;
            return this;
        }

        public Builder transport(Transport<PaxosMessage> transport) {
            this.transport = transport;
            return this;
        }

        /** The acceptor's durable log; its records are recovered at start. */
        public Builder log(DurableLog log) {
            this.log = log;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** How idle stage threads wait; default yield-then-park. */
        public Builder waitStrategy(WaitStrategy.Factory factory) {
            this.waitStrategy = Objects.requireNonNull(factory);
            return this;
        }

        /** Where stage and protocol meters go; default a private simple registry. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry);
            return this;
        }

        /** Peer messages waiting for the protocol thread; default 8192. */
        public Builder inboxCapacity(int n) {
            this.inboxCapacity = n;
            return this;
        }

        /** Proposals waiting for a window slot; default 20 (seed 000 §V-E ProposalQueue). */
        public Builder proposalCapacity(int n) {
            this.proposalCapacity = n;
            return this;
        }

        /** Decided values waiting for the listener; default 1024. */
        public Builder decisionCapacity(int n) {
            this.decisionCapacity = n;
            return this;
        }

        /**
         * Decisions the protocol stage keeps while the listener lags (the decision queue is full)
         * before it stops taking peer messages; default {@link ProtocolStage#DEFAULT_MAX_UNDELIVERED}.
         */
        public Builder maxUndelivered(int n) {
            this.maxUndelivered = n;
            return this;
        }

        /** @throws IllegalArgumentException if a required part is missing */
        public PaxosBroadcast build() {
            if (config == null || transport == null || log == null || clock == null) {
                throw new IllegalArgumentException("config, transport, log and clock are required");
            }
            if (self < 0 || self >= config.members()) {
                throw new IllegalArgumentException("self must be 0.." + (config.members() - 1) + ", got " + self);
            }
            if (maxUndelivered <= 0) {
                throw new IllegalArgumentException("maxUndelivered must be positive, got " + maxUndelivered);
            }
            if (transport.localId() != self) {
                throw new IllegalArgumentException("transport is member " + transport.localId() + ", not " + self);
            }
            return new PaxosBroadcast(this);
        }
    }
}
