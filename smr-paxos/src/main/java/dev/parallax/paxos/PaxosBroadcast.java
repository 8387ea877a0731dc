package dev.parallax.paxos;

import dev.parallax.core.liveness.FailureDetector;
import dev.parallax.core.liveness.PeerLiveness;
import dev.parallax.core.protocol.ProtocolStage;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.stage.Stage;
import dev.parallax.core.stage.StageRunner;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.stage.WaitStrategy;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@link AtomicBroadcast} by Multi-Paxos: a Protocol stage thread drives the
 * {@link MultiPaxosCore} (messages from the transport, proposals, ticks; effects applied with one
 * log sync per batch), and a delivery stage thread hands decided values to the listener in order,
 * skipping no-ops. Built with {@link #builder}.
 *
 * <p>Back-pressure: {@link #propose} returns {@code false} when the proposal queue is full; when
 * the delivery queue is full (execution slower than ordering) the protocol stage keeps the
 * decisions and starts no new instances, without blocking (see {@link ProtocolStage}); once
 * {@code maxUndelivered} decisions wait it stops taking peer messages too. Peer messages that find
 * the inbox full are dropped and counted; retransmission and catch-up recover them.
 *
 * <p>Failure detection: a {@link FailureDetector} stage on its own thread (parking about a quarter
 * of the heartbeat interval between checks) reads the arrival stamps the transport's IO threads
 * write ({@link PeerLiveness}), applies the core's {@link SuspicionRule}, and hands a suspicion to
 * the protocol stage ({@link ProtocolStage#suspect}). A follower whose protocol thread is busy, or
 * whose inbox is full, therefore does not suspect a leader that keeps sending.
 *
 * <p>Threads: {@link #propose} and {@link #leaderHint} from any thread; {@link #start} and
 * {@link #close} once each, by the owner. The broadcast owns the transport and the log it was
 * given and closes them.
 */
public final class PaxosBroadcast implements AtomicBroadcast {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PaxosBroadcast.class);
    private final PaxosConfig config;
    private final int self;
    private final Transport<PaxosMessage> transport;
    private final DurableLog log;
    private final Clock clock;
    private final WaitStrategy.Factory waitStrategy;
    private final MeterRegistry registry;
    private final BoundedQueue<ProtocolStage.Inbound<PaxosMessage>> inbox;
    private final BoundedQueue<Value> proposals;
    private final BoundedQueue<PaxosMessage.Decided> decisions;
    private final Counter droppedInbound;
    private final int maxUndelivered;
    private final PeerLiveness liveness;
    private final List<StageRunner> runners = new ArrayList<>();
    private final dev.parallax.core.protocol.EffectApplier.SnapshotRequester snapshotRequester;
    private long installedBeforeStart;
    private volatile MultiPaxosCore core;
    private volatile long view = -1;
    /** The view whose leader this replica follows, or -1 while it leads or starts a view: what the detector watches. */
    private volatile long followedView = -1;
    private volatile int leaderHint = -1;
    private volatile int leader;
    private volatile long firstUndecided;
    private volatile int recovering;
    private volatile ProtocolStage<PaxosMessage, PaxosRecord, Value> protocolStage;
    private volatile boolean closed;

    private PaxosBroadcast(Builder b) {
        this.config = b.config;
        this.self = b.self;
        this.transport = b.transport;
        this.log = b.log;
        this.clock = b.clock;
        this.waitStrategy = b.waitStrategy;
        this.registry = b.registry;
        this.snapshotRequester = b.snapshotRequester;
        this.inbox = Queues.mpsc(b.inboxCapacity);
        this.proposals = Queues.mpsc(b.proposalCapacity);
        this.decisions = Queues.spsc(b.decisionCapacity);
        this.maxUndelivered = b.maxUndelivered;
        this.liveness = new PeerLiveness(config.members(), clock);
        this.droppedInbound = Counter.builder("parallax.paxos.inbound.dropped")
                .description("peer messages dropped because the protocol inbox was full")
                .tag("replica", Integer.toString(self)).register(registry);
    }

    /** A builder; config, self, transport, log and clock are required. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public synchronized void start(DeliveryListener listener) {
        Objects.requireNonNull(listener, "listener");
        if (core != null || closed) {
            throw new IllegalStateException("already started or closed");
        }
        PaxosRecordCodec codec = new PaxosRecordCodec();
        List<PaxosRecord> recovered = new ArrayList<>();
        log.read(log.firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(codec.decode(r)));
        boolean amnesiac = log.amnesiaPossible();
        if (amnesiac) {
            LOG.warn("replica {}: the log may have lost promises and votes (unclean stop without forced syncs); "
                    + "recovering from peers before voting", self);
        }
        MultiPaxosCore c = new MultiPaxosCore(config, self, recovered, amnesiac, clock.nanoTime());
        c.detectFailuresExternally();
        boolean[] amnesiaOpen = {amnesiac};
        if (installedBeforeStart > 0) {
            c.skipTo(installedBeforeStart);
        }
        core = c;
        ProtocolStage<PaxosMessage, PaxosRecord, Value> protocol = new ProtocolStage<>(
                "paxos-protocol-" + self, self, c, inbox, proposals, log, codec, transport,
                (instance, value) -> decisions.offer(new PaxosMessage.Decided(instance, value)),
                snapshotRequester,
                clock, Math.min(config.heartbeatNanos(), config.retransmitNanos()) / 2, 256, maxUndelivered);
        protocolStage = protocol;
        protocol.registerMeters(registry, "multi-paxos");
        String replica = Integer.toString(self);
        io.micrometer.core.instrument.Gauge.builder("parallax.paxos.view", this, b -> b.view)
                .tag("replica", replica).register(registry);
        io.micrometer.core.instrument.Gauge.builder("parallax.paxos.leader", this, b -> b.leader)
                .description("1 while this replica leads its view").tag("replica", replica).register(registry);
        io.micrometer.core.instrument.Gauge.builder("parallax.paxos.first.undecided", this, b -> b.firstUndecided)
                .tag("replica", replica).register(registry);
        recovering = c.recovering() ? 1 : 0;
        io.micrometer.core.instrument.Gauge.builder("parallax.paxos.recovering", this, b -> b.recovering)
                .description("1 while this replica recovers from amnesia (does not vote)").tag("replica", replica)
                .register(registry);
        Counter viewChanges = Counter.builder("parallax.paxos.view.changes").tag("replica", replica).register(registry);
        protocol.afterWork(() -> {
            long v = c.view();
            if (v != view) {
                view = v;
                viewChanges.increment();
                LOG.info(
                        "replica {}: now in view {} (leader: replica {}{})", self, v, config.leaderOf(v),
                        c.isLeader() ? ", this one" : "");
            }
            followedView = c.isFollowing() ? v : -1;
            leaderHint = c.leaderHint();
            leader = c.isLeader() ? 1 : 0;
            firstUndecided = c.firstUndecided();
            if (amnesiaOpen[0] && !c.recovering()) {
                // The recovered state was persisted and synced in the work just done.
                amnesiaOpen[0] = false;
                recovering = 0;
                log.amnesiaResolved();
                LOG.info("replica {}: recovered from amnesia in view {}; voting again", self, v);
            }
        });
        FailureDetector detector = new FailureDetector("paxos-fd-" + self, self, liveness,
                new SuspicionRule(config, self), () -> followedView, protocol::suspect, clock);
        io.micrometer.core.instrument.FunctionCounter.builder("parallax.paxos.suspicions", detector,
                        FailureDetector::suspicions)
                .description("views whose leader this replica's failure detector suspected")
                .tag("replica", replica).register(registry);
        Stage delivery = new DeliveryStage("paxos-delivery-" + self, decisions, listener);
        runners.add(runner(delivery));
        runners.add(runner(protocol));
        runners.add(StageRunner.builder(detector).waitStrategy(WaitStrategies.park(detectorPeriod(config)))
                .clock(clock).meterRegistry(registry).build());
        transport.start((from, m) -> {
            if (!inbox.offer(new ProtocolStage.Inbound<>(from, m))) {
                droppedInbound.increment();
            }
        }, liveness);
        runners.forEach(StageRunner::start);
    }

    /** How long the detector parks between checks: a quarter heartbeat, at least 100 µs. */
    static long detectorPeriod(PaxosConfig config) {
        return Math.max(config.heartbeatNanos() / 4, 100_000L);
    }

    private StageRunner runner(Stage stage) {
        return StageRunner.builder(stage).waitStrategy(waitStrategy).clock(clock).meterRegistry(registry).build();
    }

    @Override
    public boolean propose(ByteBuffer value) {
        if (core == null || closed) {
            throw new IllegalStateException("not started or closed");
        }
        return proposals.offer(Value.of(value));
    }

    @Override
    public void snapshotTaken(long nextSequence) {
        ProtocolStage<PaxosMessage, PaxosRecord, Value> p = protocolStage;
        if (p != null) {
            p.compact(nextSequence);
        }
    }

    @Override
    public synchronized void snapshotInstalled(long nextSequence) {
        ProtocolStage<PaxosMessage, PaxosRecord, Value> p = protocolStage;
        if (p == null) {
            installedBeforeStart = Math.max(installedBeforeStart, nextSequence);
        } else {
            p.skipTo(nextSequence);
        }
    }

    @Override
    public boolean readyForProposal() {
        ProtocolStage<PaxosMessage, PaxosRecord, Value> p = protocolStage;
        return p != null && p.readyForProposal();
    }

    /** The leader this replica believes in, as the protocol thread last published it; -1 before start. */
    @Override
    public int leaderHint() {
        return leaderHint;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        transport.close();
        for (int i = runners.size() - 1; i >= 0; i--) {
            runners.get(i).close();
        }
        log.close();
    }

    /** Hands decided values to the listener in order, skipping no-ops. */
    private static final class DeliveryStage implements Stage {
        private final String name;
        private final BoundedQueue<PaxosMessage.Decided> queue;
        private final DeliveryListener listener;

        DeliveryStage(String name, BoundedQueue<PaxosMessage.Decided> queue, DeliveryListener listener) {
            this.name = name;
            this.queue = queue;
            this.listener = listener;
        }

        @Override
        public int doWork() {
            return queue.drain(this::deliver, 256);
        }

        private void deliver(PaxosMessage.Decided d) {
            if (d.value().isNoop()) {
                return;
            }
            try {
                listener.deliver(d.instance(), d.value().bytes());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public List<? extends BoundedQueue<?>> inputQueues() {
            return List.of(queue);
        }
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
        private dev.parallax.core.protocol.EffectApplier.SnapshotRequester snapshotRequester = (peer, instance) -> { };

        private Builder() {
        }

        /** Told when this replica needs a peer's snapshot; default ignores it (no snapshots). */
        public Builder snapshotRequester(dev.parallax.core.protocol.EffectApplier.SnapshotRequester r) {
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
