package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.replica.Replica;
import dev.parallax.examples.kv.KvPartition;
import dev.parallax.examples.kv.KvStateMachine;
import dev.parallax.examples.kv.RespServer;
import dev.parallax.examples.kv.RespServerConfig;
import dev.parallax.examples.volery.VoleryPartition;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code parallax replica --config FILE --id N}: runs one replica of the file's service — the
 * key-value store with its RESP front end if the file names one ({@code redis=}), or Volery
 * ({@code service=volery}, seed 004 (S-SMR)) with its ZooKeeper-protocol front end
 * ({@code zookeeper=}) — until the process is stopped (SIGTERM, Ctrl-C; a replica that leads
 * Multi-Paxos or S-Paxos first hands its leadership to the best caught-up voter, waiting at most
 * {@code shutdown.handover.ms}, {@link ShutdownHandover}). With
 * {@code --id N --join HOST:PORT} (N outside the file's members, up to 31) it starts a replica that
 * joins the running group: it listens on HOST:PORT, serves clients on PORT+1000, has no front end
 * nor metrics address from the file, and takes part once a membership change adds it
 * ({@link ReplicaConfig#joinAddress()}); the key-value store over Multi-Paxos, S-Paxos, or U-Ring, M-Ring or
 * Multi-Ring (without partitions) with {@code ring.member.ids} set, only ({@link ClusterFile#membershipRefusal()}).
 * Prints one {@code READY ...} line once every port is open. The ordering protocol, the executor
 * and the thread placement are the file's {@code ordering}, {@code execution} and {@code threads}
 * (overridden by {@link RuntimeOptions}); the store is {@link KvRouting#stateMachine}'s, partitioned
 * by group with {@code execution=p-smr}, or with {@code execution=s-smr} one partition of it
 * ({@link KvRouting#partition}, a replica per partition as {@link PartitionedReplicas} builds it,
 * the front end sending through {@link KvRouting#partitionedInvoker}); a configuration error (TLS files included: missing,
 * unreadable, not PEM, a key of another certificate) is printed and exits with 2 before anything
 * starts. With {@code tls.client=on} the RESP front end serves TLS too, and its own client talks
 * TLS to the replica. Its metrics endpoint ({@code --metrics-port}, else the file's {@code metrics=})
 * serves the replica's, its front ends' and the JVM's meters ({@link ProcessMeters}) and also the
 * admin routes of {@code parallax admin} ({@link AdminRoutes}).
 */
@Command(name = "replica", mixinStandardHelpOptions = true,
        description = "Run one replica of the replicated key-value store from a cluster configuration file.")
final class ReplicaCommand implements Callable<Integer> {
    /** Set while a replica runs in this JVM, so that main() does not exit. */
    static final AtomicBoolean RUNNING = new AtomicBoolean();

    @Option(names = "--config", required = true, description = "Cluster configuration file (see docs/operations.md).")
    Path config;

    @Option(names = "--id", required = true, description = "This replica's id in the file's members list, or with "
            + "--join a new id (up to 31) outside it.")
    int id;

    @Option(names = "--join", paramLabel = "HOST:PORT", description = "Join the running group: this replica, whose --id is "
            + "not in the file's members, listens on HOST:PORT (clients on PORT+1000) until a membership change adds it "
            + "(parallax admin; see docs/operations.md). Key-value store with ordering=multi-paxos, s-paxos, or u-ring or "
            + "m-ring with ring.member.ids set.")
    String join;

    @Option(names = "--metrics-port", defaultValue = "-1",
            description = "Serve Prometheus metrics and the admin routes on this port (0 picks a free one; default: the "
                    + "file's metrics= address for this replica, else off).")
    int metricsPort;

    @Option(names = "--metrics-host", defaultValue = "127.0.0.1", description = "Address of the metrics endpoint.")
    String metricsHost;

    @Option(names = "--fault-control", description = "Testing only: let /faults/block?peers=.. (also block-in, block-out: "
            + "one way) and /faults/heal on the metrics port cut this replica's links (parallax chaos uses it).")
    boolean faultControl;

    @Option(names = "--bootstrap", description = "First start of a new cluster, or of a replica that --join's the group, "
            + "only: an empty, never-used data directory is a new replica. Without it such a directory is taken for a wiped one, and the replica "
            + "recovers its state from its peers before it votes (see docs/operations.md).")
    boolean bootstrap;

    @Mixin
    RuntimeOptions runtime = new RuntimeOptions();

    /**
     * A replica of the key-value store {@code store} as {@code file} configures replica {@code id}:
     * its ordering protocol, its executor (over {@link KvClassifier#SERVICE}'s classes), its thread
     * placement and snapshot interval; the caller adds meters and fault control, builds and starts
     * it. {@code store} must have been built by {@link KvRouting#stateMachine}: with
     * {@code execution=p-smr} it has one partition per group.
     *
     * @throws IllegalArgumentException naming the file and the key if the configuration does not
     *                                  suit the key-value store or replica {@code id}, or if
     *                                  {@code store} has not {@link KvRouting#partitions} partitions
     */
    static Replica.Builder kvReplica(ClusterFile file, int id, KvStateMachine store) {
        return kvReplica(file, id, null, store);
    }

    /**
     * As {@link #kvReplica(ClusterFile, int, KvStateMachine)}, for a replica that joins the group at
     * {@code join} ({@code host:port}, {@code --join}) with an id outside the file's members;
     * {@code null} for a member.
     *
     * @throws IllegalArgumentException also if {@code join} is given and the file's group does not
     *                                  change its members or not with this id ({@link ClusterFile#joinRefusal}), for a member, for an id out of {@code 0..31}, or
     *                                  at a member's address; or not given for a non-member
     */
    static Replica.Builder kvReplica(ClusterFile file, int id, String join, KvStateMachine store) {
        if (join == null && (id < 0 || id >= file.members().size())) {
            throw new IllegalArgumentException("--id " + id + " is not a member of " + file.members()
                    + (id >= file.members().size() && id <= dev.parallax.core.config.Member.MAX_ID ? "; to join the group give --join host:port" : ""));
        }
        String fixed = join == null ? null : file.joinRefusal(id);
        if (fixed != null) {
            throw new IllegalArgumentException("--join: " + fixed);
        }
        int partitions = KvRouting.partitions(file);
        if (store.partitions() != partitions) {
            throw new IllegalArgumentException("execution=" + file.execution().configName() + " needs a key-value store of "
                    + partitions + (partitions == 1 ? " partition" : " partitions (one per group, "
                    + ClusterFile.groupsKey(file.ordering()) + ")")
                    + ", got one of " + store.partitions() + "; build it with KvRouting.stateMachine(file)");
        }
        Replica.Builder builder = Replica.builder().config(file.replica(id, join)).stateMachine(store)
                .ordering(file.orderingProtocol()).executor(file.executor(KvClassifier.SERVICE));
        file.snapshotEvery().ifPresent(builder::snapshotEvery);
        return builder;
    }

    /**
     * The Redis (RESP) front end of replica {@code id} of a key-value cluster, started on its
     * {@code redis=} address (TLS with {@code tls.client=on}). It talks to its own replica first:
     * with an ordering that serves clients at every replica (S-Paxos, Ring Paxos) the load stays
     * spread, with Multi-Paxos the first command is redirected to the leader; with an ordering by
     * group it addresses each command by key ({@link KvRouting#invoker}); with
     * {@code execution=s-smr} it sends through one client per partition
     * ({@link KvRouting#partitionedInvoker}), this replica first for its own partition's keys.
     * Blocks while it binds.
     *
     * @throws IllegalArgumentException if the file names no Redis front ends
     * @throws IOException              if the address cannot be bound or the TLS files not read
     */
    static RedisFrontEnd redisFrontEnd(ClusterFile file, int id, MeterRegistry registry) throws IOException {
        Member m = file.redis().orElseThrow(() -> new IllegalArgumentException("no redis= front ends")).member(id);
        ReplicaConfig rc = file.replica(id);
        AutoCloseable clients;
        CommandInvoker invoker;
        if (KvRouting.partitioned(file)) {
            PartitionedInvoker partitioned = KvRouting.partitionedInvoker(file, id, b -> { });
            clients = partitioned;
            invoker = partitioned;
        } else {
            // Commands start at this replica (redirected to the leader); reads stay here (read-index on any replica).
            ClientConfig.Builder toReplica = ClientConfig.builder(rc.clientMembers()).startAt(id).readAt(id);
            file.clientTrust().ifPresent(toReplica::tlsTrust);
            SmrClient client = SmrClient.connect(toReplica.build());
            clients = client;
            invoker = KvRouting.invoker(file, client);
        }
        try {
            RespServerConfig respConfig = RespServerConfig.of(m.host(), m.port())
                    .withMaxConnections(file.settings().get(ExamplesKeys.REDIS_MAX_CONNECTIONS));
            if (rc.tls().clientPorts()) {
                respConfig = respConfig.withTls(dev.parallax.core.wire.tls.TlsContexts.load(rc.tls()));
            }
            RespServer server = new RespServer(respConfig, invoker, registry);
            server.start();
            return new RedisFrontEnd(server, clients);
        } catch (IOException | RuntimeException e) {
            closeQuietly(clients);
            throw e;
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            System.err.println("closing the front end's clients: " + e);
        }
    }

    /** A started Redis front end and the clients it sends through; closing closes both. */
    record RedisFrontEnd(RespServer server, AutoCloseable clients) implements AutoCloseable {
        int port() {
            return server.port();
        }

        @Override
        public void close() {
            server.close();
            closeQuietly(clients);
        }
    }

    /**
     * The admin routes of {@code replica} ({@link AdminRoutes}): mutating requests authenticated
     * under its cluster secret if it has one, membership changes given
     * {@value #CHANGE_TIMEOUT_SECONDS} s to be decided.
     */
    static AdminRoutes adminRoutes(Replica replica, MeterRegistry registry) {
        AdminAuth auth = replica.config().clusterSecret().map(AdminAuth::new).orElse(null);
        if (auth == null) {
            System.err.println("replica " + replica.config().id() + ": no cluster.secret: the admin endpoint takes "
                    + "mutating requests (membership changes, snapshots) from this machine only, unauthenticated");
        }
        return new AdminRoutes(new ReplicaAdminTarget(replica), auth, registry, System::currentTimeMillis,
                java.time.Duration.ofSeconds(CHANGE_TIMEOUT_SECONDS));
    }

    /** How long the admin routes wait for a membership change to be decided. */
    static final int CHANGE_TIMEOUT_SECONDS = 30;

    @Override
    public Integer call() throws Exception {
        ClusterFile file;
        KvStateMachine store = null;
        VoleryPartition partition = null;
        KvPartition kvPartition = null;
        Replica.Builder builder;
        Duration handover;
        try {
            file = ClusterFile.load(config).with(runtime.clusterSettings());
            if (file.service().equals(ClusterFile.VOLERY)) {
                partition = new VoleryPartition();
                builder = VoleryService.replica(file, id, join, partition);
            } else if (KvRouting.partitioned(file)) {
                kvPartition = KvRouting.partition(file);
                builder = PartitionedReplicas.replica(file, id, join, kvPartition);
            } else {
                store = KvRouting.stateMachine(file);
                builder = kvReplica(file, id, join, store);
            }
            file.checkTlsFiles(id);
            handover = ShutdownHandover.timeout(file);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        PrometheusMeterRegistry registry = MetricsEndpoint.registry();
        ProcessMeters.bind(registry); // for the life of the process
        dev.parallax.core.net.LinkFaults faults = faultControl ? new dev.parallax.core.net.LinkFaults() : null;
        // Lets tests and `parallax chaos` check that replicas converged to the same contents.
        if (store != null) {
            io.micrometer.core.instrument.Gauge.builder("parallax.kv.digest", store, KvStateMachine::digest)
                    .description("Order-independent 52-bit digest of the key-value store's contents").register(registry);
        } else if (kvPartition != null) {
            // Equal within a partition: each holds its own keys.
            io.micrometer.core.instrument.Gauge.builder("parallax.kv.digest", kvPartition, KvPartition::digest)
                    .description("Order-independent 52-bit digest of this replica's partition of the key-value store")
                    .register(registry);
        } else {
            // Equal within a partition (only a node's owner keeps its data and Stat current).
            io.micrometer.core.instrument.Gauge.builder("parallax.volery.digest", partition, VoleryPartition::digest)
                    .description("52-bit digest of this Volery partition's znodes and counters").register(registry);
        }
        Replica replica = builder.meterRegistry(registry).linkFaults(faults).bootstrap(bootstrap).build();
        replica.start();
        RedisFrontEnd redis = null;
        int respPort = -1;
        VoleryService.FrontEnd zk = null;
        if (partition != null && VoleryService.hasFrontEnds(file) && join == null) {
            zk = VoleryService.frontEnd(file, id, registry);
        }
        if (join != null && (file.redis().isPresent() || VoleryService.hasFrontEnds(file)
                || (metricsPort < 0 && file.metrics().isPresent()))) {
            System.err.println("replica " + id + " joins at " + join + ": the file's redis=, zookeeper= and metrics= list no "
                    + "address for it; no Redis or ZooKeeper front end" + (metricsPort < 0 ? ", no metrics endpoint (--metrics-port)"
                    : ""));
        }
        if (join == null && (store != null || kvPartition != null) && file.redis().isPresent()) {
            redis = redisFrontEnd(file, id, registry);
            respPort = redis.port();
        }
        String host = metricsHost;
        int mPort = metricsPort;
        if (mPort < 0 && file.metrics().isPresent() && join == null) {
            host = file.metrics().get().member(id).host();
            mPort = file.metrics().get().member(id).port();
        }
        if (faultControl && mPort < 0) {
            System.err.println("--fault-control needs --metrics-port");
            return 2;
        }
        MetricsEndpoint metrics = mPort >= 0 ? new MetricsEndpoint(registry, host, mPort, faults, adminRoutes(replica, registry))
                : null;
        RedisFrontEnd r = redis;
        VoleryService.FrontEnd z = zk;
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicInteger exitCode = new AtomicInteger(0);
        replica.failStopped().thenAccept(error -> {
            System.err.println("replica " + id + " stopped after " + (error instanceof dev.parallax.core.replica.SafetyAlarmException
                    ? "a safety alarm (see docs/operations.md, \"Safety alarm\"): " : "a fatal error in the state machine: ") + error);
            exitCode.set(3);
            stopped.countDown();
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // A leader hands over first (its front ends still serve meanwhile, redirecting to the new leader).
            String handedOver = ShutdownHandover.handOver(id, replica.leaderHint(), replica.membershipAdmin(), handover);
            if (handedOver != null) {
                System.out.println(handedOver);
                System.out.flush();
            }
            if (r != null) {
                r.close();
            }
            if (z != null) {
                z.close();
            }
            if (metrics != null) {
                metrics.close();
            }
            replica.close();
            stopped.countDown();
        }, "replica-shutdown"));
        RUNNING.set(true);
        System.out.println("READY replica " + id + " client=" + replica.clientPort() + " redis=" + respPort
                + (z == null ? "" : " zookeeper=" + z.port())
                + " metrics=" + (metrics == null ? -1 : metrics.port()) + " "
                + file.describeRuntime(Runtime.getRuntime().availableProcessors()));
        System.out.flush();
        stopped.await();
        return exitCode.get();
    }
}
