package dev.parallax.core.runtime;

import dev.parallax.core.config.Names;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.protocol.ProtocolStage;
import dev.parallax.core.protocol.SafetyAlarm;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.stage.WaitStrategy;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.Objects;

/**
 * The settings every ordering protocol's broadcast passes to its {@link ProtocolRuntime} and that
 * are not the protocol's own: the instance name, where meters go, the threads, how idle threads
 * wait, the snapshot service, the safety alarm hook and the bounds of the runtime's queues. One value shared by
 * Multi-Paxos, S-Paxos and Ring Paxos broadcasts, so that a setting and its default are stated
 * once.
 *
 * <p>Defaults (see {@link Builder}): the protocol's own name; a private
 * {@link SimpleMeterRegistry}; one thread per stage ({@link ThreadPlacement#STAGED}) waiting
 * yield-then-park, built for the broadcast; {@link SnapshotRequester#NONE}; inbox 8192 peer
 * messages, 20 proposals (seed 000 (JPaxos staged replica) §V-E ProposalQueue), 1024 decisions
 * waiting for the listener, {@link ProtocolStage#DEFAULT_MAX_UNDELIVERED} decisions kept while the
 * listener lags. {@link #forReplica} takes the replica's threads, registry, snapshot service, safety alarm and
 * queue capacities instead.
 *
 * <p>Immutable and thread-safe; the registry, threads and requester it names are shared, not
 * copied.
 */
public final class RuntimeOptions {
    /** Default {@link Builder#inboxCapacity}: 8192 peer messages. */
    public static final int DEFAULT_INBOX_CAPACITY = 8192;
    /** Default {@link Builder#proposalCapacity}: 20 proposals (seed 000 (JPaxos staged replica) §V-E). */
    public static final int DEFAULT_PROPOSAL_CAPACITY = 20;
    /** Default {@link Builder#decisionCapacity}: 1024 decided values. */
    public static final int DEFAULT_DECISION_CAPACITY = 1024;

    private final String name;
    private final MeterRegistry meterRegistry;
    private final StageThreads threads;
    private final WaitStrategy.Factory waitStrategy;
    private final SnapshotRequester snapshotRequester;
    private final SafetyAlarm safetyAlarm;
    private final int inboxCapacity;
    private final int proposalCapacity;
    private final int decisionCapacity;
    private final int maxUndelivered;

    private RuntimeOptions(Builder b) {
        this.name = b.name;
        this.meterRegistry = b.meterRegistry != null ? b.meterRegistry : new SimpleMeterRegistry();
        this.threads = b.threads;
        this.waitStrategy = b.waitStrategy;
        this.snapshotRequester = b.snapshotRequester;
        this.safetyAlarm = b.safetyAlarm;
        this.inboxCapacity = b.inboxCapacity;
        this.proposalCapacity = b.proposalCapacity;
        this.decisionCapacity = b.decisionCapacity;
        this.maxUndelivered = b.maxUndelivered;
    }

    /**
     * A builder with every default. Each {@link Builder#build} without a registry makes its own
     * private one, so two broadcasts built from one options value share that registry.
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder with the replica's settings: its stage placement, meter registry, snapshot service
     * and proposal and decision queue capacities ({@code ReplicaConfig}); the rest default.
     */
    public static Builder forReplica(OrderingContext context) {
        return builder().threads(context.stageThreads()).meterRegistry(context.meterRegistry())
                .snapshotRequester(context.snapshotRequester()).safetyAlarm(context.safetyAlarm())
                .proposalCapacity(context.config().proposalQueueCapacity())
                .decisionCapacity(context.config().decisionQueueCapacity());
    }

