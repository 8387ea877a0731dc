package dev.parallax.core.net;

import dev.parallax.core.testkit.TextCodec;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.runtime.DatagramFaults;
import dev.parallax.core.runtime.DatagramGroupConfig;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Real loopback multicast: several ports joined to one group on {@code lo} (IP_MULTICAST_IF = 127.0.0.1). */
class DatagramPortTest {
    private static final AtomicInteger CHANNELS = new AtomicInteger();
    private static final ClusterSecret SECRET = ClusterSecret.random();
    private final List<AutoCloseable> open = new ArrayList<>();

    /** One member: its port, registry, and what it received ("from:message") and stamped ("stamp:from"), in order. */
    private final class Node {
        final DatagramPort<String> port;
        final MeterRegistry registry = new SimpleMeterRegistry();
        final Queue<String> events = new ConcurrentLinkedQueue<>();
        final Queue<String> received = new ConcurrentLinkedQueue<>();

        Node(ClusterMembers members, int id, String channel, DatagramGroupConfig group) {
            this(members, id, channel, group, SECRET);
        }

        Node(ClusterMembers members, int id, String channel, DatagramGroupConfig group, ClusterSecret secret) {
            StageThreads threads = StageThreads.builder(ThreadPlacement.STAGED).waitStrategy(WaitStrategies.yieldPark())
                    .clock(SystemClock.INSTANCE).meterRegistry(registry).threadNamePrefix("mcast-test-" + id + "-").build();
            open.add(threads);
            port = new DatagramPort<>(ReplicaConfig.builder().id(id).members(members).clusterSecret(secret).build(), channel,
                    TextCodec.INSTANCE, group, registry, threads, SystemClock.INSTANCE);
            open.add(0, port);
        }

        Node start() {
            port.start((from, m) -> {
                events.add(from + ":" + m);
                received.add(from + ":" + m);
            }, peer -> events.add("stamp:" + peer));
            return this;
        }

        double datagrams(String result, String reason) {
            Counter c = registry.find("parallax.net.datagrams").tag("result", result).tag("reason", reason).counter();
            return c == null ? -1 : c.count();
        }

        double bytesSent(String channel) {
            Counter c = registry.find("parallax.net.datagram.bytes.sent").tag("channel", channel).counter();
            return c == null ? -1 : c.count();
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private static String channel() {
        return "mcast-test-" + CHANNELS.incrementAndGet();
    }

    private static DatagramGroupConfig group(int packetBytes) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return DatagramGroupConfig.builder().group("239.255." + r.nextInt(100, 250) + "." + r.nextInt(1, 255))
                .port(LocalPorts.next()).packetBytes(packetBytes).socketBufferBytes(1 << 20).build();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(20), condition);
    }

    private List<Node> cluster(ClusterMembers members, String channel, DatagramGroupConfig group) {
        List<Node> nodes = new ArrayList<>();
        for (int id = 0; id < members.size(); id++) {
            nodes.add(new Node(members, id, channel, group).start());
        }
        return nodes;
    }

