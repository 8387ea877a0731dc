package dev.parallax.paxos.replica;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.Member;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static dev.parallax.paxos.replica.TextKv.cmd;
import static dev.parallax.paxos.replica.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad input never crashes a replica: random bytes, truncated and oversized frames, unknown frame
 * types and bad hellos, on the client and the replica ports, close only the offending connection
 * (with a metric) and the cluster goes on serving.
 */
class BadInputTest {
    private static final int MAX_FRAME = 64 * 1024;
    private LocalCluster cluster;
    private SmrClient client;

    @BeforeEach
    void start() throws Exception {
        cluster = new LocalCluster(3, sm -> sm, MAX_FRAME);
        client = cluster.client();
        assertThat(text(client.invoke(cmd("SET k before")).get(10, TimeUnit.SECONDS))).isEqualTo("null");
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private Member clientPort(int id) {
        return cluster.clients.member(id);
    }

    private Member replicaPort(int id) {
        return cluster.members.member(id);
    }

    /** Sends {@code bytes} and reports whether the server closed the connection within 5 s. */
    private static boolean closedAfter(Member target, byte[] bytes) throws IOException {
        try (Socket s = new Socket(target.host(), target.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            try {
                while (true) {
                    if (in.read() < 0) {
                        return true;
                    }
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true; // reset by the server: closed
            }
        }
    }

    private static byte[] frame(int length, int version, int type, int bodyBytes) throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(length);
        d.writeByte(version);
        d.writeByte(type);
        d.write(new byte[bodyBytes]);
        return b.toByteArray();
    }

    private void assertStillServing() throws Exception {
        assertThat(text(client.invoke(cmd("GET k")).get(10, TimeUnit.SECONDS))).isEqualTo("before");
    }

    @Test
    void randomBytesToEveryPortCloseOnlyThatConnection() throws Exception {
        Random rnd = new Random(42);
        for (int id = 0; id < 3; id++) {
            for (Member target : new Member[]{clientPort(id), replicaPort(id)}) {
                byte[] garbage = new byte[4096];
                rnd.nextBytes(garbage);
                garbage[0] = 0x7f; // a length far over the limit, as random data usually has
                assertThat(closedAfter(target, garbage)).as("closed: %s", target).isTrue();
            }
        }
        assertThat(cluster.counter(0, "parallax.net.bad.frames", "client")).isPositive();
        assertThat(cluster.counter(0, "parallax.net.bad.frames", "replica")).isPositive();
        assertStillServing();
    }

    @Test
    void oversizedFramesAreRefusedBeforeTheirBodyArrives() throws Exception {
        assertThat(closedAfter(clientPort(0), frame(MAX_FRAME + 1, 1, 1, 0))).isTrue();
        assertThat(closedAfter(replicaPort(1), frame(Integer.MAX_VALUE, 1, 0, 0))).isTrue();
        assertStillServing();
    }

    @Test
    void unknownVersionsTypesAndMalformedBodiesAreRejected() throws Exception {
        assertThat(closedAfter(clientPort(0), frame(2 + 8, 9, 1, 8))).as("unknown version").isTrue();
        assertThat(closedAfter(clientPort(0), frame(2 + 8, 1, 77, 8))).as("unknown type").isTrue();
        assertThat(closedAfter(clientPort(0), frame(2 + 8, 1, 1, 8))).as("request body too short").isTrue();
        assertThat(closedAfter(replicaPort(0), frame(2 + 8, 1, 3, 8))).as("message before hello").isTrue();
        // A hello claiming to be this very replica, or from a cluster of another size.
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(10);
        d.writeByte(1);
        d.writeByte(0);
        d.writeInt(0);
        d.writeInt(3);
        assertThat(closedAfter(replicaPort(0), b.toByteArray())).as("hello from itself").isTrue();
        assertStillServing();
    }

    @Test
    void aTruncatedFrameFollowedByDisconnectLeavesNoTrace() throws Exception {
        try (Socket s = new Socket(clientPort(0).host(), clientPort(0).port())) {
            s.getOutputStream().write(frame(100, 1, 1, 10));
            s.getOutputStream().flush();
        }
        try (Socket s = new Socket(replicaPort(2).host(), replicaPort(2).port())) {
            s.getOutputStream().write(new byte[]{0, 0, 0, 50, 1});
        }
        assertStillServing();
    }

    @Test
    void anOversizedCommandFromTheClientLibraryFailsAlone() throws Exception {
        ByteBuffer huge = ByteBuffer.allocate(MAX_FRAME * 2);
        var big = client.invoke(huge);
        SmrClient fresh = cluster.client();
        assertThat(text(fresh.invoke(cmd("GET k")).get(10, TimeUnit.SECONDS))).isEqualTo("before");
        big.cancel(true);
        Await.until("bad frame counted", Duration.ofSeconds(10),
                () -> cluster.counter(0, "parallax.net.bad.frames", "client")
                        + cluster.counter(1, "parallax.net.bad.frames", "client")
                        + cluster.counter(2, "parallax.net.bad.frames", "client") > 0);
    }
}
