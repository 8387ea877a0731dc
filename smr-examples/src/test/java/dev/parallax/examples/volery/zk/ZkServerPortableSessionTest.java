package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.ConnectResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Sessions portable between the servers of one cluster (a shared session secret): a client whose
 * server died keeps its session on another one.
 */
class ZkServerPortableSessionTest {
    private static final byte[] SECRET = "a secret the cluster's servers share".getBytes(StandardCharsets.UTF_8);

    private final LocalVoleryBackend backend = new LocalVoleryBackend();
    private final SimpleMeterRegistry registryA = new SimpleMeterRegistry();
    private final SimpleMeterRegistry registryB = new SimpleMeterRegistry();
    private ZkServer a;
    private ZkServer b;

    @AfterEach
    void stop() {
        for (ZkServer s : new ZkServer[] {a, b}) {
            if (s != null) {
                s.close();
            }
        }
    }

    private static ZkServerConfig config(int serverId) {
        return ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1).withServerId(serverId);
    }

    private void start(ZkServerConfig configA, ZkServerConfig configB) throws Exception {
        a = new ZkServer(configA, backend, registryA);
        a.start();
        b = new ZkServer(configB, backend, registryB);
        b.start();
    }

    @Test
    void theOfficialClientKeepsItsSessionWhenItsServerDies() throws Exception {
        start(config(1).withSessionSecret(SECRET), config(2).withSessionSecret(SECRET));
        List<WatchedEvent> events = new CopyOnWriteArrayList<>();
        ZooKeeper zk = new ZooKeeper("127.0.0.1:" + a.port() + ",127.0.0.1:" + b.port(), 10_000, events::add);
        try {
            ZkTesting.await("connected", () -> zk.getState() == ZooKeeper.States.CONNECTED);
            long sessionId = zk.getSessionId();
            zk.create("/before", "a".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            // the client shuffles its server list: close whichever server created the session
            boolean onA = sessionId >>> 56 == 1;
            ZkServer dying = onA ? a : b;
            ZkServer survivor = onA ? b : a;
            SimpleMeterRegistry survivorMeters = onA ? registryB : registryA;
            assertThat(dying.sessionCount()).isEqualTo(1);
            dying.close();

            ZkTesting.await("the session on the surviving server", () -> survivor.sessionCount() == 1
                    && zk.getState() == ZooKeeper.States.CONNECTED);
            assertThat(zk.getSessionId()).isEqualTo(sessionId);
            assertThat(ZkTesting.sessions(survivorMeters, "adopted")).isEqualTo(1);
            assertThat(new String(zk.getData("/before", false, null), StandardCharsets.UTF_8)).isEqualTo("a");
            assertThat(zk.create("/after", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT))
                    .isEqualTo("/after");
            assertThat(zk.getChildren("/", false)).containsExactly("after", "before");
            assertThat(zk.getSessionId()).isEqualTo(sessionId);
            // the watcher hears connected, disconnected (once per failed attempt), connected again — never expired
            ZkTesting.await("the reconnection event", () -> events.size() >= 3
                    && events.get(events.size() - 1).getState() == Watcher.Event.KeeperState.SyncConnected);
            assertThat(events).extracting(WatchedEvent::getState)
                    .startsWith(Watcher.Event.KeeperState.SyncConnected, Watcher.Event.KeeperState.Disconnected)
                    .containsOnly(Watcher.Event.KeeperState.SyncConnected, Watcher.Event.KeeperState.Disconnected);
        } finally {
            zk.close();
        }
    }

    @Test
    void aSessionMovesBetweenServersSharingTheSecretWithItsIdAndPassword() throws Exception {
        start(config(1).withSessionSecret(SECRET), config(2).withSessionSecret(SECRET));
        try (RawZkConnection atA = new RawZkConnection(a.port())) {
            ConnectResponse granted = atA.handshake(0, new byte[0], 10_000);
            assertThat(granted.getSessionId() >>> 56).isEqualTo(1);
            assertThat(granted.getPasswd()).hasSize(16);
            try (RawZkConnection atB = new RawZkConnection(b.port())) {
                ConnectResponse adopted = atB.handshake(granted.getSessionId(), granted.getPasswd(), 10_000);
                assertThat(adopted.getSessionId()).isEqualTo(granted.getSessionId());
                assertThat(adopted.getPasswd()).isEqualTo(granted.getPasswd());
                assertThat(adopted.getTimeOut()).isEqualTo(10_000);
                ZkTesting.assertServes(atB, 1);
            }
            // and back: A still knows it, and resumes it
            try (RawZkConnection againAtA = new RawZkConnection(a.port())) {
                assertThat(againAtA.handshake(granted.getSessionId(), granted.getPasswd(), 10_000).getSessionId())
                        .isEqualTo(granted.getSessionId());
                ZkTesting.assertServes(againAtA, 1);
                assertThat(atA.closedByServer()).as("the session's old connection at A").isTrue();
            }
        }
        assertThat(ZkTesting.sessions(registryB, "adopted")).isEqualTo(1);
        assertThat(ZkTesting.sessions(registryA, "resumed")).isEqualTo(1);
        assertThat(b.sessionCount()).isEqualTo(1);
    }

    @Test
    void anAdoptedSessionGetsTheNewServersTimeoutRangeAndAPasswordForIt() throws Exception {
        start(config(1).withSessionSecret(SECRET), config(2).withSessionSecret(SECRET).withSessionTimeouts(4_000, 6_000));
        try (RawZkConnection atA = new RawZkConnection(a.port()); RawZkConnection atB = new RawZkConnection(b.port())) {
            ConnectResponse granted = atA.handshake(0, new byte[0], 20_000);
            assertThat(granted.getTimeOut()).isEqualTo(20_000);
            ConnectResponse adopted = atB.handshake(granted.getSessionId(), granted.getPasswd(), 20_000);
            assertThat(adopted.getSessionId()).isEqualTo(granted.getSessionId());
            assertThat(adopted.getTimeOut()).isEqualTo(6_000);
            assertThat(adopted.getPasswd()).isNotEqualTo(granted.getPasswd());
            try (RawZkConnection back = new RawZkConnection(a.port())) {
                ConnectResponse resumed = back.handshake(adopted.getSessionId(), adopted.getPasswd(), 20_000);
                assertThat(resumed.getSessionId()).isEqualTo(granted.getSessionId());
                assertThat(resumed.getTimeOut()).as("the time-out the new password carries").isEqualTo(6_000);
            }
        }
    }

    @Test
    void withoutTheSameSecretOrWithATamperedPasswordTheSessionIsExpired() throws Exception {
        start(config(1).withSessionSecret(SECRET), config(2).withSessionSecret("another cluster's secret".getBytes(StandardCharsets.UTF_8)));
        try (ZkServer noSecret = new ZkServer(config(3), backend)) {
            noSecret.start();
            try (RawZkConnection atA = new RawZkConnection(a.port())) {
                ConnectResponse granted = atA.handshake(0, new byte[0], 10_000);
                byte[] longer = granted.getPasswd();
                ByteBuffer.wrap(longer).putInt(0, 40_000); // the time-out in clear, changed: the MAC no longer fits
                for (int port : new int[] {b.port(), noSecret.port()}) {
                    try (RawZkConnection c = new RawZkConnection(port)) {
                        assertThat(c.handshake(granted.getSessionId(), granted.getPasswd(), 10_000).getTimeOut()).isZero();
                        assertThat(c.closedByServer()).isTrue();
                    }
                }
                try (RawZkConnection c = new RawZkConnection(a.port())) {
                    ConnectResponse expired = c.handshake(granted.getSessionId(), longer, 10_000);
                    assertThat(expired.getTimeOut()).isZero();
                    assertThat(expired.getSessionId()).isZero();
                }
                try (RawZkConnection c = new RawZkConnection(a.port())) {
                    assertThat(c.handshake(granted.getSessionId() + 1, granted.getPasswd(), 10_000).getTimeOut()).isZero();
                }
                ZkTesting.assertServes(atA, 1);
            }
            assertThat(noSecret.sessionCount()).isZero();
        }
        assertThat(ZkTesting.sessions(registryB, "rejected")).isEqualTo(1);
        assertThat(ZkTesting.sessions(registryA, "rejected")).isEqualTo(2);
        assertThat(b.sessionCount()).isZero();
    }

    @Test
    void aFullServerRefusesToAdoptAndTheClientMayTryAnother() throws Exception {
        start(config(1).withSessionSecret(SECRET), config(2).withSessionSecret(SECRET).withMaxSessions(1));
        try (RawZkConnection atA = new RawZkConnection(a.port()); RawZkConnection fillsB = new RawZkConnection(b.port())) {
            ConnectResponse granted = atA.handshake(0, new byte[0], 10_000);
            fillsB.handshake(0, new byte[0], 10_000);
            try (RawZkConnection c = new RawZkConnection(b.port())) {
                c.sendFrame(RawZkConnection.serialize(new org.apache.zookeeper.proto.ConnectRequest(0, 0, 10_000,
                        granted.getSessionId(), granted.getPasswd(), false)));
                assertThat(c.closedByServer()).as("closed without an answer, not expired").isTrue();
            }
        }
        assertThat(registryB.get("parallax.volery.zk.refused").tag("reason", "too-many-sessions").counter().count())
                .isEqualTo(1);
    }

    @Test
    void theSecretIsCheckedCopiedComparedByContentAndNeverPrinted() {
        assertThatThrownBy(() -> config(1).withSessionSecret(new byte[15])).isInstanceOf(IllegalArgumentException.class);
        byte[] secret = SECRET.clone();
        ZkServerConfig c = config(1).withSessionSecret(secret);
        secret[0] ^= 1;
        assertThat(c.sessionSecret()).isEqualTo(SECRET);
        c.sessionSecret()[0] ^= 1;
        assertThat(c.sessionSecret()).isEqualTo(SECRET);
        assertThat(c).isEqualTo(config(1).withSessionSecret(SECRET.clone())).hasSameHashCodeAs(config(1).withSessionSecret(SECRET.clone()))
                .isNotEqualTo(config(1));
        assertThat(c.toString()).contains("sessionSecret=set").doesNotContain(new String(SECRET, StandardCharsets.UTF_8));
        assertThat(config(1).sessionSecret()).isNull();
        assertThat(c.withSessionSecret(null).sessionSecret()).isNull();
        assertThat(c.withIoThreads(3).withServerId(4).sessionSecret()).as("kept by the other withs").isEqualTo(SECRET);
    }

    @Test
    void passwordsCarryTheTimeoutAndAMacOfIdAndTimeout() {
        ZkSessionPasswords passwords = new ZkSessionPasswords(SECRET);
        byte[] p = passwords.password(0x0102_0000_0000_0007L, 12_345);
        assertThat(p).hasSize(ZkSessionPasswords.PASSWORD_BYTES);
        assertThat(ByteBuffer.wrap(p).getInt()).isEqualTo(12_345);
        assertThat(passwords.timeoutOf(0x0102_0000_0000_0007L, p)).isEqualTo(12_345);
        assertThat(new ZkSessionPasswords(SECRET.clone()).timeoutOf(0x0102_0000_0000_0007L, p)).isEqualTo(12_345);
        assertThat(passwords.timeoutOf(0x0102_0000_0000_0008L, p)).isEqualTo(-1);
        for (int i = 0; i < p.length; i++) {
            byte[] flipped = p.clone();
            flipped[i] ^= 0x10;
            assertThat(passwords.timeoutOf(0x0102_0000_0000_0007L, flipped)).as("bit flipped in byte %d", i).isEqualTo(-1);
        }
        assertThat(passwords.timeoutOf(1, null)).isEqualTo(-1);
        assertThat(passwords.timeoutOf(1, new byte[15])).isEqualTo(-1);
        assertThat(ZkSessionPasswords.random().timeoutOf(0x0102_0000_0000_0007L, p)).isEqualTo(-1);
        assertThat(passwords.timeoutOf(5, passwords.password(5, 0))).as("a time-out below 1").isEqualTo(-1);
    }
}
