package dev.parallax.core.replica;

import dev.parallax.core.session.ClientSessions;

import dev.parallax.core.Command;
import dev.parallax.core.StateMachine;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.config.Names;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.log.ChronicleDurableLog;
import dev.parallax.core.log.ChronicleLogOptions;
import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.net.FaultInjectingTransport;
import dev.parallax.core.net.LinkFaults;
import dev.parallax.core.net.DatagramPort;
import dev.parallax.core.runtime.DatagramGroupConfig;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.net.ReplicaPort;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.stage.StageHandle;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.wire.NetMetrics;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.WorkerExecutor;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.ReplicaBoundExecutor;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.parallax.core.snapshot.SnapshotStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.Objects;

/**
 * One replica of a replicated state machine: the staged pipeline of seed 000 §V around a pluggable
 * ordering protocol and executor.
 *
 * <pre>
 * clients ─TCP─► ClientIO (k event loops) ─MPSC RequestQueue─► Batcher ─► ordering protocol stages
 *    ▲                                                                        │ decided batches, in order
 *    └── per-event-loop reply outbox ◄── ServiceManager (sessions, executor) ◄┘
 * </pre>
 *
 * <p>Threads: {@link #start} and {@link #close} from the owner, once each; the getters from any
 * thread. Closing stops every thread the replica started.
 */
