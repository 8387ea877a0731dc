package dev.parallax.core.net;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.TextCodec;
import dev.parallax.core.time.SystemClock;
import dev.parallax.core.wire.BodyReader;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.wire.tls.ClusterCertificates;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Membership changes on a real replica port over loopback: a replica joining with an id outside
 * the cluster file talks both ways with a member that added it, and is heard by one that did not
 * yet (behind the change), which sends to it only once it added it; a removed replica's sends are
 * refused and its frames no longer delivered, counted, not taken for bad frames, until it is added
 * again; a hello from a replica never known is heard (a joiner must hear the members added since
 * the cluster file, a leader among them); an
 * addition before the port starts is remembered; and with mutual TLS a joiner still needs a
 * certificate naming its id.
 */
class ReplicaPortMembershipTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** The cluster file: replicas 0 and 1; replica 2 joins at {@link #joinAt}. */
    private final ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
    private final Member joinAt = new Member(2, "127.0.0.1", LocalPorts.next());
    private final List<AutoCloseable> open = new ArrayList<>();

    @TempDir
    Path certDir;

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private record Port(ReplicaPort port, SimpleMeterRegistry registry, BlockingQueue<String> received, Transport<String> text) {
        double count(String name, String... tags) {
            Counter c = registry.find(name).tags(tags).counter();
            return c == null ? 0 : c.count();
        }

        double refusedNonMembers() {
            return count("parallax.net.refused", "kind", "replica", "reason", "member");
        }
    }

    private ReplicaConfig.Builder config(int id) {
        ReplicaConfig.Builder b = ReplicaConfig.builder().id(id).members(members);
        return id < members.size() ? b : b.joinAddress(joinAt.host(), joinAt.port());
    }

