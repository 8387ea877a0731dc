package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.ClusterUnavailableException;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.wire.NetMetrics;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.snapshot.SnapshotStore;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.testkit.Await;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * TLS on the client port: an {@link SmrClient} trusting the cluster's CA is
 * served; a plain client, garbage bytes and a client that does not trust the replica are refused
 * (the replica counts {@code parallax.net.refused{kind=client,reason=tls}}) and nothing they send
 * reaches the RequestQueue; a client refuses a replica whose certificate names another replica;
 * snapshot fetches between replicas run over the same TLS and check the serving replica's name.
 */
class ClientIOTlsTest {
    @TempDir
    static Path dir;
    private static ClusterCertificates certs;
    private static ClusterCertificates otherCa;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BoundedQueue<Command> requests = Queues.mpsc(64);
    private final ReplyRouter router = new ReplyRouter();
    private final Queue<Command> seen = new ConcurrentLinkedQueue<>();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(2));
    private volatile boolean running = true;
    private ClientIO io;
    private Thread executor;

    @BeforeAll
    static void generate() throws Exception {
        certs = ClusterCertificates.generate(dir.resolve("cluster"), 3);
        otherCa = ClusterCertificates.generate(dir.resolve("other"), 3);
    }

    /** Replica 0's client port with {@code tls}, answering every request with its own payload. */
    private void start(TlsConfig tls) {
        ReplicaConfig config = ReplicaConfig.builder().id(0).members(ClusterMembers.parse(LocalPorts.endpoints(2)))
                .clientMembers(clients).clientIoThreads(1).tls(tls).build();
        io = new ClientIO(config, requests, () -> 0, router, null, new NetMetrics(registry, "client"));
        io.start();
        executor = new Thread(() -> {
            while (running) {
                Command c = requests.poll();
                if (c == null) {
                    LockSupport.parkNanos(50_000);
                    continue;
                }
                seen.add(c);
                router.reply(c.id(), CommandResult.ok(c.payload()));
            }
        }, "stand-in-executor");
        executor.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        running = false;
        if (executor != null) {
            executor.join();
        }
        if (io != null) {
            io.close();
        }
    }

    private SmrClient client(ClientConfig.Builder b) {
        return client(b, Duration.ofMillis(300), Duration.ofSeconds(3));
    }

    private SmrClient client(ClientConfig.Builder b, Duration retryTimeout, Duration invokeTimeout) {
        SmrClient c = SmrClient.connect(b.retryTimeout(retryTimeout).invokeTimeout(invokeTimeout).build());
        open.add(c);
        return c;
    }

    private double refused(String reason) {
        Counter c = registry.find("parallax.net.refused").tag("kind", "client").tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aClientTrustingTheCaIsServedOverTls() throws Exception {
        start(certs.replicaTls(0, true));
        // The first command waits for a cold TLS handshake (key generation, class loading, JIT): time
        // enough for it on a slow machine; how fast it is is not what this test is about.
        SmrClient c = client(ClientConfig.builder(clients).tlsTrust(certs.ca()), Duration.ofSeconds(2), Duration.ofSeconds(20));
        for (int i = 0; i < 20; i++) {
            assertThat(StandardCharsets.UTF_8.decode(c.invoke(text("hello " + i)).get(30, TimeUnit.SECONDS)).toString())
                    .isEqualTo("hello " + i);
        }
        assertThat(refused("tls")).isZero();
        assertThat(refused("identity")).isZero();
    }

    @Test
    void aPlainClientIsRefusedCountedAndNeverHeard() throws Exception {
        start(certs.replicaTls(0, true));
        SmrClient plain = client(ClientConfig.builder(clients));
        assertThatThrownBy(() -> plain.invoke(text("in clear")).get(20, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClusterUnavailableException.class);
        assertThat(refused("tls")).as("refused connections").isPositive();
        assertThat(seen).as("requests that reached the replica").isEmpty();
    }

    @Test
    void garbageBytesAreCountedAndClosed() throws Exception {
        start(certs.replicaTls(0, true));
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(clients.member(0).host(), clients.member(0).port()), 10_000);
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            byte[] garbage = new byte[4096];
            new java.util.Random(7).nextBytes(garbage);
            out.write(garbage);
            InputStream in = s.getInputStream();
            try {
                while (in.read() != -1) {
                    // whatever the port answers, it closes
                }
            } catch (SocketException reset) {
                // closed with a reset
            }
        }
        Await.until(Duration.ofSeconds(10), () -> refused("tls") >= 1, () -> "the garbage connection to be refused");
        assertThat(refused("tls")).isEqualTo(1);
        // ... and the port goes on serving.
        SmrClient c = client(ClientConfig.builder(clients).tlsTrust(certs.ca()));
        assertThat(c.invoke(text("still here")).get(20, TimeUnit.SECONDS)).isEqualTo(text("still here"));
    }

    @Test
    void aClientThatDoesNotTrustTheReplicaSendsNothing() throws Exception {
        start(certs.replicaTls(0, true));
        SmrClient stranger = client(ClientConfig.builder(clients).tlsTrust(otherCa.ca()));
        assertThatThrownBy(() -> stranger.invoke(text("x")).get(20, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClusterUnavailableException.class);
        assertThat(seen).isEmpty();
        assertThat(refused("tls")).as("the replica sees the handshakes fail").isPositive();
    }

    @Test
    void aClientRefusesAReplicaWhoseCertificateNamesAnotherReplica() throws Exception {
        // Replica 0's client port answered with replica 1's (valid) certificate.
        start(TlsConfig.builder().clientPorts(true).trust(certs.ca()).identity(certs.cert(1), certs.key(1)).build());
        SmrClient c = client(ClientConfig.builder(clients).tlsTrust(certs.ca()));
        assertThatThrownBy(() -> c.invoke(text("for replica 0 only")).get(20, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClusterUnavailableException.class);
        assertThat(seen).as("what the impostor heard").isEmpty();
    }

    @Test
    void snapshotsTravelBetweenReplicasOverTlsAndOnlyFromTheReplicaAsked(@TempDir Path data) throws Exception {
        start(certs.replicaTls(0, true));
        SnapshotStore peerStore = new SnapshotStore(data.resolve("peer"));
        SnapshotStore.Snapshot s = peerStore.write(100, out -> {
            ByteBuffer body = ByteBuffer.wrap(new byte[3 * SnapshotServer.CHUNK + 17]);
            while (body.hasRemaining()) {
                out.write(body);
            }
        });
        SnapshotServer server = new SnapshotServer(0, peerStore, new SimpleMeterRegistry());
        open.add(server);
        io.serveSnapshots(server);
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotTransfer fetcher = new SnapshotTransfer(1, clients, new SnapshotStore(data.resolve("mine")), installed::add,
                Duration.ofSeconds(10), Long.MAX_VALUE, 1 << 20, new SimpleMeterRegistry(), TlsContexts.load(certs.replicaTls(1, true)));
        open.add(fetcher);

        assertThat(fetcher.fetch(0, 100).get(30, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.INSTALLED);
        assertThat(Files.readAllBytes(installed.get(0).file())).isEqualTo(Files.readAllBytes(s.file()));

        // Asking replica 1 at replica 0's address: the certificate names replica 0, so no request leaves.
        ClusterMembers wrong = ClusterMembers.of(new dev.parallax.core.config.Member(0, "127.0.0.1", 1),
                new dev.parallax.core.config.Member(1, clients.member(0).host(), clients.member(0).port()));
        SnapshotTransfer misdirected = new SnapshotTransfer(2, wrong, new SnapshotStore(data.resolve("other")), installed::add, Duration.ofSeconds(10),
                Long.MAX_VALUE, 1 << 20, new SimpleMeterRegistry(), TlsContexts.load(certs.replicaTls(2, true)));
        open.add(misdirected);
        assertThat(misdirected.fetch(1, 100).get(30, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.UNREACHABLE);
        assertThat(installed).hasSize(1);
    }
}
