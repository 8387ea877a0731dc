package dev.parallax.examples.volery.zk;

import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.core.wire.tls.TlsContexts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.proto.ConnectRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ZooKeeper port over TLS (ZooKeeper's {@code secureClientPort}) with the certificates
 * {@code ./parallax certs} writes: the official client, configured per client (ZKClientConfig:
 * {@code zookeeper.client.secure}, the Netty socket, the CA as a PEM trust store), connects, creates
 * and reads a znode; a plain client is refused and the refusal counted.
 */
class ZkServerTlsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ClusterCertificates certs;
    private ZkServer server;

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        certs = ClusterCertificates.generate(dir, 1);
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1)
                .withTls(TlsContexts.load(certs.replicaTls(0, true))), new LocalVoleryBackend(), registry);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private ZKClientConfig secure() {
        ZKClientConfig c = new ZKClientConfig();
        c.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        c.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        c.setProperty("zookeeper.ssl.trustStore.location", certs.ca().toString());
        c.setProperty("zookeeper.ssl.trustStore.type", "PEM");
        return c;
    }

    @Test
    void theOfficialClientCreatesAndReadsOverTls() throws Exception {
        ZooKeeper zk = new ZooKeeper("127.0.0.1:" + server.port(), 10_000, e -> { }, secure());
        try {
            ZkTesting.await("connected over TLS", () -> zk.getState() == ZooKeeper.States.CONNECTED);
            assertThat(zk.create("/tls", "secret".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT)).isEqualTo("/tls");
            assertThat(new String(zk.getData("/tls", false, null), StandardCharsets.UTF_8)).isEqualTo("secret");
        } finally {
            zk.close();
        }
        assertThat(ZkTesting.sessions(registry, "created")).isEqualTo(1);
    }

    @Test
    void aPlainClientIsRefused() throws Exception {
        try (RawZkConnection plain = new RawZkConnection(server.port())) {
            try {
                plain.sendFrame(RawZkConnection.serialize(new ConnectRequest(0, 0, 10_000, 0, new byte[16], false)));
            } catch (IOException closedAlready) {
                // the server may have closed it already
            }
            assertThat(plain.closedByServer()).isTrue();
        }
        ZkTesting.await("the refusal counted", () -> {
            var c = registry.find("parallax.net.refused").tag("kind", "zookeeper").tag("reason", "tls").counter();
            return c != null && c.count() == 1;
        });
        assertThat(server.sessionCount()).isZero();
    }
}
