package dev.parallax.paxos.replica;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.replica.Replica;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.PaxosConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Three (or n) replicas in this JVM on loopback, each with its own {@link TextKv}. */
final class LocalCluster implements AutoCloseable {
    final ClusterMembers members;
    final ClusterMembers clients;
    final List<Replica> replicas = new ArrayList<>();
    final List<TextKv> machines = new ArrayList<>();
    private final List<SmrClient> openClients = new ArrayList<>();

    final List<dev.parallax.core.net.LinkFaults> faults = new ArrayList<>();

    LocalCluster(int n) {
        this(n, kv -> kv, 16 << 20);
    }

    /** A cluster whose state machines are wrapped by {@code wrap}, with frames capped at {@code maxFrame}. */
    LocalCluster(int n, java.util.function.UnaryOperator<dev.parallax.core.StateMachine> wrap, int maxFrame) {
        this(n, wrap, maxFrame, null, 10_000);
    }

    /** With {@code dataDir} set, each replica keeps snapshots there, one every {@code snapshotEvery} instances. */
    LocalCluster(int n, java.util.function.UnaryOperator<dev.parallax.core.StateMachine> wrap, int maxFrame,
                 java.nio.file.Path dataDir, long snapshotEvery) {
        members = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(n));
        clients = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(n));
        PaxosConfig paxos = PaxosConfig.builder(n).heartbeat(Duration.ofMillis(30)).suspect(Duration.ofMillis(300))
                .retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50)).build();
        for (int i = 0; i < n; i++) {
            TextKv kv = new TextKv();
            machines.add(kv);
            dev.parallax.core.net.LinkFaults f = new dev.parallax.core.net.LinkFaults();
            faults.add(f);
            Replica r = Replica.builder()
                    .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clients).clientIoThreads(1)
                            .maxFrameBytes(maxFrame).maxCommandBytes(Math.min(maxFrame, 1 << 20))
                            .dataDirectory(dataDir == null ? null : dataDir.resolve("replica-" + i)).build())
                    .stateMachine(wrap.apply(kv)).ordering(MultiPaxos.protocol(paxos)).linkFaults(f)
                    .snapshotEvery(snapshotEvery).bootstrap(true).build();
            replicas.add(r);
        }
        replicas.forEach(Replica::start);
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
