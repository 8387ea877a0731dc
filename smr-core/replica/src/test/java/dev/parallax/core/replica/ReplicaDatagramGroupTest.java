package dev.parallax.core.replica;

import dev.parallax.core.StateMachine;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.net.LinkFaults;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.runtime.DatagramGroupConfig;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;
import dev.parallax.core.testkit.Await;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** R4: a replica gives its ordering protocol datagram groups ({@link OrderingContext#datagramGroup}) and closes them. */
class ReplicaDatagramGroupTest {
    private static final String CHANNEL = "dgram-test";
    /** Longs, one per datagram. */
    private static final MessageCodec<Long> LONGS = new MessageCodec<>() {
        @Override
        public int type(Long message) {
            return 3;
        }

        @Override
        public void encode(Long message, WireWriter out) {
            out.putLong(message);
        }

        @Override
        public Long decode(int type, WireReader body) {
            long v = body.getLong();
            body.end();
            return v;
        }
    };

    private final List<Replica> replicas = new ArrayList<>();

    @AfterEach
    void closeAll() {
        replicas.forEach(Replica::close);
    }

    /** An ordering protocol that orders nothing; it opens a datagram group and records what arrives ("from:value"). */
    private static final class GroupProbe implements OrderingProtocol {
        final DatagramGroupConfig group;
        final Queue<String> received = new ConcurrentLinkedQueue<>();
        volatile Transport<Long> transport;
        volatile Throwable secondOpen;

        GroupProbe(DatagramGroupConfig group) {
            this.group = group;
        }

        @Override
        public String name() {
            return "group-probe";
        }

        @Override
        public AtomicBroadcast create(OrderingContext context) {
            transport = context.datagramGroup(CHANNEL, LONGS, group);
            try {
                context.datagramGroup(CHANNEL, LONGS, group);
            } catch (IllegalArgumentException e) {
                secondOpen = e;
            }
            return new AtomicBroadcast() {
                @Override
                public void start(DeliveryListener listener) {
                    transport.start((from, m) -> received.add(from + ":" + m));
                }

                @Override
                public boolean propose(ByteBuffer value) {
                    return false;
                }

                @Override
                public int redirectHint() {
                    return ANY_REPLICA;
                }

                @Override
                public void close() {
                    // The replica closes the datagram group: this protocol leaves it open on purpose.
                }
            };
        }
    }

    private static final class Nothing implements StateMachine {
        @Override
        public ByteBuffer execute(ByteBuffer command) {
            return ByteBuffer.allocate(0);
        }

        @Override
        public void snapshot(WritableByteChannel out) {
        }

        @Override
        public void restore(ReadableByteChannel in) {
        }
    }

    private List<GroupProbe> start(int n, LinkFaults faultsOfReplica1, List<MeterRegistry> registries) {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(n));
        ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(n));
        ThreadLocalRandom r = ThreadLocalRandom.current();
        DatagramGroupConfig group = DatagramGroupConfig.builder().group("239.255." + r.nextInt(100, 250) + "." + r.nextInt(1, 255))
                .port(LocalPorts.next()).socketBufferBytes(1 << 20).build();
        ClusterSecret secret = ClusterSecret.random(); // one cluster: one secret
        List<GroupProbe> probes = new ArrayList<>();
        for (int id = 0; id < n; id++) {
            GroupProbe probe = new GroupProbe(group);
            probes.add(probe);
            MeterRegistry registry = new SimpleMeterRegistry();
            registries.add(registry);
            Replica.Builder b = Replica.builder()
                    .config(ReplicaConfig.builder().id(id).members(members).clientMembers(clients).clientIoThreads(1)
                            .clusterSecret(secret).build())
                    .stateMachine(new Nothing()).ordering(probe).meterRegistry(registry);
            if (id == 1 && faultsOfReplica1 != null) {
                b.linkFaults(faultsOfReplica1);
            }
            Replica replica = b.build();
            replicas.add(replica);
            replica.start();
        }
        return probes;
    }

    private static double sentBy(MeterRegistry registry) {
        io.micrometer.core.instrument.Counter c = registry.find("parallax.net.datagrams").tag("result", "sent")
                .tag("channel", CHANNEL).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    @DisplayName("R4: Replica.Context opens a DatagramPort: a multicast reaches the other replicas, the name is taken once, close leaves no thread")
    void replicaOpensAndClosesItsDatagramGroups() throws InterruptedException {
        List<MeterRegistry> registries = new ArrayList<>();
        List<GroupProbe> probes = start(3, null, registries);
        assertThat(probes.get(0).secondOpen).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(CHANNEL);
        assertThat(probes.get(0).transport.sendDatagram(0, 42L)).isTrue();
        // Replica 0 counts the datagram after its socket took it, perhaps after the others got it.
        await("replicas 1 and 2 receive and replica 0 counts it sent", () -> probes.get(1).received.size() == 1
                && probes.get(2).received.size() == 1 && sentBy(registries.get(0)) == 1);
        assertThat(probes.get(1).received).containsExactly("0:42");
        assertThat(probes.get(2).received).containsExactly("0:42");
        assertThat(probes.get(0).received).isEmpty();
        assertThat(sentBy(registries.get(0))).isEqualTo(1);
        assertThatThrownBy(() -> probes.get(0).transport.send(1, 1L)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(threadsNamed(CHANNEL)).isNotEmpty();
        replicas.forEach(Replica::close);
        assertThat(threadsNamed(CHANNEL)).isEmpty();
        assertThat(probes.get(0).transport.sendDatagram(0, 43L)).as("closed with the replica").isFalse();
    }

    @Test
    @DisplayName("a replica's link faults apply to datagrams too: a peer whose inbound link is cut is not heard")
    void linkFaultsCutDatagrams() throws InterruptedException {
        LinkFaults faults = new LinkFaults();
        faults.blockInbound(0);
        List<GroupProbe> probes = start(3, faults, new ArrayList<>());
        probes.get(0).transport.sendDatagram(0, 1L);
        probes.get(2).transport.sendDatagram(0, 2L);
        await("replica 1 hears replica 2, replica 2 hears replica 0", () -> probes.get(1).received.contains("2:2")
                && probes.get(2).received.contains("0:1") && probes.get(0).received.contains("2:2"));
        assertThat(probes.get(1).received).containsExactly("2:2");
    }

    @Test
    @DisplayName("an OrderingContext without datagram groups refuses them (the default)")
    void defaultContextHasNoGroups() {
        OrderingContext bare = (OrderingContext) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {OrderingContext.class}, (proxy, method, args) -> {
                    if (method.isDefault()) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    throw new AssertionError(method.getName());
                });
        assertThatThrownBy(() -> bare.datagramGroup(CHANNEL, LONGS, DatagramGroupConfig.DEFAULTS))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("no datagram groups");
    }

    private static List<String> threadsNamed(String channel) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.contains(channel)).toList();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(20), condition);
    }
}