    @Test
    @DisplayName("R1 contract: a datagram reaches every other member of the group and never its sender; arrivals are stamped first")
    void eachDatagramReachesTheOtherTwo() throws InterruptedException {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));
        String channel = channel();
        List<Node> nodes = cluster(members, channel, group(8192));
        for (int id = 0; id < 3; id++) {
            assertThat(nodes.get(id).port.sendDatagram(0, "hello-" + id)).isTrue();
        }
        for (int id = 0; id < 3; id++) {
            Node n = nodes.get(id);
            int bytes = DatagramPort.HEADER_BYTES + 4 + ("hello-" + id).length() + DatagramPort.AUTH_TRAILER_BYTES;
            // The sender counts a datagram after the socket took it: its own loop-back (or the
            // others' receipt) may come first, so the counts are part of the wait.
            await("member " + id + " hears both others and its own loop-back, and counts what it sent",
                    () -> n.received.size() == 2 && n.datagrams("dropped", "own") == 1
                            && n.datagrams("sent", "none") == 1 && n.bytesSent(channel) == bytes);
        }
        for (int id = 0; id < 3; id++) {
            Node n = nodes.get(id);
            List<String> expected = new ArrayList<>();
            for (int other = 0; other < 3; other++) {
                if (other != id) {
                    expected.add(other + ":hello-" + other);
                }
            }
            assertThat(n.received).containsExactlyInAnyOrderElementsOf(expected);
            List<String> events = List.copyOf(n.events);
            for (String m : expected) {
                int at = events.indexOf(m);
                assertThat(events.get(at - 1)).as("stamp before the message").isEqualTo("stamp:" + m.charAt(0));
            }
            assertThat(n.datagrams("sent", "none")).isEqualTo(1);
            assertThat(n.datagrams("received", "none")).isEqualTo(2);
            int bytes = DatagramPort.HEADER_BYTES + 4 + ("hello-" + id).length() + DatagramPort.AUTH_TRAILER_BYTES;
            assertThat(n.bytesSent(channel)).isEqualTo(bytes);
            assertThat(n.registry.get("parallax.net.datagram.socket.buffer").tag("buffer", "receive").gauge().value())
                    .isEqualTo(n.port.receiveBufferBytes()).isPositive();
        }
        assertThatThrownBy(() -> nodes.get(0).port.send(1, "x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> nodes.get(0).port.sendDatagram(1, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("a cluster sharing the group and port with other members is ignored: foreign cluster tag dropped and counted")
    void foreignClusterTagDropped() throws InterruptedException {
        DatagramGroupConfig group = group(8192);
        ClusterMembers ours = ClusterMembers.parse(LocalPorts.endpoints(2));
        ClusterMembers theirs = ClusterMembers.parse(LocalPorts.endpoints(2));
        assertThat(DatagramPort.clusterTag(ours)).isNotEqualTo(DatagramPort.clusterTag(theirs));
        List<Node> nodes = cluster(ours, channel(), group);
        Node stranger = new Node(theirs, 1, channel(), group).start();
        assertThat(stranger.port.sendDatagram(0, "not for you")).isTrue();
        await("the foreign datagram is counted", () -> nodes.get(0).datagrams("dropped", "foreign") == 1
                && nodes.get(1).datagrams("dropped", "foreign") == 1);
        nodes.get(1).port.sendDatagram(0, "ours");
        await("our own cluster still talks", () -> nodes.get(0).received.size() == 1);
        assertThat(nodes.get(0).received).containsExactly("1:ours");
        assertThat(nodes.get(1).received).isEmpty();
        assertThat(stranger.received).isEmpty();
        await("the stranger drops ours", () -> stranger.datagrams("dropped", "foreign") == 1);
    }

    @Test
    @DisplayName("a datagram above mring.packet.bytes is refused at the sender and dropped at a receiver, both counted")
    void oversizeRefused() throws Exception {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        DatagramGroupConfig group = group(512);
        List<Node> nodes = cluster(members, channel(), group);
        String fits = "x".repeat(512 - DatagramPort.HEADER_BYTES - 4);
        assertThat(nodes.get(0).port.sendDatagram(0, fits + "y")).isFalse();
        assertThat(nodes.get(0).datagrams("dropped", "size")).isEqualTo(1);
        assertThat(nodes.get(0).port.sendDatagram(0, fits)).isTrue();
        await("the largest datagram that fits arrives and is counted sent",
                () -> nodes.get(1).received.size() == 1 && nodes.get(0).datagrams("sent", "none") == 1);
        assertThat(nodes.get(1).received).containsExactly("0:" + fits);
        assertThat(nodes.get(0).datagrams("sent", "none")).isEqualTo(1);

        try (DatagramChannel raw = rawSender()) {
            raw.send(ByteBuffer.allocate(512 + DatagramPort.AUTH_TRAILER_BYTES + 1),
                    new InetSocketAddress(group.groupAddress(), group.port()));
        }
        await("the receiver drops an oversized datagram", () -> nodes.get(1).datagrams("dropped", "size") == 1);
        assertThat(nodes.get(1).received).hasSize(1);
    }

    @Test
    @DisplayName("malformed datagrams (short, bad magic, bad version, sender above the id range) are counted, one without a tag is "
            + "unauthenticated, and the port goes on")
    void malformedCountedNotCrashing() throws Exception {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        DatagramGroupConfig group = group(8192);
        List<Node> nodes = cluster(members, channel(), group);
        int tag = DatagramPort.clusterTag(members);
        InetSocketAddress to = new InetSocketAddress(group.groupAddress(), group.port());
        try (DatagramChannel raw = rawSender()) {
            raw.send(ByteBuffer.wrap(new byte[] {'P', 'X', 1}), to);
            raw.send(header('Q', 1, tag, 0, 1).flip(), to);
            raw.send(header('X', 9, tag, 0, 1).flip(), to);
            raw.send(header('X', 1, tag, 40, 1).flip(), to);
            ByteBuffer truncated = header('X', 1, tag, 0, 1).putInt(100).put((byte) 'a').flip();
            raw.send(truncated, to);
        }
        Node receiver = nodes.get(1);
        await("four malformed datagrams and an unauthenticated one counted", () -> receiver.datagrams("dropped", "malformed") == 4
                && receiver.datagrams("dropped", "unauthenticated") == 1);
        assertThat(receiver.received).isEmpty();
        assertThat(receiver.events).as("a datagram of an out-of-range sender is not stamped").noneMatch(e -> e.startsWith("stamp:40"));
        nodes.get(0).port.sendDatagram(0, "still here");
        await("the port goes on", () -> receiver.received.size() == 1);
        assertThat(receiver.received).containsExactly("0:still here");
    }

    @Test
    @DisplayName("mring.test.faults drop=1 loses every datagram at the receiver, counted as fault drops")
    void injectedFaults() throws InterruptedException {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        DatagramGroupConfig lossy = group(8192).toBuilder().faults(DatagramFaults.parse("drop=1,seed=3")).build();
        String channel = channel();
        Node sender = new Node(members, 0, channel, lossy).start();
        Node receiver = new Node(members, 1, channel, lossy.toBuilder().build()).start();
        for (int i = 0; i < 5; i++) {
            sender.port.sendDatagram(0, "m" + i);
        }
        await("five datagrams dropped by the injector", () -> receiver.datagrams("dropped", "fault") == 5);
        assertThat(receiver.received).isEmpty();
        assertThat(receiver.events).isEmpty();
    }

    @Test
    @DisplayName("close stops the receiver thread and the sender stage: no thread is left; later multicasts are refused")
    void closeLeavesNoThread() throws InterruptedException {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        String channel = channel();
        List<Node> nodes = cluster(members, channel, group(8192));
        nodes.get(0).port.sendDatagram(0, "one");
        await("delivered", () -> nodes.get(1).received.size() == 1);
        assertThat(threadsNamed(channel)).hasSize(4); // a receiver and a sender stage per member
        nodes.forEach(n -> n.port.close());
        nodes.forEach(n -> n.port.close()); // idempotent
        assertThat(threadsNamed(channel)).isEmpty();
        assertThat(nodes.get(0).port.sendDatagram(0, "late")).isFalse();
        assertThatThrownBy(() -> nodes.get(0).port.start((f, m) -> { })).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("an interface address no local interface has fails the constructor, naming mring.interface")
    void unknownInterface() {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        DatagramGroupConfig bad = group(8192).toBuilder().interfaceAddress("192.0.2.77").build();
        assertThatThrownBy(() -> new Node(members, 0, channel(), bad)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mring.interface");
    }

    @Test
    @DisplayName("an interface named in mring.interface (lo) is joined by name; a name no interface has fails the constructor")
    void interfaceByName() throws Exception {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        DatagramGroupConfig byName = group(8192).toBuilder().interfaceAddress("lo").build();
        String channel = channel();
        List<Node> nodes = cluster(members, channel, byName);
        nodes.get(0).port.sendDatagram(0, "by name");
        await("the datagram sent on lo arrives", () -> nodes.get(1).received.size() == 1);
        assertThat(nodes.get(1).received).containsExactly("0:by name");
        nodes.forEach(n -> n.port.close());
        DatagramGroupConfig missing = group(8192).toBuilder().interfaceAddress("plxnone9").build();
        assertThatThrownBy(() -> new Node(members, 0, channel(), missing)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is called plxnone9");
    }

    @Test
    @DisplayName("a datagram with the valid cluster tag but no valid HMAC (none, a made-up one, another secret's) is dropped "
            + "and counted as unauthenticated, never handed on or stamped")
    void forgedDatagramsUnauthenticated() throws Exception {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));
        DatagramGroupConfig group = group(8192);
        String channel = channel();
        List<Node> nodes = cluster(members, channel, group);
        Node outsider = new Node(members, 2, channel, group, ClusterSecret.random()).start();
        int tag = DatagramPort.clusterTag(members);
        InetSocketAddress to = new InetSocketAddress(group.groupAddress(), group.port());
        try (DatagramChannel raw = rawSender()) {
            raw.send(header('X', 1, tag, 0, 1).putInt(6).put("forged".getBytes()).flip(), to);
            ByteBuffer madeUp = header('X', 2, tag, 0, 1).putInt(6).put("forged".getBytes()).putLong(7).putLong(1);
            for (int i = 0; i < 16; i++) {
                madeUp.put((byte) i);
            }
            raw.send(madeUp.flip(), to);
        }
        assertThat(outsider.port.sendDatagram(0, "another secret")).isTrue();
        await("member 1 dropped the three forgeries", () -> nodes.get(1).datagrams("dropped", "unauthenticated") == 3);
        nodes.get(0).port.sendDatagram(0, "genuine");
        await("the genuine datagram arrives", () -> nodes.get(1).received.size() == 1);
        assertThat(nodes.get(1).received).containsExactly("0:genuine");
        assertThat(nodes.get(1).events).containsExactly("stamp:0", "0:genuine");
        assertThat(nodes.get(1).datagrams("dropped", "malformed")).isZero();
    }

    @Test
    @DisplayName("a genuine datagram captured on the group and sent again is dropped and counted as replayed: handed on once")
    void replayedDatagramDropped() throws Exception {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        DatagramGroupConfig group = group(8192);
        String channel = channel();
        InetSocketAddress to = new InetSocketAddress(group.groupAddress(), group.port());
        try (DatagramChannel listener = rawListener(group)) {
            List<Node> nodes = cluster(members, channel, group);
            nodes.get(0).port.sendDatagram(0, "pay once");
            await("delivered", () -> nodes.get(1).received.size() == 1);
            ByteBuffer captured = ByteBuffer.allocate(8192);
            Await.until("the listener captured the datagram", Duration.ofSeconds(20), () -> {
                try {
                    return listener.receive(captured) != null;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            captured.flip();
            try (DatagramChannel raw = rawSender()) {
                raw.send(captured.duplicate(), to);
                raw.send(captured.duplicate(), to);
            }
            await("two replays counted", () -> nodes.get(1).datagrams("dropped", "replayed") == 2);
            assertThat(nodes.get(1).received).containsExactly("0:pay once");
            assertThat(nodes.get(1).datagrams("dropped", "unauthenticated")).isZero();
        }
    }

    @Test
    @DisplayName("an authenticated group without a cluster secret refuses to open, naming cluster.secret and mring.auth; "
            + "mring.auth=none opens without one, and its unauthenticated datagrams are dropped by authenticated members")
    void noSecretRefusedUnlessAuthNone() throws Exception {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        DatagramGroupConfig group = group(8192);
        String channel = channel();
        assertThatThrownBy(() -> new Node(members, 0, channel, group, null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cluster.secret").hasMessageContaining("mring.auth");
        Node open = new Node(members, 0, channel, group.toBuilder().authenticated(false).build(), null).start();
        Node guarded = new Node(members, 1, channel, group).start();
        assertThat(open.port.sendDatagram(0, "plain")).isTrue();
        await("the authenticated member drops it", () -> guarded.datagrams("dropped", "unauthenticated") == 1);
        assertThat(guarded.port.sendDatagram(0, "sealed")).isTrue();
        await("the unauthenticated member drops a sealed datagram as malformed", () -> open.datagrams("dropped", "malformed") == 1);
        assertThat(open.received).isEmpty();
        assertThat(guarded.received).isEmpty();
        assertThatThrownBy(() -> new Node(members, 0, channel(), group(65_507), SECRET)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("trailer");
    }

    private static DatagramChannel rawListener(DatagramGroupConfig group) throws IOException {
        DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
        ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        ch.bind(new InetSocketAddress(group.groupAddress(), group.port()));
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1"));
        ch.join(group.groupAddress(), lo);
        ch.configureBlocking(false);
        return ch;
    }

    private static List<String> threadsNamed(String channel) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.contains(channel)).toList();
    }

    private static ByteBuffer header(char secondMagic, int version, int tag, int sender, int type) {
        return ByteBuffer.allocate(64).put((byte) 'P').put((byte) secondMagic).put((byte) version).putInt(tag)
                .putShort((short) sender).put((byte) type);
    }

    private static DatagramChannel rawSender() throws IOException {
        DatagramChannel raw = DatagramChannel.open(StandardProtocolFamily.INET);
        raw.setOption(StandardSocketOptions.IP_MULTICAST_IF,
                NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1")));
        raw.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
        return raw;
    }
}
