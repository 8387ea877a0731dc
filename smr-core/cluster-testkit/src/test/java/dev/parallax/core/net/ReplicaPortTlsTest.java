package dev.parallax.core.net;

import dev.parallax.core.testkit.TextCodec;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.testkit.cluster.TlsSockets;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who may talk on the replica port. Without TLS, any process that connects and
 * says HELLO as a replica is taken for it (the hazard, kept as the reason TLS exists). With mutual
 * TLS, a stranger without a certificate, with bytes that are not TLS, with a certificate of another
 * CA, or with a valid replica certificate announcing another replica's id is refused, counted in
 * {@code parallax.net.refused{kind=replica,reason}} and delivers nothing; a replica dialling a peer
 * sends nothing to an impostor answering at the peer's address; and three replicas with the right
 * certificates talk as before. A connection that never completes its handshake is closed after the
 * handshake time-out and counted.
 */
class ReplicaPortTlsTest {
    @TempDir
    static Path certDir;
    @TempDir
    static Path otherCaDir;
    private static ClusterCertificates certs;
    private static ClusterCertificates otherCa;

    private final ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void generateCertificates() throws IOException {
        certs = ClusterCertificates.generate(certDir, 3);
        otherCa = ClusterCertificates.generate(otherCaDir, 3);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private record Port(ReplicaPort port, SimpleMeterRegistry registry, BlockingQueue<String> received, Transport<String> text) {
        double refused(String reason) {
            Counter c = registry.find("parallax.net.refused").tag("kind", "replica").tag("reason", reason).counter();
            return c == null ? 0 : c.count();
        }
    }

    /** Replica {@code id}'s port with channel "text" started; TLS with {@code tls} unless null. */
    private Port port(int id, TlsConfig tls) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StageThreads threads = StageThreads.builder(ThreadPlacement.STAGED).meterRegistry(registry).build();
        open.add(threads);
        ReplicaConfig.Builder config = ReplicaConfig.builder().id(id).members(members);
        if (tls != null) {
            config.tls(tls);
        }
        ReplicaPort port = new ReplicaPort(config.build(), registry, threads, SystemClock.INSTANCE);
        open.add(port);
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        Transport<String> text = port.channel("text", TextCodec.INSTANCE);
        text.start((from, m) -> received.add(from + ":" + m));
        return new Port(port, registry, received, text);
    }

    private Port tlsPort(int id) {
        return port(id, certs.replicaTls(id, false));
    }

    @Test
    void withoutTlsAStrangerSayingHelloIsTakenForAReplica() throws Exception {
        Port p = port(0, null);
        try (Socket s = RoguePeer.connect(members.member(0))) {
            s.getOutputStream().write(RoguePeer.forgedFrames(1, 3, "text", "forged"));
            assertThat(p.received().poll(10, TimeUnit.SECONDS))
                    .as("the hazard TLS closes: a process without credentials speaks as replica 1").isEqualTo("1:forged");
        }
    }

    @Test
    void plainBytesToATlsPortAreRefusedCountedAndDeliverNothing() throws Exception {
        Port p = tlsPort(0);
        try (Socket s = RoguePeer.connect(members.member(0))) {
            RoguePeer.sendAndAwaitClose(s, RoguePeer.forgedFrames(1, 3, "text", "forged"));
        }
        await(() -> p.refused("tls") >= 1, "the refusal counted");
        assertThat(p.refused("tls")).as("counted once").isEqualTo(1);
        assertThat(p.received()).as("nothing delivered").isEmpty();
        assertThat(p.refused("identity")).isZero();
        assertThat(p.port().metrics()).isNotNull();
    }

    @Test
    void aConnectionThatNeverCompletesItsHandshakeIsClosedAndCounted() throws Exception {
        TlsConfig quick = TlsConfig.builder().replicaPort(true).trust(certs.ca()).identity(certs.cert(0), certs.key(0))
                .handshakeTimeout(java.time.Duration.ofMillis(300)).build();
        Port p = port(0, quick);
        long start = System.nanoTime();
        try (Socket s = RoguePeer.connect(members.member(0))) {
            RoguePeer.awaitClose(s); // sends nothing at all
        }
        assertThat(System.nanoTime() - start).as("closed by the handshake time-out, not the test's").isLessThan(TimeUnit.SECONDS.toNanos(20));
        await(() -> p.refused("tls") >= 1, "the time-out counted");
        assertThat(p.refused("tls")).as("counted once").isEqualTo(1);
    }

