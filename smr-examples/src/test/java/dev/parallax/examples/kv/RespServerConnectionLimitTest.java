package dev.parallax.examples.kv;

import dev.parallax.core.config.Member;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.TlsSockets;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.core.wire.tls.TlsContexts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import javax.net.ssl.SSLSocket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis front end's connection limit ({@code redis.max.connections}), through Jedis and raw
 * sockets: up to the limit every client is served; the next one reads
 * {@code -ERR max number of clients reached}, as from Redis at {@code maxclients}, and is closed,
 * counted ({@code parallax.kv.resp.connections.refused}); the open connections are a gauge
 * ({@code parallax.kv.resp.connections.open}); a closed connection frees its place. Over TLS the
 * connection beyond is closed at once (nothing can be said before a handshake), and counted too.
 */
class RespServerConnectionLimitTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<AutoCloseable> open = new ArrayList<>();
    private RespServer server;

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(RespServerConfig config) throws IOException {
        server = new RespServer(config, new SynchronousInvoker(new KvStateMachine()), registry);
        server.start();
    }

    private Jedis jedis() {
        Jedis j = new Jedis("127.0.0.1", server.port());
        open.add(j);
        return j;
    }

    private double openGauge() {
        return registry.find("parallax.kv.resp.connections.open").gauge().value();
    }

    private double refused() {
        return registry.find("parallax.kv.resp.connections.refused").functionCounter().count();
    }

    /** Everything the server sends on a new connection before it closes it, the client sending nothing. */
    private String readUntilClosed() throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
            s.setSoTimeout(20_000);
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            for (int b = in.read(); b != -1; b = in.read()) {
                got.write(b);
            }
            return got.toString(StandardCharsets.US_ASCII);
        }
    }

    @Test
    void theDefaultIsRedissMaxclients() {
        assertThat(RespServerConfig.of("127.0.0.1", 0).maxConnections()).isEqualTo(10_000);
        assertThatThrownBy(() -> RespServerConfig.of("127.0.0.1", 0).withMaxConnections(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConnections");
    }

    @Test
    void theClientBeyondTheLimitReadsRedissRefusalAndAClosedClientFreesItsPlace() throws Exception {
        start(RespServerConfig.of("127.0.0.1", 0).withIoThreads(2).withMaxConnections(2));
        Jedis first = jedis();
        Jedis second = jedis();
        assertThat(first.set("k", "v")).isEqualTo("OK");
        assertThat(second.get("k")).isEqualTo("v");
        assertThat(openGauge()).isEqualTo(2);

        Jedis third = jedis();
        assertThatThrownBy(third::ping).as("a client that sends a command at once still reads the refusal")
                .isInstanceOf(JedisDataException.class).hasMessage("ERR max number of clients reached");
        assertThat(readUntilClosed()).isEqualTo("-ERR max number of clients reached\r\n");
        Await.until(Duration.ofSeconds(10), () -> refused() == 2, () -> "both refusals to be counted, got " + refused());
        assertThat(openGauge()).as("a refused connection is never counted open").isEqualTo(2);
        assertThat(first.get("k")).as("the admitted clients are still served").isEqualTo("v");

        first.close();
        Await.until(Duration.ofSeconds(10), () -> openGauge() == 1, () -> "the closed client to free its place, open " + openGauge());
        Jedis fourth = jedis();
        assertThat(fourth.get("k")).isEqualTo("v");
        assertThat(openGauge()).isEqualTo(2);
        assertThat(refused()).isEqualTo(2);
    }

    @Test
    void overTlsTheConnectionBeyondIsClosedAtOnceAndCounted(@TempDir Path dir) throws Exception {
        ClusterCertificates certs = ClusterCertificates.generate(dir, 1);
        start(RespServerConfig.of("127.0.0.1", 0).withIoThreads(1).withMaxConnections(1)
                .withTls(TlsContexts.load(certs.replicaTls(0, true))));
        Member port = new Member(0, "127.0.0.1", server.port());
        SSLSocket admitted = TlsSockets.connect(TlsSockets.context(certs.ca(), null, null), port);
        open.add(admitted);
        admitted.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] pong = admitted.getInputStream().readNBytes(7);
        assertThat(new String(pong, StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");

        assertThatThrownBy(() -> {
            try (SSLSocket beyond = TlsSockets.connect(TlsSockets.context(certs.ca(), null, null), port)) {
                beyond.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
                if (beyond.getInputStream().read() == -1) {
                    throw new SocketException("closed without an answer");
                }
            }
        }).as("the connection beyond the limit gets no handshake").isInstanceOf(IOException.class);
        Await.until(Duration.ofSeconds(10), () -> refused() == 1, () -> "the refusal to be counted, got " + refused());
        assertThat(openGauge()).isEqualTo(1);
        assertThat(registry.find("parallax.net.refused").tag("kind", "redis").counters())
                .as("not a TLS refusal: the connection never reached TLS").allMatch(c -> c.count() == 0);
    }
}
