package dev.parallax.core.testkit.cluster;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.runtime.OrderingProtocol;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Path;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * Three (or n) replicas in this JVM on loopback, each with its own {@link TextKv}, ordered by the
 * protocol the caller supplies (each protocol module keeps a small helper naming its orderings, as
 * smr-paxos' {@code PaxosClusters} does). Link faults per replica ({@link #isolate}, {@link #cutBetween},
 * ...); with a data directory a replica can be stopped and restarted ({@link #stop}, {@link #restart}).
 *
 * <p>Not thread-safe: the test thread builds, faults and closes it; the replicas run their own
 * threads. Construction starts every replica and does not wait for a leader.
 */
public final class LocalCluster implements AutoCloseable {
    /** The replicas' replica-to-replica endpoints. */
    public final ClusterMembers members;
    /** The replicas' client endpoints. */
    public final ClusterMembers clients;
    /** The replicas by id (a restart replaces the entry). */
    public final List<Replica> replicas = new ArrayList<>();
    /** Each replica's state machine, by id (a restart replaces the entry). */
    public final List<TextKv> machines = new ArrayList<>();
    private final List<SmrClient> openClients = new ArrayList<>();

    /** Each replica's link faults, by id. */
    public final List<dev.parallax.core.net.LinkFaults> faults = new ArrayList<>();
    private final IntFunction<OrderingProtocol> ordering;
    private final UnaryOperator<dev.parallax.core.StateMachine> wrap;
    private final int maxFrame;
    private final Path dataDir;
    private final long snapshotEvery;
    private final IntFunction<dev.parallax.core.spi.Executor> executors;
    /** The cluster's secret, new for each cluster, shared by its replicas and their restarts (datagram authentication). */
    private final dev.parallax.core.config.ClusterSecret secret = dev.parallax.core.config.ClusterSecret.random();

    /** A cluster ordered by {@code ordering.apply(n)}: plain state machines, 16 MiB frames, no data directory. */
    public LocalCluster(int n, IntFunction<OrderingProtocol> ordering) {
        this(n, ordering, kv -> kv, 16 << 20);
    }

    /** A cluster whose state machines are wrapped by {@code wrap}, with frames capped at {@code maxFrame}. */
    public LocalCluster(int n, IntFunction<OrderingProtocol> ordering, UnaryOperator<dev.parallax.core.StateMachine> wrap,
                        int maxFrame) {
        this(n, ordering, wrap, maxFrame, null, 10_000);
    }

    /**
     * A cluster ordered by {@code ordering.apply(n)}; with {@code dataDir} set, each replica keeps its
     * data there, a snapshot every {@code snapshotEvery} instances.
     */
    public LocalCluster(int n, IntFunction<OrderingProtocol> ordering, UnaryOperator<dev.parallax.core.StateMachine> wrap,
                 int maxFrame, Path dataDir, long snapshotEvery) {
        this(n, ordering, wrap, maxFrame, dataDir, snapshotEvery, null);
    }

    /**
     * As {@link #LocalCluster(int, IntFunction, UnaryOperator, int, Path, long)}, each replica
     * (and each restart) executing with a new {@code executors.apply(id)} (null: the replica's
     * default, sequential).
     */
    public LocalCluster(int n, IntFunction<OrderingProtocol> ordering, UnaryOperator<dev.parallax.core.StateMachine> wrap,
                 int maxFrame, Path dataDir, long snapshotEvery, IntFunction<dev.parallax.core.spi.Executor> executors) {
        this.executors = executors;
        members = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(n));
        clients = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(n));
        this.ordering = ordering;
        this.wrap = wrap;
        this.maxFrame = maxFrame;
        this.dataDir = dataDir;
        this.snapshotEvery = snapshotEvery;
        for (int i = 0; i < n; i++) {
            machines.add(null);
            faults.add(new dev.parallax.core.net.LinkFaults());
            replicas.add(null);
            build(i, true);
        }
        replicas.forEach(Replica::start);
    }

    private void build(int i, boolean bootstrap) {
        TextKv kv = new TextKv();
        machines.set(i, kv);
        Replica.Builder b = Replica.builder();
        if (executors != null) {
            b.executor(executors.apply(i));
        }
        Replica r = b
                .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clients).clientIoThreads(1)
                        .maxFrameBytes(maxFrame).maxCommandBytes(Math.min(maxFrame, 1 << 20)).clusterSecret(secret)
                        .dataDirectory(dataDir == null ? null : dataDir.resolve("replica-" + i)).build())
                .stateMachine(wrap.apply(kv)).ordering(ordering.apply(members.size())).linkFaults(faults.get(i))
                .snapshotEvery(snapshotEvery).bootstrap(bootstrap).build();
        replicas.set(i, r);
    }

    /** Stops replica {@code id} (its data directory stays). */
    public void stop(int id) {
        replicas.get(id).close();
    }

    /** Starts replica {@code id} again from its data directory, with a fresh state machine. */
    public void restart(int id) {
        if (dataDir == null) {
            throw new IllegalStateException("a restart needs a data directory");
        }
        build(id, false);
        replicas.get(id).start();
    }

    /** Cuts replica {@code id} off from every other replica (both directions). */
    public void isolate(int id) {
        for (int j = 0; j < replicas.size(); j++) {
            if (j != id) {
                faults.get(id).block(j);
                faults.get(j).block(id);
            }
        }
    }

    /** Replica {@code id} hears no other replica; what it sends still arrives (a one-way cut). */
    public void cutInbound(int id) {
        for (int j = 0; j < replicas.size(); j++) {
            if (j != id) {
                faults.get(id).blockInbound(j);
            }
        }
    }

    /** Nothing replica {@code id} sends reaches another replica; it still hears them (a one-way cut). */
    public void cutOutbound(int id) {
        for (int j = 0; j < replicas.size(); j++) {
            if (j != id) {
                faults.get(id).blockOutbound(j);
            }
        }
    }

    /** Cuts replicas {@code a} and {@code b} from each other, both directions; the others reach both (a bridge). */
    public void cutBetween(int a, int b) {
        faults.get(a).block(b);
        faults.get(b).block(a);
    }

    /** The lowest replica whose gauge {@code leaderGauge} reads 1 (the protocol's "I lead" gauge), or -1. */
    public int leader(String leaderGauge) {
        for (int i = 0; i < replicas.size(); i++) {
            io.micrometer.core.instrument.Gauge g = replicas.get(i).meterRegistry().find(leaderGauge).gauge();
            if (g != null && g.value() == 1) {
                return i;
            }
        }
        return -1;
    }

    /** Replica {@code id}'s protocol event count {@code event} ({@code parallax.protocol.events}), as its protocol stage last published. */
    public double protocolEvents(int id, String event) {
        io.micrometer.core.instrument.FunctionCounter c = replicas.get(id).meterRegistry().find("parallax.protocol.events")
                .tag("event", event).functionCounter();
        return c == null ? 0 : c.count();
    }

    /** Lifts every link fault. */
    public void heal() {
        faults.forEach(dev.parallax.core.net.LinkFaults::heal);
    }

    /** Replica {@code replica}'s counter {@code name} tagged {@code kind=kind}, 0 if absent. */
    public double counter(int replica, String name, String kind) {
        io.micrometer.core.instrument.Counter c = replicas.get(replica).meterRegistry().find(name).tag("kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    /** A client of every replica with a 10 s invoke time-out; closed with the cluster. */
    public SmrClient client() {
        return client(Duration.ofSeconds(10));
    }

    /** A client that knows replica {@code replica} only (it cannot be redirected anywhere else). */
    public SmrClient clientOf(int replica) {
        dev.parallax.core.config.Member m = clients.member(replica);
        SmrClient c = SmrClient.connect(ClientConfig.builder(ClusterMembers.of(new dev.parallax.core.config.Member(0, m.host(),
                m.port()))).retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(20)).build());
        openClients.add(c);
        return c;
    }

    /** A client of every replica whose queries go to replica {@code readAt} first; closed with the cluster. */
    public SmrClient readingClient(int readAt) {
        SmrClient c = SmrClient.connect(ClientConfig.builder(clients).retryTimeout(Duration.ofMillis(500))
                .invokeTimeout(Duration.ofSeconds(20)).readAt(readAt).build());
        openClients.add(c);
        return c;
    }

    /** A client of every replica with the given invoke time-out; closed with the cluster. */
    public SmrClient client(Duration invokeTimeout) {
        SmrClient c = SmrClient.connect(ClientConfig.builder(clients).retryTimeout(Duration.ofMillis(500))
                .invokeTimeout(invokeTimeout).build());
        openClients.add(c);
        return c;
    }

    @Override
    public void close() {
        openClients.forEach(SmrClient::close);
        replicas.forEach(Replica::close);
    }
}