    @Test
    void aPeerWithoutACertificateIsRefusedAndCounted() throws Exception {
        Port p = tlsPort(0);
        SSLContext noCertificate = TlsSockets.context(certs.ca(), null, null);
        try (SSLSocket s = TlsSockets.connect(noCertificate, members.member(0))) {
            RoguePeer.sendAndAwaitClose(s, RoguePeer.forgedFrames(1, 3, "text", "forged"));
        } catch (javax.net.ssl.SSLException refusedInHandshake) {
            // TLS 1.2 refuses during the handshake, TLS 1.3 right after it: refused either way
        }
        await(() -> p.refused("tls") >= 1, "the refusal counted");
        assertThat(p.refused("tls")).as("counted once").isEqualTo(1);
        assertThat(p.received()).as("nothing delivered").isEmpty();
    }

    @Test
    void aReplicaCertificateAnnouncingAnotherIdIsRefusedAndCounted() throws Exception {
        Port p = tlsPort(0);
        SSLContext replica2 = TlsSockets.context(certs.ca(), certs.cert(2), certs.key(2));
        try (SSLSocket s = TlsSockets.connect(replica2, members.member(0))) {
            RoguePeer.sendAndAwaitClose(s, RoguePeer.forgedFrames(1, 3, "text", "forged as 1"));
        }
        await(() -> p.refused("identity") >= 1, "the identity refusal counted");
        assertThat(p.refused("identity")).as("counted once").isEqualTo(1);
        assertThat(p.received()).as("nothing delivered").isEmpty();
        assertThat(p.refused("tls")).as("the handshake itself was fine").isZero();

        // The same certificate announcing its own id is a replica like any other.
        try (SSLSocket s = TlsSockets.connect(replica2, members.member(0))) {
            s.getOutputStream().write(RoguePeer.forgedFrames(2, 3, "text", "from 2"));
            assertThat(p.received().poll(10, TimeUnit.SECONDS)).isEqualTo("2:from 2");
        }
    }

    @Test
    void aCertificateOfAnotherCaIsRefused() throws Exception {
        Port p = tlsPort(0);
        SSLContext stranger = TlsSockets.context(certs.ca(), otherCa.cert(1), otherCa.key(1));
        try (SSLSocket s = TlsSockets.connect(stranger, members.member(0))) {
            RoguePeer.sendAndAwaitClose(s, RoguePeer.forgedFrames(1, 3, "text", "forged"));
        } catch (javax.net.ssl.SSLException refusedInHandshake) {
            // refused during the handshake
        }
        await(() -> p.refused("tls") >= 1, "the refusal counted");
        assertThat(p.refused("tls")).as("counted once").isEqualTo(1);
        assertThat(p.received()).as("nothing delivered").isEmpty();
    }

    @Test
    void aReplicaSendsNothingToAnImpostorAtItsPeersAddress() throws Exception {
        // Replica 1's address answered by a process holding replica 2's (valid) certificate.
        SSLContext replica2 = TlsSockets.context(certs.ca(), certs.cert(2), certs.key(2));
        Set<String> heard = ConcurrentHashMap.newKeySet();
        SSLServerSocket impostor = TlsSockets.listen(replica2, members.member(1).port());
        open.add(impostor);
        CompletableFuture<Void> serving = CompletableFuture.runAsync(() -> serve(impostor, heard));
        Port p = tlsPort(0);
        await(() -> {
            p.text().send(1, "secret");
            return p.refused("identity") >= 2;
        }, "replica 0 refusing the impostor's certificate, attempt after attempt");
        impostor.close();
        serving.get(30, TimeUnit.SECONDS);
        assertThat(heard).as("application bytes the impostor received").isEmpty();
        assertThat(p.refused("tls")).isZero();
    }

    /** Accepts connections and records any application byte received, until the socket closes. */
    private static void serve(SSLServerSocket server, Set<String> heard) {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                InputStream in = s.getInputStream();
                int b;
                while ((b = in.read()) != -1) {
                    heard.add("byte " + b);
                }
            } catch (SocketTimeoutException | javax.net.ssl.SSLException e) {
                // the replica closed the connection on us or never sent: next
            } catch (IOException e) {
                if (!server.isClosed()) {
                    heard.add("error " + e);
                }
            }
        }
    }

    @Test
    void threeReplicasWithTheirCertificatesTalkOverMutualTls() throws Exception {
        List<Port> ports = List.of(tlsPort(0), tlsPort(1), tlsPort(2));
        for (int from = 0; from < 3; from++) {
            for (int to = 0; to < 3; to++) {
                if (to != from) {
                    int f = from;
                    int t = to;
                    // The first messages may be dropped while the connection is being set up: resend until heard.
                    await(() -> {
                        ports.get(f).text().send(t, "hello " + f + " to " + t);
                        try {
                            String m = ports.get(t).received().poll(100, TimeUnit.MILLISECONDS);
                            return m != null && m.equals(f + ":hello " + f + " to " + t);
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    }, "replica " + f + " heard by " + t);
                    ports.get(t).received().clear();
                }
            }
        }
        for (Port p : ports) {
            assertThat(p.refused("tls")).isZero();
            assertThat(p.refused("identity")).isZero();
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(30), condition);
    }
}
