package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.ExistsResponse;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Raw sockets sending what no ZooKeeper client sends: the server closes that connection, counts it, serves on. */
class ZkServerBadInputTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ZkServer server;
    private RawZkConnection bystander;

    @BeforeEach
    void start() throws IOException {
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(2), new LocalVoleryBackend(), registry);
        server.start();
        bystander = new RawZkConnection(server.port());
        assertThat(bystander.handshake(0, new byte[16], 10_000).getTimeOut()).isEqualTo(10_000);
    }

    @AfterEach
    void stop() throws IOException {
        bystander.close();
        server.close();
    }

    private double refused(String reason) {
        return registry.get("parallax.volery.zk.refused").tag("reason", reason).counter().count();
    }

    private RawZkConnection connected() throws IOException {
        RawZkConnection c = new RawZkConnection(server.port());
        assertThat(c.handshake(0, new byte[16], 10_000).getSessionId()).isNotZero();
        return c;
    }

    private int xid = 100;

    private void assertBystanderStillServed() throws IOException {
        int id = ++xid;
        bystander.sendRequest(id, ZkOp.EXISTS.code(), new ExistsRequest("/", false));
        ExistsResponse body = new ExistsResponse();
        ReplyHeader header = bystander.readReply(body);
        assertThat(header.getXid()).isEqualTo(id);
        assertThat(header.getErr()).isZero();
        assertThat(body.getStat()).isNotNull();
    }

    @Test
    void negativeLengthIsRefused() throws IOException {
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.sendRaw(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe, 1, 2, 3});
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawZkConnection c = connected()) {
            c.sendRaw(ByteBuffer.allocate(4).putInt(Integer.MIN_VALUE).array());
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(refused("bad-length")).isEqualTo(2);
        assertBystanderStillServed();
    }

    @Test
    void oversizedFramesAreRefusedAsSoonAsTheirLengthArrives() throws IOException {
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.sendRaw(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawZkConnection c = connected()) {
            c.sendRaw(ByteBuffer.allocate(4).putInt(ZkServerConfig.DEFAULT_MAX_FRAME_BYTES + 1).array());
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(refused("oversized")).isEqualTo(2);
        assertBystanderStillServed();
    }

    @Test
    void requestBeforeConnectIsRefused() throws IOException {
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.sendRequest(1, ZkOp.GET_DATA.code(), new GetDataRequest("/", false));
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.sendFrame(new byte[0]);
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            byte[] connect = RawZkConnection.serialize(
                    new org.apache.zookeeper.proto.ConnectRequest(0, 0, 10_000, 0, new byte[16], false));
            c.sendFrame(Arrays.copyOf(connect, connect.length + 5));
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(refused("bad-connect")).isEqualTo(3);
        assertBystanderStillServed();
    }

    @Test
    void junkAfterConnectIsRefusedAfterTheEarlierReplies() throws IOException {
        try (RawZkConnection c = connected()) {
            c.sendRequest(1, ZkOp.EXISTS.code(), new ExistsRequest("/", false));
            c.sendFrame(new byte[] {1, 2, 3});
            assertThat(c.readReply(new ExistsResponse()).getXid()).isEqualTo(1);
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawZkConnection c = connected()) {
            byte[] create = RawZkConnection.serialize(new RequestHeader(2, ZkOp.CREATE.code()),
                    new CreateRequest("/truncated", new byte[100], ZkOperations.OPEN_ACL, 0));
            c.sendFrame(Arrays.copyOf(create, create.length - 20));
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(refused("undecodable")).isEqualTo(2);
        assertBystanderStillServed();
        try (RawZkConnection c = connected()) {
            c.sendRequest(3, ZkOp.EXISTS.code(), new ExistsRequest("/truncated", false));
            assertThat(c.readReply(null).getErr()).isEqualTo(-101);
        }
    }

    @Test
    void unknownRequestTypeIsAnsweredUnimplementedThenClosed() throws IOException {
        try (RawZkConnection c = connected()) {
            c.sendRequest(7, 999, null);
            ReplyHeader header = c.readReply(null);
            assertThat(header.getXid()).isEqualTo(7);
            assertThat(header.getErr()).isEqualTo(-6);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(refused("unknown-opcode")).isEqualTo(1);
        assertThat(registry.get("parallax.volery.zk.requests").tag("op", "unknown").counter().count()).isEqualTo(1);
        assertBystanderStillServed();
    }

    @Test
    void otherAuthSchemesFailAndClose() throws IOException {
        try (RawZkConnection c = connected()) {
            c.sendRequest(-4, ZkOp.AUTH.code(), new org.apache.zookeeper.proto.AuthPacket(0, "kerberos", new byte[3]));
            ReplyHeader header = c.readReply(null);
            assertThat(header.getXid()).isEqualTo(-4);
            assertThat(header.getErr()).isEqualTo(-115);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(refused("auth")).isEqualTo(1);
        assertBystanderStillServed();
    }

    @Test
    void randomBytesNeverStopTheServer() throws IOException {
        SplittableRandom random = new SplittableRandom(20261124);
        for (int i = 0; i < 40; i++) {
            byte[] junk = new byte[1 + random.nextInt(2000)];
            for (int j = 0; j < junk.length; j++) {
                junk[j] = (byte) random.nextInt(256);
            }
            if (i % 2 == 1) {
                // A plausible frame length, so the junk reaches the jute decoding.
                ByteBuffer.wrap(junk).putInt(0, Math.max(0, junk.length - 4 - random.nextInt(3)));
            }
            try (RawZkConnection c = i % 4 < 2 ? new RawZkConnection(server.port()) : connected()) {
                c.sendRaw(junk);
                c.socket.shutdownOutput();
                assertThat(c.closedByServer()).as("junk #%d", i).isTrue();
            }
        }
        assertBystanderStillServed();
    }

    @Test
    void silentNewConnectionIsClosed() throws IOException {
        server.close();
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1).withSessionTimeouts(100, 300),
                new LocalVoleryBackend(), registry);
        server.start();
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(refused("connect-timeout")).isEqualTo(1);
    }

    @Test
    void sessionsBeyondTheBoundAreRefused() throws IOException {
        server.close();
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1).withMaxSessions(1),
                new LocalVoleryBackend(), registry);
        server.start();
        try (RawZkConnection first = connected(); RawZkConnection second = new RawZkConnection(server.port())) {
            second.sendFrame(RawZkConnection.serialize(
                    new org.apache.zookeeper.proto.ConnectRequest(0, 0, 10_000, 0, new byte[16], false)));
            assertThat(second.closedByServer()).isTrue();
            first.sendRequest(1, ZkOp.EXISTS.code(), new ExistsRequest("/", false));
            assertThat(first.readReply(new ExistsResponse()).getErr()).isZero();
        }
        assertThat(refused("too-many-sessions")).isEqualTo(1);
    }
}