    /** A port with channel "text", not yet started. */
    private Port unstarted(ReplicaConfig config) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StageThreads threads = StageThreads.builder(ThreadPlacement.STAGED).meterRegistry(registry).build();
        open.add(threads);
        ReplicaPort port = new ReplicaPort(config, registry, threads, SystemClock.INSTANCE);
        open.add(port);
        return new Port(port, registry, new LinkedBlockingQueue<>(), port.channel("text", TextCodec.INSTANCE));
    }

    private Port start(Port p) {
        p.text().start((from, m) -> p.received().add(from + ":" + m));
        return p;
    }

    private Port started(int id) {
        return start(unstarted(config(id).build()));
    }

    /**
     * Sends {@code text} from {@code from} to {@code to} until {@code at} received it (connections
     * come up asynchronously, and a message sent while they are down is dropped); copies may still
     * arrive afterwards.
     */
    private static void deliver(Port from, int to, Port at, String text) throws InterruptedException {
        String expected = from.text().localId() + ":" + text;
        Await.until(WAIT, () -> {
            from.text().send(to, text);
            return at.received().contains(expected);
        }, () -> "'" + text + "' from " + from.text().localId() + " to " + to);
        at.received().clear();
    }

    @Test
    void aJoiningReplicaTalksBothWaysWithAMemberThatAddedItAndIsHeardByOneBehindTheChange() throws Exception {
        Port p0 = started(0);
        Port p1 = started(1);
        Port joiner = started(2);
        p0.text().addMember(2, joinAt.host(), joinAt.port());
        p0.text().addMember(2, joinAt.host(), joinAt.port()); // idempotent
        p0.text().addMember(1, members.member(1).host(), members.member(1).port()); // a file member, unchanged

        deliver(joiner, 0, p0, "to a member that added me");
        deliver(p0, 2, joiner, "to the replica I added");
        deliver(p0, 1, p1, "the file member still hears me");

        // Replica 1 has not applied the change yet: it hears the joiner (it may be behind the
        // change that added it), but does not send to it.
        deliver(joiner, 1, p1, "to a member behind the change");
        assertThat(p1.refusedNonMembers()).as("no refusal").isZero();
        assertThat(p1.count("parallax.net.bad.frames", "kind", "replica")).as("no bad frame").isZero();
        assertThatThrownBy(() -> p1.text().send(2, "x")).as("never a member here").isInstanceOf(IllegalArgumentException.class);

        // Replica 1 learns of the joiner (its membership change is decided there now): it answers.
        p1.text().addMember(2, joinAt.host(), joinAt.port());
        deliver(p1, 2, joiner, "and answered once added");
    }

    @Test
    void aRemovedReplicaIsNeitherSentToNorHeardUntilAddedAgain() throws Exception {
        Port p0 = started(0);
        Port joiner = started(2);
        p0.port().addMember(2, joinAt.host(), joinAt.port());
        deliver(joiner, 0, p0, "before");
        deliver(p0, 2, joiner, "before");

        p0.port().removeMember(2);
        p0.port().removeMember(2); // idempotent
        double dropped = p0.count("parallax.net.dropped", "kind", "replica");
        assertThat(p0.text().send(2, "after removal")).as("send to a removed member").isFalse();
        assertThat(p0.count("parallax.net.dropped", "kind", "replica")).as("counted as dropped (with what was still queued)")
                .isGreaterThanOrEqualTo(dropped + 1);
        AtomicInteger sent = new AtomicInteger();
        Await.until(WAIT, () -> {
            joiner.text().send(0, "after removal " + sent.incrementAndGet());
            return p0.refusedNonMembers() >= 1;
        }, () -> "replica 0 to refuse the removed replica's frames");
        assertThat(p0.received()).as("none of %d messages sent after the removal delivered", sent.get())
                .noneMatch(m -> m.startsWith("2:after removal"));

        p0.text().addMember(2, joinAt.host(), joinAt.port());
        deliver(joiner, 0, p0, "added again");
        deliver(p0, 2, joiner, "added again");
    }

    @Test
    void aHelloFromAReplicaNeverKnownIsHeardButNeverSentTo() throws Exception {
        Port p0 = started(0);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(members.member(0).host(), members.member(0).port()), 10_000);
            s.setSoTimeout(30_000);
            s.getOutputStream().write(frames(5, members.size(), "text", "from a replica added since the file"));
            s.getOutputStream().flush();
            Await.until(WAIT, () -> p0.received().contains("5:from a replica added since the file"),
                    () -> "the message of replica 5 delivered");
        }
        assertThat(p0.refusedNonMembers()).isZero();
        assertThat(p0.count("parallax.net.bad.frames", "kind", "replica")).isZero();
        assertThatThrownBy(() -> p0.text().send(5, "x")).as("not a member: never sent to")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p0.text().send(32, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p0.port().addMember(32, "127.0.0.1", 7000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p0.port().addMember(0, "127.0.0.1", 7000)).as("itself")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMemberAddedBeforeThePortStartsIsDialledWhenItStarts() throws Exception {
        Port p0 = unstarted(config(0).build());
        p0.port().addMember(2, joinAt.host(), joinAt.port());
        start(p0);
        Port joiner = started(2);
        deliver(p0, 2, joiner, "dialled at start");
        deliver(joiner, 0, p0, "accepted");
    }

    @Test
    void withTlsAJoinerNeedsACertificateNamingItsId() throws Exception {
        ClusterCertificates certs = ClusterCertificates.generate(certDir, 3);
        Port p0 = start(unstarted(config(0).tls(certs.replicaTls(0, false)).build()));
        p0.port().addMember(2, joinAt.host(), joinAt.port());
        TlsConfig asReplica1 = TlsConfig.builder().replicaPort(true).trust(certs.ca()).identity(certs.cert(1), certs.key(1)).build();
        Port impostor = start(unstarted(config(2).tls(asReplica1).build()));
        Await.until(WAIT, () -> {
            impostor.text().send(0, "claims to be 2");
            return p0.count("parallax.net.refused", "kind", "replica", "reason", "identity") >= 1;
        }, () -> "replica 0 to refuse a certificate naming replica 1 in a hello from replica 2");
        assertThat(p0.received()).isEmpty();
        impostor.port().close();

        Port joiner = start(unstarted(config(2).tls(certs.replicaTls(2, false)).build()));
        deliver(joiner, 0, p0, "with my own certificate");
        deliver(p0, 2, joiner, "verified");
    }

    /** A hello as {@code claimedId}, an announcement of {@code channel} as 1, and {@code text} on it (TextCodec). */
    private static byte[] frames(int claimedId, int clusterSize, String channel, String text) {
        ByteBuf b = Unpooled.buffer();
        Frames.writeHeader(b, ReplicaPort.HELLO, 9);
        b.writeByte(ReplicaPort.CONTROL).writeInt(claimedId).writeInt(clusterSize);
        byte[] name = channel.getBytes(StandardCharsets.UTF_8);
        int at = Frames.startFrame(b, ReplicaPort.ANNOUNCE);
        b.writeByte(ReplicaPort.CONTROL).writeByte(1).writeInt(name.length).writeBytes(name);
        Frames.finishFrame(b, at);
        at = Frames.startFrame(b, 1);
        b.writeByte(1);
        BodyReader.writeBuffer(b, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        Frames.finishFrame(b, at);
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        return bytes;
    }
}