public final class Replica implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Replica.class);

    private final ReplicaConfig config;
    private final StateMachine stateMachine;
    private final OrderingProtocol ordering;
    private final Executor executor;
    private final MeterRegistry registry;
    private final Clock clock;
    private static final int DEFAULT_BATCH_BYTES = 1300;
    private static final Duration DEFAULT_BATCH_TIMEOUT = Duration.ofMillis(1);
    private final Duration batchTimeout;
    private final int batchBytes;
    private final int replyWindow;
    private final int maxSessions;
    private final LinkFaults faults;
    private volatile AtomicBroadcast broadcast;
    private ClientIO clientIO;
    /** The stages this replica runs itself (the batcher, the query path); closed with it. */
    private final java.util.List<StageHandle> ownStages = new java.util.concurrent.CopyOnWriteArrayList<>();
    private StageThreads stageThreads;
    private ReplicaPort port;
    /** Datagram groups the protocol opened ({@link OrderingContext#datagramGroup}); closed with the replica. */
    private final java.util.List<DatagramPort<?>> datagramGroups = new java.util.ArrayList<>();
    private final java.util.Set<String> logNames = new java.util.HashSet<>();
    private volatile ServiceManager serviceManager;
    private final CompletableFuture<Throwable> failStopped = new CompletableFuture<>();
    /** Set once by the first safety alarm: why this replica stopped serving. */
    private final java.util.concurrent.atomic.AtomicReference<Throwable> safetyStop = new java.util.concurrent.atomic.AtomicReference<>();
    private SnapshotTransfer transfer;
    private SnapshotServer snapshotServer;
    private final long snapshotEvery;
    private final boolean bootstrap;
    private int clientPort = -1;
    private boolean started;
    private volatile boolean closed;

    private Replica(Builder b) {
        this.config = b.config;
        this.stateMachine = b.stateMachine;
        this.ordering = b.ordering;
        this.executor = b.executor;
        this.registry = b.registry;
        this.clock = b.clock;
        this.batchTimeout = b.batchTimeout != null ? b.batchTimeout
                : b.ordering.batchTimeoutNanos() >= 0 ? Duration.ofNanos(b.ordering.batchTimeoutNanos()) : DEFAULT_BATCH_TIMEOUT;
        this.batchBytes = b.batchBytes > 0 ? b.batchBytes
                : b.ordering.batchBytes() > 0 ? b.ordering.batchBytes() : DEFAULT_BATCH_BYTES;
        this.replyWindow = b.replyWindow;
        this.maxSessions = b.maxSessions;
        this.faults = b.faults;
        this.snapshotEvery = b.snapshotEvery;
        this.bootstrap = b.bootstrap;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts every stage and opens the replica and client ports.
     *
     * @throws IllegalStateException    if already started, or a port cannot be bound, or (nothing
     *                                  started) it keeps snapshots with {@code tls.replica=required},
     *                                  {@code tls.client=off} and no {@code cluster.secret}
     * @throws IllegalArgumentException if TLS is on and a file it names cannot be loaded (nothing started)
     */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        started = true;
        // Checked before anything starts: a replica that could not authenticate its snapshots fails the start cleanly.
        SnapshotAuthenticator snapshotAuth = SnapshotAuthenticator.forReplica(config);
        // TLS files are loaded before anything starts, so a missing or malformed one fails the start cleanly.
        TlsContexts tls = config.tls().enabled() ? TlsContexts.load(config.tls()) : null;
        TlsContexts clientTls = config.tls().clientPorts() ? tls : null;
        stageThreads = ReplicaStageThreads.create(config, executor, clock, registry);
        port = new ReplicaPort(config, registry, stageThreads, clock);
        broadcast = ordering.create(new Context());
        if (executor instanceof ReplicaBoundExecutor bound) {
            bound.bind(new Context()); // S-SMR (seed 004): the executor's own channel and log on this replica
        }
        // P-SMR (seed 003 ch. 6): an executor that can run per worker over a broadcast that delivers per worker.
        WorkerExecutor perWorker = executor instanceof WorkerExecutor w && broadcast.deliversPerWorker() ? w : null;
        ClientSessions[] sessions = new ClientSessions[perWorker == null ? 1 : perWorker.workers()];
        for (int i = 0; i < sessions.length; i++) {
            sessions[i] = new ClientSessions(replyWindow, maxSessions);
        }
        ReplyRouter router = new ReplyRouter(new ClientLatency(registry, config.id(), clock));
        CommitSampler commits = new CommitSampler(registry, config.id(), ordering.name(), clock);
        ReplicaMeters.hasLeader(registry, config.id(), () -> broadcast.leaderKnown());
        ReplicaMeters.executed(registry, config.id(), this::executedBelow);
        SnapshotStore store = config.dataDirectory().map(d -> new SnapshotStore(d.resolve("snapshots"))).orElse(null);
        serviceManager = new ServiceManager(sessions, executor, perWorker, router, registry, config.id(), stateMachine, store,
                snapshotEvery, config.snapshotLogBytes());
        serviceManager.broadcast(broadcast);
        serviceManager.failStop(this::stopAfterFatalError);
        if (perWorker != null) {
            perWorker.startPerWorker(stateMachine, serviceManager, serviceManager.lanes());
        } else {
            if (executor instanceof WorkerExecutor) {
                LOG.warn("replica {}: the {} ordering delivers one total order, so the per-worker executor runs behind "
                        + "one dispatching thread (sP-SMR's shape); multi-ring delivers per worker", config.id(), ordering.name());
            }
            executor.start(stateMachine, serviceManager);
        }
        if (store != null) {
            transfer = new SnapshotTransfer(config.id(), config.clientMembers(), store, serviceManager::install,
                    config.snapshotTransferTimeout(), config.snapshotMaxBytes(), config.maxFrameBytes(), registry, clientTls,
                    snapshotAuth);
            // A replica added at run time serves snapshots on its client port: its replica port + 1000.
            transfer.joinedPeers(id -> {
                dev.parallax.core.config.Member at = port.addedMember(id);
                return at == null ? null : ReplicaConfig.joinedClientAddress(at);
            });
            restoreLatest(store);
        }
        QueryPath reads = new QueryPath(config.id(), broadcast.readIndex(), serviceManager, QueryPath.MAX_IN_FLIGHT, registry, clock);
        if (perWorker != null) {
            broadcast.startPerWorker(perWorker.workers(), perWorker::workersOf, commits.around(serviceManager.lanes()));
        } else {
            broadcast.start(commits.around(serviceManager));
        }
        ownStages.add(stageThreads.run(reads));
        BoundedQueue<Command> requests = Queues.mpsc(config.requestQueueCapacity());
        ownStages.add(stageThreads.run(new BatcherStage("batcher-" + config.id(), requests,
                lane -> new BatchBuilder(batchBytes, batchTimeout.toNanos()), broadcast, clock, commits)));
        clientIO = new ClientIO(config, requests, broadcast::redirectHint, router, reads, new NetMetrics(registry, "client"),
                router.latency());
        snapshotServer = new SnapshotServer(config.id(), store, registry, config.clusterSecret().map(SnapshotAuthenticator::new).orElse(null));
        clientIO.serveSnapshots(snapshotServer);
        clientPort = clientIO.start();
        clientIO.registerMeters(registry);
        LOG.info("replica {} started: {} ordering, {} threads, replica port {}, client port {}", config.id(), ordering.name(),
                stageThreads.placement().configName(), config.self().port(), clientPort);
    }

    private void restoreLatest(SnapshotStore store) {
        Optional<SnapshotStore.Snapshot> latest = store.latest();
        if (latest.isPresent()) {
            try {
                serviceManager.install(latest.get());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot restore snapshot " + latest.get().file(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while restoring a snapshot", e);
            }
        }
    }

    /** The port clients connect to (the bound one, if the configuration said 0). */
    public int clientPort() {
        return clientPort;
    }

    public ReplicaConfig config() {
        return config;
    }

    /** BSZ in effect: the explicit {@code batching} setting, else the ordering protocol's, else 1300 B. */
    public int batchBytes() {
        return batchBytes;
    }

    /** The batch time-out in effect (chosen like {@link #batchBytes()}). */
    public Duration batchTimeout() {
        return batchTimeout;
    }

    /** The replica this one believes leads ordering, or -1 (none known, or a leaderless protocol). */
    public int leaderHint() {
        AtomicBroadcast b = broadcast;
        return b == null ? -1 : b.leaderHint();
    }

    public MeterRegistry meterRegistry() {
        return registry;
    }

    /** The ordering protocol's name ({@code multi-paxos}, {@code m-ring}, ...). */
    public String orderingName() {
        return ordering.name();
    }

    /**
     * The operator's control of the group's membership, when the ordering can change its members
     * at run time (its broadcast implements {@link dev.parallax.core.spi.MembershipAdmin}); empty
     * otherwise, and before {@link #start}. Any thread, non-blocking.
     */
    public Optional<dev.parallax.core.spi.MembershipAdmin> membershipAdmin() {
        return broadcast == null ? Optional.empty() : broadcast.membership();
    }

    /**
     * Every decided position below this one has been executed here (the last executed position
     * plus one; 0 before the first, or before {@link #start}). Any thread, non-blocking.
     */
    public long executedBelow() {
        ServiceManager sm = serviceManager;
        return sm == null ? 0 : sm.executedBelow();
    }

    /**
     * Asks for a snapshot now: the delivery thread takes it at its next safe point, after the next
     * decided batch it executes (as when {@code snapshot.every} comes due; a write in flight
     * defers it), then the ordering may compact its log. Watch {@code parallax.snapshots.taken}.
     * Any thread; returns at once. An idle replica takes it at its next delivery.
     *
     * @throws IllegalStateException if the replica is not running, keeps no snapshots (no data
     *                               directory) or executes per worker (P-SMR), with the reason
     */
    public void requestSnapshot() {
        ServiceManager sm = serviceManager;
        if (sm == null || closed) {
            throw new IllegalStateException("replica " + config.id() + " is not running");
        }
        sm.requestSnapshot();
    }

    /**
     * The error from the state machine that stopped this replica (it then closes itself, like a
     * crashed replica: see docs/executors.md, "Errors"), or the {@link SafetyAlarmException} of a
     * safety alarm (two different decisions for one instance: it then closes itself too, see
     * docs/operations.md, "Safety alarm"), or empty while it is healthy. Any thread.
     */
    public Optional<Throwable> failure() {
        Throwable alarm = safetyStop.get();
        if (alarm != null) {
            return Optional.of(alarm);
        }
        ServiceManager sm = serviceManager;
        return Optional.ofNullable(sm == null ? null : sm.failure());
    }

    /**
     * Completes with the fatal error once a state-machine {@code Error} or a safety alarm has
     * stopped this replica and it has closed itself (see {@link #failure()}); never completes for a
     * healthy replica.
     * Callbacks run on the replica's fail-stop thread and must not block. Any thread.
     */
    public CompletableFuture<Throwable> failStopped() {
        return failStopped;
    }

    /**
     * The safety alarm hook (protocol thread): the protocol stage has already stopped its core; this
     * replica stops serving clients and executing, by closing itself as after a fatal error, so it
     * never answers from state that may have diverged. Only the first alarm acts.
     */
    private void safetyAlarm(dev.parallax.core.protocol.SafetyViolation violation) {
        SafetyAlarmException stop = new SafetyAlarmException(violation);
        if (!safetyStop.compareAndSet(null, stop)) {
            return;
        }
        LOG.error("replica {}: SAFETY ALARM: {}; this replica stops serving clients and executing rather than diverge "
                + "(an operator restores it from a healthy replica's snapshot and finds the faulty or forged sender)",
                config.id(), violation.describe());
        ServiceManager sm = serviceManager;
        if (sm != null) {
            sm.stopOnSafetyAlarm(stop); // executes nothing more; parallax.replica.healthy reads 0
        }
        stopAfterFatalError();
    }

    /** Closes the replica on a thread of its own: the failing thread may be one close() joins. */
    private void stopAfterFatalError() {
        Thread t = StageThreads.newThread("parallax-fail-stop-" + config.id(), true, () -> {
            close();
            failStopped.complete(failure().orElseThrow());
        });
        t.start();
    }

    @Override
    public synchronized void close() {
        if (closed || !started) {
            closed = true;
            return;
        }
        closed = true;
        if (clientIO != null) {
            clientIO.close();
        }
        ownStages.forEach(StageHandle::close);
        if (serviceManager != null && serviceManager.lanes() != null) {
            serviceManager.lanes().stopping(); // per-worker lanes released by the closing streams return quietly
        }
        if (broadcast != null) {
            broadcast.close();
        }
        if (serviceManager != null) {
            serviceManager.close(); // delivery has stopped: abandon a snapshot write in flight
        }
        if (port != null) {
            port.close();
        }
        synchronized (datagramGroups) {
            datagramGroups.forEach(DatagramPort::close);
        }
        if (transfer != null) {
            transfer.close();
        }
        if (snapshotServer != null) {
            snapshotServer.close();
        }
        executor.close();
        if (stageThreads != null) {
            stageThreads.close();
        }
        LOG.info("replica {} stopped", config.id());
    }

    private final class Context implements OrderingContext {

        @Override
        public ReplicaConfig config() {
            return config;
        }

        @Override
        public <M> Transport<M> transport(String channel, MessageCodec<M> codec) {
            Transport<M> t = port.channel(channel, codec);
            return faults == null ? t : new FaultInjectingTransport<>(t, faults);
        }

        /**
         * A {@link DatagramPort} on the replica's stage threads, closed with the replica; with link
         * faults, inbound cuts drop a blocked peer's datagrams too.
         */
        @Override
        public <M> Transport<M> datagramGroup(String channel, MessageCodec<M> codec, DatagramGroupConfig group) {
            synchronized (datagramGroups) {
                Names.check("channel", channel);
                for (DatagramPort<?> p : datagramGroups) {
                    if (p.channel().equals(channel)) {
                        throw new IllegalArgumentException("datagram group '" + channel + "' is already open");
                    }
                }
                DatagramPort<M> p = new DatagramPort<>(config, channel, codec, group, registry, stageThreads, clock);
                datagramGroups.add(p);
                return faults == null ? p : new FaultInjectingTransport<>(p, faults);
            }
        }

        @Override
        public DurableLog durableLog(String name) {
            synchronized (logNames) {
                Names.check("log", name);
                if (name.startsWith(".") || name.equals("snapshots") || !logNames.add(name)) {
                    throw new IllegalArgumentException("log '" + name + "' is already open, names the snapshot directory "
                            + "or starts with '.'");
                }
            }
            if (config.dataDirectory().isEmpty()) {
                LOG.warn("replica {}: no data directory: log '{}' is kept in memory and lost on a crash", config.id(), name);
                return InMemoryDurableLog.create();
            }
            return ChronicleDurableLog.open(config.dataDirectory().get().resolve(name),
                    ChronicleLogOptions.defaults().withSyncPolicy(config.logSync()).withEmptyDirectory(
                            bootstrap ? ChronicleLogOptions.EmptyDirectory.NEW : ChronicleLogOptions.EmptyDirectory.LOST)
                            .withForceObserver(ReplicaMeters.fsync(registry, config.id(), name)));
        }

        @Override
        public StageThreads stageThreads() {
            return stageThreads;
        }

        @Override
        public Clock clock() {
            return clock;
        }

        @Override
        public MeterRegistry meterRegistry() {
            return registry;
        }

        @Override
        public dev.parallax.core.protocol.SafetyAlarm safetyAlarm() {
            return Replica.this::safetyAlarm;
        }

        @Override
        public dev.parallax.core.spi.SnapshotRequester snapshotRequester() {
            return (peer, instance) -> {
                SnapshotTransfer t = transfer;
                if (t != null) {
                    t.fetch(peer, instance);
                } else {
                    LOG.error("replica {} needs a snapshot from replica {} but has no data directory to keep one", config.id(), peer);
                }
            };
        }
    }

    /** Mutable builder, not thread-safe. */
    public static final class Builder {
        private ReplicaConfig config;
        private StateMachine stateMachine;
        private OrderingProtocol ordering;
        private Executor executor = new SequentialExecutor();
        private MeterRegistry registry = new SimpleMeterRegistry();
        private Clock clock = SystemClock.INSTANCE;
        private Duration batchTimeout;
        private int batchBytes;
        private int replyWindow = 1024;
        private int maxSessions = 100_000;
        private LinkFaults faults;
        private long snapshotEvery = 10_000;
        private boolean bootstrap;

        private Builder() {
        }

        /**
         * Whether this is the first start of this replica in a brand-new cluster; default false.
         * Only with a data directory: a log directory there that is empty and was never used
         * (see {@code ChronicleLogOptions.EmptyDirectory}) is then a new log. Without it, such a
         * directory is taken for a wiped or missing one where the cluster has history: the
         * protocol recovers its state from its peers before it votes (amnesia recovery), which
         * needs answers from {@code n - quorum + 1} peers. A brand-new cluster whose replicas are
         * all started without it therefore never starts voting; pass it on the first start only
         * (docs/operations.md, "A wiped or missing data directory"). Ignored for a directory that
         * holds a log.
         */
        public Builder bootstrap(boolean firstStart) {
            this.bootstrap = firstStart;
            return this;
        }

        /**
         * Take a snapshot (and compact the protocol's log) every {@code instances} decided
         * positions; default 10,000. Only with a data directory.
         */
        public Builder snapshotEvery(long instances) {
            if (instances < 1) {
                throw new IllegalArgumentException("snapshotEvery must be >= 1");
            }
            this.snapshotEvery = instances;
            return this;
        }

        /** Lets tests and chaos runs cut this replica's links to peers at run time; default none. */
        public Builder linkFaults(LinkFaults faults) {
            this.faults = faults;
            return this;
        }

        /**
         * Replica {@code id} of the cluster a cluster file describes: its {@link ReplicaConfig},
         * the ordering protocol the file names (built by the protocol's module from its own keys)
         * and {@code snapshot.every}. The state machine, and an executor other than the
         * sequential one, are still to be set.
         *
         * @throws IllegalArgumentException naming the file and the faulty key, or if {@code id} is
         *                                  not a member
         */
        public Builder cluster(dev.parallax.core.runtime.ClusterConfig cluster, int id) {
            config(cluster.replica(id));
            ordering(cluster.orderingProtocol());
            cluster.snapshotEvery().ifPresent(this::snapshotEvery);
            return this;
        }

        /** Required. */
        public Builder config(ReplicaConfig config) {
            this.config = config;
            return this;
        }

        /** Required: the service. */
        public Builder stateMachine(StateMachine stateMachine) {
            this.stateMachine = stateMachine;
            return this;
        }

        /** Required: the ordering protocol, e.g. {@code MultiPaxos.protocol(paxosConfig)}. */
        public Builder ordering(OrderingProtocol ordering) {
            this.ordering = ordering;
            return this;
        }

        /** How commands execute; default {@link SequentialExecutor}. */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor);
            return this;
        }

        /** Where meters go; default a private simple registry. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry);
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /**
         * Batch policy: BSZ in bytes and time-out. Default: what the ordering protocol's configuration
         * asks for ({@code PaxosConfig.batchBytes/batchTimeout}), else 1300 B and 1 ms.
         */
        public Builder batching(int bytes, Duration timeout) {
            if (bytes < 64 || timeout.isNegative()) {
                throw new IllegalArgumentException("batch size must be >= 64 bytes and timeout >= 0");
            }
            this.batchBytes = bytes;
            this.batchTimeout = timeout;
            return this;
        }

        /**
         * Replies kept per client for retries: at least a client's most commands in flight
         * (default 1024); and the most client sessions kept (default 100,000, least recently used
         * evicted).
         */
        public Builder sessions(int replyWindow, int maxSessions) {
            if (replyWindow < 1 || maxSessions < 1) {
                throw new IllegalArgumentException("replyWindow and maxSessions must be positive");
            }
            this.replyWindow = replyWindow;
            this.maxSessions = maxSessions;
            return this;
        }

        /** @throws IllegalArgumentException if a required part is missing */
        public Replica build() {
            if (config == null || stateMachine == null || ordering == null) {
                throw new IllegalArgumentException("config, stateMachine and ordering are required");
            }
            return new Replica(this);
        }
    }
}