    /** A builder holding these options, to change some. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.name = name;
        b.meterRegistry = meterRegistry;
        b.threads = threads;
        b.waitStrategy = waitStrategy;
        b.snapshotRequester = snapshotRequester;
        b.safetyAlarm = safetyAlarm;
        b.inboxCapacity = inboxCapacity;
        b.proposalCapacity = proposalCapacity;
        b.decisionCapacity = decisionCapacity;
        b.maxUndelivered = maxUndelivered;
        return b;
    }

    /** The instance name set, or {@code protocolDefault} if none was. */
    public String name(String protocolDefault) {
        return name != null ? name : Names.check("protocol", protocolDefault);
    }

    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** The threads set, or null: the broadcast builds its own ({@link #waitStrategy}). */
    public StageThreads threads() {
        return threads;
    }

    public WaitStrategy.Factory waitStrategy() {
        return waitStrategy;
    }

    public SnapshotRequester snapshotRequester() {
        return snapshotRequester;
    }

    /** The replica's stop-serving hook for a safety alarm ({@link SafetyAlarm#NONE} if none). */
    public SafetyAlarm safetyAlarm() {
        return safetyAlarm;
    }

    public int inboxCapacity() {
        return inboxCapacity;
    }

    public int proposalCapacity() {
        return proposalCapacity;
    }

    public int decisionCapacity() {
        return decisionCapacity;
    }

    public int maxUndelivered() {
        return maxUndelivered;
    }

    /**
     * A runtime builder carrying these options: named {@link #name(String) name(protocolDefault)},
     * for member {@code self} of {@code members}, on {@code clock}; the protocol adds transport,
     * log, core, values and its own hooks. Without {@link #threads} the stages get one thread each,
     * waiting by {@link #waitStrategy}, stopped when the runtime closes its stages.
     */
    public <M, R, V, C extends ProtocolCore<M, R, V>> ProtocolRuntime.Builder<M, R, V, C> runtimeBuilder(
            String protocolDefault, int self, int members, Clock clock) {
        Objects.requireNonNull(clock, "clock");
        ProtocolRuntime.Builder<M, R, V, C> rb = ProtocolRuntime.builder(name(protocolDefault));
        rb.members(self, members).clock(clock).meterRegistry(meterRegistry).snapshotRequester(snapshotRequester)
                .safetyAlarm(safetyAlarm).inboxCapacity(inboxCapacity).proposalCapacity(proposalCapacity).decisionCapacity(decisionCapacity)
                .maxUndelivered(maxUndelivered);
        rb.threads(threads != null ? threads
                : StageThreads.builder(ThreadPlacement.STAGED).waitStrategy(waitStrategy).clock(clock)
                        .meterRegistry(meterRegistry).build());
        return rb;
    }

    @Override
    public String toString() {
        return "RuntimeOptions[name=" + name + ", threads=" + (threads != null ? threads.placement() : "own")
                + ", inbox=" + inboxCapacity + ", proposals=" + proposalCapacity + ", decisions=" + decisionCapacity
                + ", maxUndelivered=" + maxUndelivered + "]";
    }

    /** Mutable builder, not thread-safe; every setter checks its argument at once. */
    public static final class Builder {
        private String name;
        private MeterRegistry meterRegistry;
        private StageThreads threads;
        private WaitStrategy.Factory waitStrategy = WaitStrategies.yieldPark();
        private SnapshotRequester snapshotRequester = SnapshotRequester.NONE;
        private SafetyAlarm safetyAlarm = SafetyAlarm.NONE;
        private int inboxCapacity = DEFAULT_INBOX_CAPACITY;
        private int proposalCapacity = DEFAULT_PROPOSAL_CAPACITY;
        private int decisionCapacity = DEFAULT_DECISION_CAPACITY;
        private int maxUndelivered = ProtocolStage.DEFAULT_MAX_UNDELIVERED;

        private Builder() {
        }

        /**
         * The instance's name: the {@code protocol} tag of its meters and the prefix of its stage
         * names; default the protocol's own ({@code paxos}, {@code spaxos}, ...). Several instances
         * of one protocol in a process need distinct names.
         *
         * @param name 1..64 characters of {@code [a-z0-9.-]}
         */
        public Builder name(String name) {
            this.name = Names.check("protocol", name);
            return this;
        }

        /** Where stage and protocol meters go; default a private simple registry. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * The threads the stages run on (the replica's placement); default one thread per stage
         * with the {@link #waitStrategy}, built for the broadcast.
         */
        public Builder threads(StageThreads threads) {
            this.threads = Objects.requireNonNull(threads, "threads");
            return this;
        }

        /** How idle stage threads wait when the broadcast builds its own; default yield-then-park. */
        public Builder waitStrategy(WaitStrategy.Factory factory) {
            this.waitStrategy = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** Told when this replica needs a peer's snapshot; default ignores it (no snapshots). */
        public Builder snapshotRequester(SnapshotRequester requester) {
            this.snapshotRequester = Objects.requireNonNull(requester, "requester");
            return this;
        }

        /**
         * Told when a core reports a safety violation: the replica's stop-serving hook; default
         * {@link SafetyAlarm#NONE} (the protocol stage still stops, counts and logs).
         */
        public Builder safetyAlarm(SafetyAlarm alarm) {
            this.safetyAlarm = Objects.requireNonNull(alarm, "alarm");
            return this;
        }

        /** Peer messages waiting for the protocol thread; default {@value #DEFAULT_INBOX_CAPACITY}. */
        public Builder inboxCapacity(int n) {
            this.inboxCapacity = positive("inboxCapacity", n);
            return this;
        }

        /** Proposals waiting for the core; default {@value #DEFAULT_PROPOSAL_CAPACITY} (seed 000 §V-E ProposalQueue). */
        public Builder proposalCapacity(int n) {
            this.proposalCapacity = positive("proposalCapacity", n);
            return this;
        }

        /** Decided values waiting for the listener; default {@value #DEFAULT_DECISION_CAPACITY}. */
        public Builder decisionCapacity(int n) {
            this.decisionCapacity = positive("decisionCapacity", n);
            return this;
        }

        /**
         * Decisions the protocol stage keeps while the listener lags (the decision queue is full)
         * before it stops taking peer messages; default {@link ProtocolStage#DEFAULT_MAX_UNDELIVERED}.
         */
        public Builder maxUndelivered(int n) {
            this.maxUndelivered = positive("maxUndelivered", n);
            return this;
        }

        public RuntimeOptions build() {
            return new RuntimeOptions(this);
        }

        private static int positive(String what, int n) {
            if (n <= 0) {
                throw new IllegalArgumentException(what + " must be positive, got " + n);
            }
            return n;
        }
    }
}
