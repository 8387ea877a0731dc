package dev.parallax.paxos.replica;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.OutcomeUnknownException;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.Member;
import dev.parallax.core.testkit.cluster.LocalCluster;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        cluster = PaxosClusters.of(3, sm -> sm, MAX_FRAME);
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

    private double badFrames(int replica, String kind) {
        return cluster.counter(replica, "parallax.net.bad.frames", kind);
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    /** A well-framed frame: correct length, version 1, {@code type}, then {@code body}. */
    private static byte[] frame(int type, byte[] body) throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(2 + body.length);
        d.writeByte(1);
        d.writeByte(type);
        d.write(body);
        return b.toByteArray();
    }

    /**
     * A valid hello from member {@code id} of this 3-member cluster on the replica port's control
     * channel, then the announcement that the sender's channel 1 is Multi-Paxos' channel.
     */
    private static byte[] hello(int id) throws IOException {
        byte[] name = dev.parallax.paxos.MultiPaxos.CHANNEL.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return concat(frame(0, java.nio.ByteBuffer.allocate(9).put((byte) 0).putInt(id).putInt(3).array()),
                frame(1, java.nio.ByteBuffer.allocate(6 + name.length).put((byte) 0).put((byte) 1).putInt(name.length).put(name)
                        .array()));
    }

    /** A frame of Multi-Paxos' channel (announced by {@link #hello} as channel 1). */
    private static byte[] paxosFrame(int type, byte[] body) throws IOException {
        return frame(type, concat(new byte[]{1}, body));
    }

    /** Sends {@code bytes} to {@code target}; asserts the connection is closed and counted, once. */
    private void assertRejected(String what, int replica, String kind, Member target, byte[] bytes) throws Exception {
        double before = badFrames(replica, kind);
        assertThat(closedAfter(target, bytes)).as("closed: %s", what).isTrue();
        assertThat(badFrames(replica, kind)).as("counted: %s", what).isEqualTo(before + 1);
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
    void channelMisuseOnTheReplicaPortClosesOnlyThatConnection() throws Exception {
        byte[] helloOnly = frame(0, java.nio.ByteBuffer.allocate(9).put((byte) 0).putInt(1).putInt(3).array());
        assertRejected("a frame on a channel never announced", 0, "replica", replicaPort(0),
                concat(helloOnly, frame(3, concat(new byte[]{9}, new byte[16]))));
        byte[] badName = "Not A Name".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertRejected("an announcement with a malformed name", 0, "replica", replicaPort(0),
                concat(helloOnly, frame(1, java.nio.ByteBuffer.allocate(6 + badName.length).put((byte) 0).put((byte) 2)
                        .putInt(badName.length).put(badName).array())));
        assertRejected("an unknown control frame", 0, "replica", replicaPort(0),
                concat(helloOnly, frame(9, new byte[]{0, 1, 2})));
        assertRejected("a hello that is not on the control channel", 0, "replica", replicaPort(0),
                frame(0, java.nio.ByteBuffer.allocate(9).put((byte) 1).putInt(1).putInt(3).array()));
        assertStillServing();
    }

    @Test
    void oversizedFramesAreRefusedBeforeTheirBodyArrives() throws Exception {
        assertRejected("oversized client frame", 0, "client", clientPort(0), frame(MAX_FRAME + 1, 1, 1, 0));
        assertRejected("oversized replica frame", 1, "replica", replicaPort(1), frame(Integer.MAX_VALUE, 1, 0, 0));
        assertStillServing();
    }

    @Test
    void aValidHelloFollowedByAWellFramedFrameOfAnUnknownTypeIsRejected() throws Exception {
        assertRejected("unknown type after hello", 0, "replica", replicaPort(0), concat(hello(1), paxosFrame(77, new byte[16])));
        assertRejected("unknown client type", 0, "client", clientPort(0), frame(77, new byte[16]));
        assertStillServing();
    }

    @Test
    void wellFramedFramesWithRandomBodiesAreRejected() throws Exception {
        Random rnd = new Random(7);
        for (int type = 1; type <= 7; type++) {
            // Every paxos message has at least 16 body bytes: a shorter random body cannot decode.
            byte[] body = new byte[rnd.nextInt(16)];
            rnd.nextBytes(body);
            assertRejected("paxos type " + type + " with a random body", 2, "replica", replicaPort(2),
                    concat(hello(0), paxosFrame(type, body)));
        }
        for (int type : new int[]{1, 3, 200}) {
            byte[] body = new byte[1 + rnd.nextInt(7)];
            rnd.nextBytes(body);
            assertRejected("client type " + type + " with a random body", 2, "client", clientPort(2), frame(type, body));
        }
        assertStillServing();
    }

    @Test
    void fuzzedFramesToBothPortsCloseOnlyTheirConnection() throws Exception {
        long seed = System.nanoTime();
        System.out.println("BadInputTest.fuzzedFramesToBothPortsCloseOnlyTheirConnection seed=" + seed);
        Random rnd = new Random(seed);
        for (int i = 0; i < 40; i++) {
            int replica = rnd.nextInt(3);
            int type = rnd.nextInt(256);
            // Random lengths, but never 16 or 24 bytes: paxos frames of those sizes could decode
            // as real protocol messages, which is not bad input but a forged peer. Nor 8: an
            // 8-byte SNAPSHOT_REQUEST (type 3) is well-formed and answered, not closed.
            int length = rnd.nextInt(300);
            if (length == 16 || length == 24 || length == 8) {
                length++;
            }
            byte[] body = new byte[length];
            rnd.nextBytes(body);
            String what = "seed " + seed + " iteration " + i + ": type " + type + ", " + length + " bytes";
            if (rnd.nextBoolean()) {
                byte[] bytes = rnd.nextBoolean() ? frame(type, body) : concat(hello((replica + 1) % 3), paxosFrame(type, body));
                assertRejected(what + " to replica port", replica, "replica", replicaPort(replica), bytes);
            } else {
                assertRejected(what + " to client port", replica, "client", clientPort(replica), frame(type, body));
            }
            if (i % 10 == 9) {
                assertStillServing();
            }
        }
        assertStillServing();
    }

    @Test
    void malformedQueriesCloseOnlyTheirConnectionAndARejectedQueryIsAnsweredAsSuch() throws Exception {
        byte[] lying = java.nio.ByteBuffer.allocate(21).putLong(1).putLong(1).putInt(99).put((byte) 1).array();
        assertRejected("a query whose length lies", 1, "client", clientPort(1), frame(dev.parallax.core.wire.ClientWire.QUERY, lying));
        assertRejected("a truncated query", 1, "client", clientPort(1), frame(dev.parallax.core.wire.ClientWire.QUERY, new byte[5]));
        // "GET" with no key: TextKv refuses it as a query, the client orders it, and the command is rejected.
        assertThatThrownBy(() -> client.query(cmd("GET")).get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(dev.parallax.core.client.CommandRejectedException.class);
        assertThat(text(client.query(cmd("GET k")).get(10, TimeUnit.SECONDS))).isEqualTo("before");
        assertStillServing();
    }

    @Test
    void unknownVersionsTypesAndMalformedBodiesAreRejected() throws Exception {
        assertRejected("unknown version", 0, "client", clientPort(0), frame(2 + 8, 9, 1, 8));
        assertRejected("unknown type", 0, "client", clientPort(0), frame(2 + 8, 1, 77, 8));
        assertRejected("request body too short", 0, "client", clientPort(0), frame(2 + 8, 1, 1, 8));
        assertRejected("message before hello", 0, "replica", replicaPort(0), frame(2 + 8, 1, 3, 8));
        // A hello claiming to be this very replica, or from a cluster of another size.
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(10);
        d.writeByte(1);
        d.writeByte(0);
        d.writeInt(0);
        d.writeInt(3);
        assertRejected("hello from itself", 0, "replica", replicaPort(0), b.toByteArray());
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
        // A client that does not know the replicas' frame limit: every replica closes its
        // connection on the oversized frame, the client tries each in turn and gives up in time.
        SmrClient unaware = cluster.client(Duration.ofSeconds(2));
        ByteBuffer huge = ByteBuffer.allocate(MAX_FRAME * 2);
        var big = unaware.invoke(huge);
        SmrClient fresh = cluster.client();
        assertThat(text(fresh.invoke(cmd("GET k")).get(10, TimeUnit.SECONDS))).isEqualTo("before");
        assertThatThrownBy(() -> big.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(OutcomeUnknownException.class)
                .hasMessageStartingWith("the command may or may not have executed: no replica answered within PT2S");
        assertThat(badFrames(0, "client") + badFrames(1, "client") + badFrames(2, "client")).isPositive();
        assertStillServing();

        // A client told the limit refuses the command at once, without sending it.
        SmrClient aware = SmrClient.connect(ClientConfig.builder(cluster.clients).maxFrameBytes(MAX_FRAME).build());
        try {
            var refused = aware.invoke(ByteBuffer.allocate(MAX_FRAME));
            assertThatThrownBy(() -> refused.get(1, TimeUnit.SECONDS)).cause().isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("exceeds the frame limit of " + MAX_FRAME);
            assertThat(text(aware.invoke(cmd("GET k")).get(10, TimeUnit.SECONDS))).isEqualTo("before");
        } finally {
            aware.close();
        }
    }
}
