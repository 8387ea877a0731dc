package dev.parallax.paxos;

import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;

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
 * The runtime settings that are not Multi-Paxos' own come as one {@link RuntimeOptions}.
 *
 * <p>Threads: {@link #propose}, {@link #redirectHint} and {@link #leaderHint} from any thread;
 * {@link #start} and {@link #close} once each, by the owner. The broadcast owns the transport and
 * the log it was given and closes them.
 */
public final class PaxosBroadcast implements AtomicBroadcast {
    /** The instance name unless {@link RuntimeOptions} name another: the meters' {@code protocol} tag. */
    public static final String DEFAULT_NAME = "paxos";
    private final ProtocolRuntime<PaxosMessage, PaxosRecord, Value, MultiPaxosCore> runtime;
    private final PaxosRuntimeParts parts;

    private PaxosBroadcast(Builder b) {
        PaxosConfig config = b.config;
        int self = b.self;
        RuntimeOptions options = b.options != null ? b.options : RuntimeOptions.builder().build();
        String name = options.name(DEFAULT_NAME);
        this.parts = new PaxosRuntimeParts(config, self, name, options.meterRegistry());
        ProtocolRuntime.Builder<PaxosMessage, PaxosRecord, Value, MultiPaxosCore> rb =
                options.runtimeBuilder(DEFAULT_NAME, self, config.members(), b.clock);
        rb.transport(b.transport).log(b.log, new PaxosRecordCodec())
                .core((recovered, amnesiac, now) -> {
                    MultiPaxosCore c = new MultiPaxosCore(config, self, recovered, amnesiac, now);
                    c.detectFailuresExternally();
                    return c;
                })
                .values(Value::of, v -> v.isNoop() ? null : v.bytes())
                .failureDetection(parts.failureDetection())
                .observer(parts.<MultiPaxosCore>observer(c -> c, this::undelivered))
                .maxTickNanos(parts.maxTickNanos());
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
        private RuntimeOptions options;

        private Builder() {
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

        /** @throws IllegalArgumentException if a required part is missing */
        public PaxosBroadcast build() {
            if (config == null || transport == null || log == null || clock == null) {
                throw new IllegalArgumentException("config, transport, log and clock are required");
            }
            if (self < 0 || self >= config.members()) {
                throw new IllegalArgumentException("self must be 0.." + (config.members() - 1) + ", got " + self);
            }
            if (transport.localId() != self) {
                throw new IllegalArgumentException("transport is member " + transport.localId() + ", not " + self);
            }
            return new PaxosBroadcast(this);
        }
    }
}
