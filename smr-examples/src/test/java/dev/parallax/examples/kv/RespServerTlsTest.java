package dev.parallax.examples.kv;

import dev.parallax.core.config.Member;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.testkit.cluster.TlsSockets;
import dev.parallax.core.testkit.Await;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLSocket;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis front end over TLS: a TLS client trusting the cluster's CA gets
 * PING, SET and GET answered; plain RESP and garbage bytes are refused, counted in
 * {@code parallax.net.refused{kind=redis,reason=tls}}, and the port goes on serving. (redis-cli
 * itself is run against a TLS replica in {@code TlsProcessClusterTest}.)
 */
class RespServerTlsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ClusterCertificates certs;
    private RespServer server;

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        certs = ClusterCertificates.generate(dir, 1);
        server = new RespServer(RespServerConfig.of("127.0.0.1", 0).withIoThreads(1)
                .withTls(TlsContexts.load(certs.replicaTls(0, true))), new SynchronousInvoker(new KvStateMachine()), registry);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private double refused() {
        Counter c = registry.find("parallax.net.refused").tag("kind", "redis").tag("reason", "tls").counter();
        return c == null ? 0 : c.count();
    }

    private static String command(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        return sb.toString();
    }

    @Test
    void aTlsClientGetsPingSetAndGetAnswered() throws Exception {
        try (SSLSocket s = TlsSockets.connect(TlsSockets.context(certs.ca(), null, null), new Member(0, "127.0.0.1", server.port()))) {
            OutputStream out = s.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            out.write((command("PING") + command("SET", "k", "over tls") + command("GET", "k")).getBytes(StandardCharsets.UTF_8));
            out.flush();
            assertThat(in.readLine()).isEqualTo("+PONG");
            assertThat(in.readLine()).isEqualTo("+OK");
            assertThat(in.readLine()).isEqualTo("$8");
            assertThat(in.readLine()).isEqualTo("over tls");
        }
        assertThat(refused()).isZero();
    }

    @Test
    void plainRespIsRefusedCountedAndThePortGoesOn() throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
            s.setSoTimeout(20_000);
            s.getOutputStream().write(command("SET", "k", "in clear").getBytes(StandardCharsets.UTF_8));
            InputStream in = s.getInputStream();
            try {
                while (in.read() != -1) {
                    // a TLS alert at most, then the close
                }
            } catch (SocketException reset) {
                // closed with a reset
            }
        }
        Await.until(Duration.ofSeconds(10), () -> refused() >= 1, () -> "the plain connection to be refused");
        assertThat(refused()).isEqualTo(1);
        try (SSLSocket s = TlsSockets.connect(TlsSockets.context(certs.ca(), null, null), new Member(0, "127.0.0.1", server.port()))) {
            s.getOutputStream().write(command("GET", "k").getBytes(StandardCharsets.UTF_8));
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            assertThat(in.readLine()).as("the plain SET never executed").isEqualTo("$-1");
        }
    }
}
