package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.util.Arrays;
import org.apache.zookeeper.proto.ConnectRequest;
import org.apache.zookeeper.proto.ConnectResponse;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.ExistsResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The session handshake over raw sockets: creation, negotiation, resumption, rejection and expiry. */
class ZkServerSessionTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ZkServer server;

    private void start(ZkServerConfig config) throws IOException {
        server = new ZkServer(config, new LocalVoleryBackend(), registry);
        server.start();
    }

    private void start() throws IOException {
        start(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(2));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private double sessions(String event) {
        return ZkTesting.sessions(registry, event);
    }

    @Test
    void timeoutIsClampedAndSessionIdsCarryTheServerId() throws IOException {
        start(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1).withServerId(7));
        try (RawZkConnection a = new RawZkConnection(server.port()); RawZkConnection b = new RawZkConnection(server.port())) {
            ConnectResponse low = a.handshake(0, new byte[16], 1);
            ConnectResponse high = b.handshake(0, new byte[16], 1_000_000);
            assertThat(low.getTimeOut()).isEqualTo(ZkServerConfig.DEFAULT_MIN_SESSION_TIMEOUT_MS);
            assertThat(high.getTimeOut()).isEqualTo(ZkServerConfig.DEFAULT_MAX_SESSION_TIMEOUT_MS);
            assertThat(low.getSessionId() >>> 56).isEqualTo(7);
            assertThat(high.getSessionId()).isNotEqualTo(low.getSessionId());
            assertThat(low.getPasswd()).hasSize(16).isNotEqualTo(high.getPasswd());
            assertThat(low.getProtocolVersion()).isZero();
        }
        assertThat(sessions("created")).isEqualTo(2);
    }

    @Test
    void pingIsAnswered() throws IOException {
        start();
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.handshake(0, new byte[16], 10_000);
            c.sendRequest(-2, ZkOp.PING.code(), null);
            ReplyHeader header = c.readReply(null);
            assertThat(header.getXid()).isEqualTo(-2);
            assertThat(header.getErr()).isZero();
        }
    }

    @Test
    void clientWithoutTheReadOnlyFlagGetsAResponseWithoutIt() throws IOException {
        start();
        try (RawZkConnection withFlag = new RawZkConnection(server.port());
             RawZkConnection without = new RawZkConnection(server.port())) {
            withFlag.sendFrame(RawZkConnection.serialize(new ConnectRequest(0, 0, 10_000, 0, new byte[16], false)));
            assertThat(withFlag.readFrame()).hasSize(37);
            byte[] request = RawZkConnection.serialize(new ConnectRequest(0, 0, 10_000, 0, new byte[16], false));
            without.sendFrame(Arrays.copyOf(request, request.length - 1));
            byte[] response = without.readFrame();
            assertThat(response).hasSize(36);
            ConnectResponse decoded = RawZkConnection.read(Arrays.copyOf(response, 37), new ConnectResponse());
            assertThat(decoded.getTimeOut()).isEqualTo(10_000);
            ZkTesting.assertServes(without, 1);
        }
    }

    @Test
    void knownSessionResumesAndItsOldConnectionIsClosed() throws IOException {
        start();
        try (RawZkConnection first = new RawZkConnection(server.port())) {
            ConnectResponse granted = first.handshake(0, new byte[16], 10_000);
            try (RawZkConnection second = new RawZkConnection(server.port())) {
                ConnectResponse resumed = second.handshake(granted.getSessionId(), granted.getPasswd(), 10_000);
                assertThat(resumed.getSessionId()).isEqualTo(granted.getSessionId());
                assertThat(resumed.getPasswd()).isEqualTo(granted.getPasswd());
                assertThat(resumed.getTimeOut()).isEqualTo(10_000);
                assertThat(first.closedByServer()).isTrue();
                ZkTesting.assertServes(second, 1);
            }
            try (RawZkConnection third = new RawZkConnection(server.port())) {
                assertThat(third.handshake(granted.getSessionId(), granted.getPasswd(), 10_000).getSessionId())
                        .isEqualTo(granted.getSessionId());
                ZkTesting.assertServes(third, 2);
            }
        }
        assertThat(sessions("resumed")).isEqualTo(2);
        assertThat(server.sessionCount()).isEqualTo(1);
    }

    @Test
    void unknownSessionOrWrongPasswordIsExpired() throws IOException {
        start();
        try (RawZkConnection owner = new RawZkConnection(server.port())) {
            ConnectResponse granted = owner.handshake(0, new byte[16], 10_000);
            byte[] wrong = granted.getPasswd().clone();
            wrong[0] ^= 1;
            try (RawZkConnection c = new RawZkConnection(server.port())) {
                ConnectResponse expired = c.handshake(granted.getSessionId(), wrong, 10_000);
                assertThat(expired.getTimeOut()).isZero();
                assertThat(expired.getSessionId()).isZero();
                assertThat(c.closedByServer()).isTrue();
            }
            try (RawZkConnection c = new RawZkConnection(server.port())) {
                assertThat(c.handshake(granted.getSessionId() + 12345, granted.getPasswd(), 10_000).getTimeOut()).isZero();
                assertThat(c.closedByServer()).isTrue();
            }
            ZkTesting.assertServes(owner, 1);
        }
        assertThat(sessions("rejected")).isEqualTo(2);
    }

    @Test
    void closeSessionAnswersClosesAndForgetsTheSession() throws IOException {
        start();
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            ConnectResponse granted = c.handshake(0, new byte[16], 10_000);
            c.sendRequest(1, ZkOp.EXISTS.code(), new ExistsRequest("/", false));
            c.sendRequest(2, ZkOp.CLOSE_SESSION.code(), null);
            c.sendRequest(3, ZkOp.EXISTS.code(), new ExistsRequest("/", false));
            assertThat(c.readReply(new ExistsResponse()).getXid()).isEqualTo(1);
            ReplyHeader closed = c.readReply(null);
            assertThat(closed.getXid()).isEqualTo(2);
            assertThat(closed.getErr()).isZero();
            assertThat(c.closedByServer()).isTrue();
            assertThat(server.sessionCount()).isZero();
            try (RawZkConnection again = new RawZkConnection(server.port())) {
                assertThat(again.handshake(granted.getSessionId(), granted.getPasswd(), 10_000).getTimeOut()).isZero();
            }
        }
        assertThat(sessions("closed")).isEqualTo(1);
    }

    @Test
    void disconnectedSessionExpiresAfterItsTimeout() throws Exception {
        start(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1).withSessionTimeouts(100, 200));
        ConnectResponse granted;
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            granted = c.handshake(0, new byte[16], 100);
            assertThat(granted.getTimeOut()).isEqualTo(100);
        }
        ZkTesting.await("the session to expire", () -> server.sessionCount() == 0);
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            assertThat(c.handshake(granted.getSessionId(), granted.getPasswd(), 100).getTimeOut()).isZero();
        }
        assertThat(sessions("expired")).isEqualTo(1);
    }

    @Test
    void silentConnectedSessionIsExpiredAndClosed() throws Exception {
        start(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1).withSessionTimeouts(100, 200));
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.handshake(0, new byte[16], 100);
            assertThat(c.closedByServer()).isTrue();
        }
        ZkTesting.await("the session to be forgotten", () -> server.sessionCount() == 0);
        assertThat(sessions("expired")).isEqualTo(1);
    }
}
