package dev.parallax.core.runtime;

import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.protocol.RecordCodec;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * The part of an {@link AtomicBroadcast} that one {@link ProtocolRuntime} does: start, propose,
 * readiness, log compaction, skipping to a snapshot and close only delegate to the runtime. A
 * protocol's broadcast (Multi-Paxos, S-Paxos, Ring Paxos) extends this class, builds its runtime in
 * its constructor from the validated {@link Parts} its {@link BaseBuilder} gives, hands it over once
 * with {@link #install}, and adds what is its own (values, redirect rule, meters, delivery state).
 *
 * <p>Threads: {@link #propose}, {@link #readyForProposal}, {@link #snapshotTaken},
 * {@link #snapshotInstalled(long)}, {@link #protocolRuntime} and {@link #name} from any thread,
 * never blocking (after the constructor has installed the runtime); {@link #start} and
 * {@link #close} once each, by the owner (see {@link ProtocolRuntime} for what they block on).
 * The broadcast owns the transport and the log it was given: closing it closes them.
 *
 * @param <M> the protocol's messages
 * @param <R> the protocol's log records
 * @param <V> the protocol's values
 * @param <C> the protocol core
 */
public abstract class RuntimeBroadcast<M, R, V, C extends ProtocolCore<M, R, V>> implements AtomicBroadcast {
    /** Written once by the subclass constructor; volatile so that any thread that sees the broadcast sees it. */
    private volatile ProtocolRuntime<M, R, V, C> runtime;

    /** For subclasses; the runtime is {@link #install installed} before the constructor returns. */
    protected RuntimeBroadcast() {
    }

    /**
     * Hands over the runtime this broadcast delegates to; once, by the subclass constructor, after
     * building the runtime (its observer may call {@link #protocolRuntime()} once started).
     *
     * @throws IllegalStateException if a runtime is installed already
     */
    protected final void install(ProtocolRuntime<M, R, V, C> runtime) {
        Objects.requireNonNull(runtime, "runtime");
        if (this.runtime != null) {
            throw new IllegalStateException("the runtime is installed already");
        }
        this.runtime = runtime;
    }

    /** The runtime (tests: the protocol stage). */
    public final ProtocolRuntime<M, R, V, C> protocolRuntime() {
        return runtime;
    }

    /** The instance name: the {@code protocol} tag of the meters ({@link ProtocolRuntime#name()}). */
    public final String name() {
        return runtime.name();
    }

    /** Starts the runtime; decisions go to {@code listener} on the delivery thread. */
    @Override
    public void start(DeliveryListener listener) {
        runtime.start(listener);
    }

    /** The runtime's read path; the core decides whether it serves reads ({@link ProtocolCore#onReadIndex}). */
    @Override
    public java.util.Optional<dev.parallax.core.spi.ReadIndex> readIndex() {
        return java.util.Optional.of(runtime.reads());
    }

    @Override
    public final boolean propose(ByteBuffer value) {
        return runtime.propose(value);
    }

    @Override
    public final boolean readyForProposal() {
        return runtime.readyForProposal();
    }

    /** The runtime compacts the log below {@code nextSequence} as far as the protocol allows. */
    @Override
    public final void snapshotTaken(long nextSequence) {
        runtime.compact(nextSequence);
    }

    /** No delivery state: the core skips to {@code nextSequence}. */
    @Override
    public void snapshotInstalled(long nextSequence) {
        runtime.skipTo(nextSequence);
    }

    @Override
    public final void close() {
        runtime.close();
    }

    /**
     * What every runtime broadcast is built from, checked by {@link BaseBuilder#parts()}: an
     * immutable value, safe to share.
     *
     * @param config    the protocol's configuration
     * @param self      this replica: {@code 0 .. members - 1}, or up to 31 for a replica a membership change added
     * @param members   the replicas the configuration names
     * @param transport the transport, member {@code self}
     * @param log       the durable log
     * @param clock     the time source
     * @param options   the runtime settings (every default unless set)
     * @param <K>       the protocol's configuration
     * @param <M>       the transport's messages
     */
    public record Parts<K, M>(K config, int self, int members, Transport<M> transport, DurableLog log, Clock clock,
                              RuntimeOptions options) {
        /**
         * The runtime builder with the name, members, clock, meters, threads and bounds of
         * {@link #options}, the transport and the log already set.
         *
         * @param protocolDefault the instance name unless the options name another
         * @param records         the codec of the protocol's log records
         */
        public <R, V, C extends ProtocolCore<M, R, V>> ProtocolRuntime.Builder<M, R, V, C> runtimeBuilder(
                String protocolDefault, RecordCodec<R> records) {
            ProtocolRuntime.Builder<M, R, V, C> rb = options.runtimeBuilder(protocolDefault, self, members, clock);
            return rb.transport(transport).log(log, records);
        }
    }

    /**
     * The setters every runtime broadcast's builder has (config, self, transport, log, clock,
     * options) and their check. Mutable, not thread-safe.
     *
     * @param <K> the protocol's configuration
     * @param <M> the transport's messages
     * @param <B> the concrete builder, returned by every setter
     */
    public abstract static class BaseBuilder<K, M, B extends BaseBuilder<K, M, B>> {
        private final ToIntFunction<K> members;
        private K config;
        private int self = -1;
        private Transport<M> transport;
        private DurableLog log;
        private Clock clock;
        private RuntimeOptions options;

        /** @param members the number of replicas a configuration names */
        protected BaseBuilder(ToIntFunction<K> members) {
            this.members = Objects.requireNonNull(members);
        }

        /** The concrete builder ({@code this}). */
        protected abstract B thisBuilder();

        /** The protocol's configuration; required. */
        public B config(K config) {
            this.config = Objects.requireNonNull(config);
            return thisBuilder();
        }

        /** This replica's id, {@code 0 .. members - 1}; required. */
        public B self(int self) {
            this.self = self;
            return thisBuilder();
        }

        /** The transport of the protocol's messages, member {@code self}; required. */
        public B transport(Transport<M> transport) {
            this.transport = Objects.requireNonNull(transport);
            return thisBuilder();
        }

        /** The protocol's durable log; its records are recovered at start. Required. */
        public B log(DurableLog log) {
            this.log = Objects.requireNonNull(log);
            return thisBuilder();
        }

        /** The time source of the runtime and the core; required. */
        public B clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return thisBuilder();
        }

        /**
         * The runtime settings (name, meter registry, threads, snapshot service, queue bounds);
         * default {@link RuntimeOptions#builder() every default} with the protocol's default name
         * and a private registry.
         */
        public B options(RuntimeOptions options) {
            this.options = Objects.requireNonNull(options);
            return thisBuilder();
        }

        /**
         * The parts set, checked.
         *
         * @throws IllegalArgumentException if a required part is missing or inconsistent
         */
        protected final Parts<K, M> parts() {
            if (config == null || transport == null || log == null || clock == null) {
                throw new IllegalArgumentException("config, transport, log and clock are required");
            }
            int n = members.applyAsInt(config);
            int highest = Math.max(n - 1, ProtocolRuntime.MAX_MEMBER_ID);
            if (self < 0 || self > highest) {
                throw new IllegalArgumentException("self must be 0.." + highest + ", got " + self);
            }
            if (transport.localId() != self) {
                throw new IllegalArgumentException("transport is member " + transport.localId() + ", not " + self);
            }
            RuntimeOptions o = options != null ? options : RuntimeOptions.builder().build();
            return new Parts<>(config, self, n, transport, log, clock, o);
        }
    }
}
