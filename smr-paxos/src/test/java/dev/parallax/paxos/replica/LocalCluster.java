package dev.parallax.paxos.replica;

import dev.parallax.core.testkit.cluster.TextKv;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.replica.Replica;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.paxos.spaxos.SPaxos;
import dev.parallax.paxos.spaxos.SPaxosConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Path;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * Three (or n) replicas in this JVM on loopback, each with its own {@link TextKv}, ordered by
 * Multi-Paxos or by another protocol ({@link #LocalCluster(int, IntFunction, UnaryOperator, int, Path, long)}:
 * {@link #multiPaxos}, {@link #sPaxos}). With a data directory a replica can be stopped and
 * restarted ({@link #stop}, {@link #restart}).
 */
final class LocalCluster implements AutoCloseable {
    final ClusterMembers members;
    final ClusterMembers clients;
    final List<Replica> replicas = new ArrayList<>();
    final List<TextKv> machines = new ArrayList<>();
    private final List<SmrClient> openClients = new ArrayList<>();

    final List<dev.parallax.core.net.LinkFaults> faults = new ArrayList<>();
    private final IntFunction<OrderingProtocol> ordering;
    private final UnaryOperator<dev.parallax.core.StateMachine> wrap;
    private final int maxFrame;
    private final Path dataDir;
    private final long snapshotEvery;

    LocalCluster(int n) {
        this(n, kv -> kv, 16 << 20);
    }

    /** A cluster whose state machines are wrapped by {@code wrap}, with frames capped at {@code maxFrame}. */
    LocalCluster(int n, java.util.function.UnaryOperator<dev.parallax.core.StateMachine> wrap, int maxFrame) {
        this(n, wrap, maxFrame, null, 10_000);
    }

    /** With {@code dataDir} set, each replica keeps snapshots there, one every {@code snapshotEvery} instances. */
    LocalCluster(int n, UnaryOperator<dev.parallax.core.StateMachine> wrap, int maxFrame, Path dataDir, long snapshotEvery) {
        this(n, LocalCluster::multiPaxos, wrap, maxFrame, dataDir, snapshotEvery);
    }

    /** A cluster ordered by {@code ordering.apply(n)}; see {@link #multiPaxos}, {@link #sPaxos}. */
    LocalCluster(int n, IntFunction<OrderingProtocol> ordering, UnaryOperator<dev.parallax.core.StateMachine> wrap,
                 int maxFrame, Path dataDir, long snapshotEvery) {
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

    /** The test timeouts every ordering shares: heartbeat 30 ms, suspect 300 ms, retransmit 100 ms, catch-up 50 ms. */
    static PaxosConfig paxosConfig(int n) {
        return PaxosConfig.builder(n).heartbeat(Duration.ofMillis(30)).suspect(Duration.ofMillis(300))
                .retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50)).build();
    }

    /** Multi-Paxos with {@link #paxosConfig}. */
    static OrderingProtocol multiPaxos(int n) {
        return MultiPaxos.protocol(paxosConfig(n));
    }

    /** S-Paxos (seed 002) ordering ids with {@link #paxosConfig}, dissemination defaults. */
    static OrderingProtocol sPaxos(int n) {
        return SPaxos.protocol(SPaxosConfig.builder(n).paxos(paxosConfig(n)).build());
    }

    private void build(int i, boolean bootstrap) {
        TextKv kv = new TextKv();
        machines.set(i, kv);
        Replica r = Replica.builder()
                .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clients).clientIoThreads(1)
                        .maxFrameBytes(maxFrame).maxCommandBytes(Math.min(maxFrame, 1 << 20))
                        .dataDirectory(dataDir == null ? null : dataDir.resolve("replica-" + i)).build())
                .stateMachine(wrap.apply(kv)).ordering(ordering.apply(members.size())).linkFaults(faults.get(i))
                .snapshotEvery(snapshotEvery).bootstrap(bootstrap).build();
        replicas.set(i, r);
    }

    /** Stops replica {@code id} (its data directory stays). */
    void stop(int id) {
        replicas.get(id).close();
    }

    /** Starts replica {@code id} again from its data directory, with a fresh state machine. */
    void restart(int id) {
        if (dataDir == null) {
            throw new IllegalStateException("a restart needs a data directory");
        }
        build(id, false);
        replicas.get(id).start();
    }

    /** Cuts replica {@code id} off from every other replica (both directions). */
    void isolate(int id) {
        for (int j = 0; j < replicas.size(); j++) {
            if (j != id) {
                faults.get(id).block(j);
                faults.get(j).block(id);
            }
        }
    }

    /** Replica {@code id} hears no other replica; what it sends still arrives (a one-way cut). */
    void cutInbound(int id) {
        for (int j = 0; j < replicas.size(); j++) {
            if (j != id) {
                faults.get(id).blockInbound(j);
            }
        }
    }

    /** Nothing replica {@code id} sends reaches another replica; it still hears them (a one-way cut). */
    void cutOutbound(int id) {
        for (int j = 0; j < replicas.size(); j++) {
            if (j != id) {
                faults.get(id).blockOutbound(j);
            }
        }
    }

    /** Cuts replicas {@code a} and {@code b} from each other, both directions; the others reach both (a bridge). */
    void cutBetween(int a, int b) {
        faults.get(a).block(b);
        faults.get(b).block(a);
    }

    /** The replica that leads its view now (its {@code parallax.paxos.leader} gauge is 1), or -1. */
    int leader() {
        for (int i = 0; i < replicas.size(); i++) {
            io.micrometer.core.instrument.Gauge g = replicas.get(i).meterRegistry().find("parallax.paxos.leader").gauge();
            if (g != null && g.value() == 1) {
                return i;
            }
        }
        return -1;
    }

    /** Views replica {@code id} started (Phase 1 runs), as its protocol stage last published. */
    double viewsStarted(int id) {
        io.micrometer.core.instrument.FunctionCounter c = replicas.get(id).meterRegistry().find("parallax.protocol.events")
                .tag("event", "views.started").functionCounter();
        return c == null ? 0 : c.count();
    }

    void heal() {
        faults.forEach(dev.parallax.core.net.LinkFaults::heal);
    }

    double counter(int replica, String name, String kind) {
        io.micrometer.core.instrument.Counter c = replicas.get(replica).meterRegistry().find(name).tag("kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    SmrClient client() {
        return client(Duration.ofSeconds(10));
    }

    /** A client that knows replica {@code replica} only (it cannot be redirected anywhere else). */
    SmrClient clientOf(int replica) {
        dev.parallax.core.config.Member m = clients.member(replica);
        SmrClient c = SmrClient.connect(ClientConfig.builder(ClusterMembers.of(new dev.parallax.core.config.Member(0, m.host(),
                m.port()))).retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(20)).build());
        openClients.add(c);
        return c;
    }

    SmrClient client(Duration invokeTimeout) {
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
