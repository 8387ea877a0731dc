package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Raw sockets sending what no client library would: the server answers or closes, and serves on. */
class RespServerBadInputTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private InProcessInvoker invoker;
    private RespServer server;

    @BeforeEach
    void start() throws IOException {
        invoker = new InProcessInvoker(new KvStateMachine(), 100, 7);
        server = new RespServer(RespServerConfig.of("127.0.0.1", 0).withIoThreads(2), invoker, registry);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
        invoker.close();
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.port());
        socket.setSoTimeout(20_000);
        return socket;
    }

    /** Sends {@code input}, half-closes, and returns everything the server wrote until it closed. */
    private String exchange(byte[] input) throws IOException {
        try (Socket socket = connect()) {
            socket.getOutputStream().write(input);
            socket.shutdownOutput();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private String exchange(String input) throws IOException {
        return exchange(input.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Reads exactly {@code n} bytes of reply. */
    private static String read(InputStream in, int n) throws IOException {
        return new String(in.readNBytes(n), StandardCharsets.ISO_8859_1);
    }

    private void assertServerStillServes() throws IOException {
        assertThat(exchange("SET alive yes\r\nGET alive\r\n")).isEqualTo("+OK\r\n$3\r\nyes\r\n");
    }

    @Test
    void inlineCommandsWorkOverAPlainSocket() throws IOException {
        assertThat(exchange("PING\r\nset k \"a b\"\nGET k\r\nQUIT\r\nPING\r\n"))
                .isEqualTo("+PONG\r\n+OK\r\n$3\r\na b\r\n+OK\r\n");
    }

    @Test
    void protocolErrorComesAfterEarlierRepliesAndClosesOnlyThatConnection() throws IOException {
        try (Socket bystander = connect()) {
            bystander.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(read(bystander.getInputStream(), 7)).isEqualTo("+PONG\r\n");

            try (Socket bad = connect()) {
                bad.getOutputStream().write("SET k v\r\nGET k\r\n*1\r\n$x\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
                byte[] reply = bad.getInputStream().readAllBytes();
                assertThat(new String(reply, StandardCharsets.US_ASCII))
                        .isEqualTo("+OK\r\n$1\r\nv\r\n-ERR Protocol error: invalid bulk length\r\n");
            }

            bystander.getOutputStream().write("GET k\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(read(bystander.getInputStream(), 7)).isEqualTo("$1\r\nv\r\n");
        }
        assertThat(registry.get("parallax.kv.resp.protocol.errors").counter().count()).isEqualTo(1);
    }

    @Test
    void oversizedLengthsAreRejected() throws IOException {
        assertThat(exchange("*2000000\r\n")).isEqualTo("-ERR Protocol error: invalid multibulk length\r\n");
        assertThat(exchange("*1\r\n$600000000\r\n")).isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
        assertThat(exchange("*1\r\n$99999999999999999999999999999999999\r\n"))
                .isEqualTo("-ERR Protocol error: too big bulk count string\r\n");
        byte[] longLine = new byte[70_000];
        Arrays.fill(longLine, (byte) 'a');
        assertThat(exchange(longLine)).isEqualTo("-ERR Protocol error: too big inline request\r\n");
        assertServerStillServes();
    }

    @Test
    void truncatedFramesAreDroppedWithTheirConnection() throws IOException {
        String frame = "*3\r\n$3\r\nSET\r\n$9\r\ntruncated\r\n$5\r\nvalue\r\n";
        for (int cut = 1; cut < frame.length() - 1; cut += 3) {
            assertThat(exchange(frame.substring(0, cut))).as("cut at %d", cut).isEmpty();
        }
        assertThat(exchange("EXISTS truncated\r\n")).isEqualTo(":0\r\n");
        assertServerStillServes();
    }

    @Test
    void randomBytesNeverStopTheServer() throws IOException {
        SplittableRandom random = new SplittableRandom(20240601);
        for (int i = 0; i < 40; i++) {
            byte[] junk = new byte[1 + random.nextInt(3000)];
            for (int j = 0; j < junk.length; j++) {
                junk[j] = (byte) random.nextInt(256);
            }
            if (i % 4 == 1) {
                junk[0] = '*';
            } else if (i % 4 == 2) {
                System.arraycopy("*2\r\n$".getBytes(StandardCharsets.US_ASCII), 0, junk, 0, Math.min(5, junk.length));
            }
            String reply = exchange(junk);
            for (String line : reply.split("\r\n")) {
                assertThat(line).as("reply line to junk #%d", i).matches("(?s)^([-+:*$].*)?");
            }
        }
        assertServerStillServes();
    }

    @Test
    void abruptDisconnectsWithCommandsInFlightDoNotDisturbOthers() throws IOException {
        for (int i = 0; i < 20; i++) {
            Socket socket = connect();
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int j = 0; j < 200; j++) {
                burst.writeBytes(("INCR c" + i + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            socket.getOutputStream().write(burst.toByteArray());
            socket.setSoLinger(true, 0);
            socket.close();
        }
        assertServerStillServes();
    }

    @Test
    void portZeroBindsAFreePortAndCloseReleasesIt() throws IOException {
        int port = server.port();
        assertThat(port).isPositive();
        server.close();
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        assertThatThrownBy(server::port).isInstanceOf(IllegalStateException.class);
        server.close();
    }

    @Test
    void startTwiceOrOnABusyPortFails() {
        assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
        RespServer clash = new RespServer(RespServerConfig.of("127.0.0.1", server.port()), invoker);
        assertThatThrownBy(clash::start).isInstanceOf(IOException.class).hasMessageContaining("cannot bind");
        clash.close();
    }
}
