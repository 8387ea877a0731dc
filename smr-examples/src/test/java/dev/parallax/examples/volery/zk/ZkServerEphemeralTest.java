package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Ephemeral nodes through the official client: they belong to their session, go when it closes,
 * and when it expires — decided in the order ({@code ZnodeSessions}), so by another front end's tick
 * once the session's own front end is gone — and an expired session is refused everywhere.
 * Two front ends share one in-process backend (one replicated state) and a session secret; the
 * backend's clock is the test's.
 */
class ZkServerEphemeralTest {
    private static final List<org.apache.zookeeper.data.ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final LocalVoleryBackend backend = new LocalVoleryBackend(clock::get);
    private final SimpleMeterRegistry registryB = new SimpleMeterRegistry();
    private ZkServer a;
    private ZkServer b;

    private ZkServer server(int id, SimpleMeterRegistry registry) throws Exception {
        ZkServer s = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1).withServerId(id)
                .withSessionSecret(SECRET), backend, registry);
        s.start();
        return s;
    }

    @AfterEach
    void stop() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    @Test
    @DisplayName("an ephemeral node names its session, takes no children, and goes when the session closes, firing watches")
    void anEphemeralNodeGoesWithItsClosedSession() throws Exception {
        a = server(1, new SimpleMeterRegistry());
        ZooKeeper owner = ZkTesting.connect(a);
        ZooKeeper other = ZkTesting.connect(a);
        try {
            owner.create("/e", new byte[] {1}, OPEN, CreateMode.EPHEMERAL);
            String seq = owner.create("/q-", new byte[0], OPEN, CreateMode.EPHEMERAL_SEQUENTIAL);
            assertThat(seq).isEqualTo("/q-0000000001");
            Stat stat = other.exists("/e", false);
            assertThat(stat.getEphemeralOwner()).isEqualTo(owner.getSessionId());
            assertThatThrownBy(() -> owner.create("/e/c", new byte[0], OPEN, CreateMode.PERSISTENT))
                    .isInstanceOf(KeeperException.NoChildrenForEphemeralsException.class);
            LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            other.exists("/e", events::add);
            other.getChildren("/", events::add);
            owner.close();
            WatchedEvent first = events.poll(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS);
            WatchedEvent second = events.poll(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(List.of(first.getType(), second.getType())).containsExactlyInAnyOrder(
                    Watcher.Event.EventType.NodeDeleted, Watcher.Event.EventType.NodeChildrenChanged);
            assertThat(other.getChildren("/", false)).isEmpty();
        } finally {
            other.close();
        }
    }

    @Test
    @DisplayName("a session whose front end died expires by another front end's tick; its nodes go; it is refused as expired anywhere")
    void aSessionOfADeadFrontEndExpiresInTheOrder() throws Exception {
        a = server(1, new SimpleMeterRegistry());
        b = server(2, registryB);
        ZooKeeper leader = ZooKeeperClients.connect("127.0.0.1:" + a.port(), 4_000, Duration.ofSeconds(ZkTesting.WAIT_SECONDS));
        ZooKeeper follower = ZooKeeperClients.connect("127.0.0.1:" + b.port(), 4_000, Duration.ofSeconds(ZkTesting.WAIT_SECONDS));
        try {
            leader.create("/leader", new byte[0], OPEN, CreateMode.EPHEMERAL);
            follower.create("/follower", new byte[0], OPEN, CreateMode.EPHEMERAL);
            CountDownLatch deleted = new CountDownLatch(1);
            follower.exists("/leader", e -> {
                if (e.getType() == Watcher.Event.EventType.NodeDeleted) {
                    deleted.countDown();
                }
            });
            long session = leader.getSessionId();
            byte[] password = leader.getSessionPasswd();
            a.close(); // the leader's front end dies: nobody ticks its session any more
            a = null;
            clock.addAndGet(60_000); // B's next tick (once a second) carries a time past the leader's time-out
            assertThat(deleted.await(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(follower.exists("/leader", false)).isNull();
            assertThat(follower.exists("/follower", false)).as("the follower's session is ticked").isNotNull();

            // The leader's client comes back to B with its id and password: B adopts it only if the order did not end it.
            CountDownLatch expired = new CountDownLatch(1);
            ZooKeeper back = new ZooKeeper("127.0.0.1:" + b.port(), 4_000, e -> {
                if (e.getState() == Watcher.Event.KeeperState.Expired) {
                    expired.countDown();
                }
            }, session, password);
            try {
                assertThat(expired.await(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            } finally {
                back.close();
            }
            assertThat(ZkTesting.sessions(registryB, "rejected")).isGreaterThanOrEqualTo(1);
            assertThatThrownBy(() -> leader.create("/again", new byte[0], OPEN, CreateMode.EPHEMERAL))
                    .isInstanceOf(KeeperException.class);
        } finally {
            leader.close();
            follower.close();
        }
    }

    @Test
    @DisplayName("a session that moves to another front end keeps its ephemeral nodes, and that front end ticks it")
    void aMovedSessionKeepsItsNodes() throws Exception {
        a = server(1, new SimpleMeterRegistry());
        b = server(2, registryB);
        ZooKeeper client = ZooKeeperClients.connect("127.0.0.1:" + a.port(), 4_000, Duration.ofSeconds(ZkTesting.WAIT_SECONDS));
        try {
            client.create("/mine", new byte[0], OPEN, CreateMode.EPHEMERAL);
            ZooKeeper moved = new ZooKeeper("127.0.0.1:" + b.port(), 4_000, e -> { }, client.getSessionId(),
                    client.getSessionPasswd());
            try {
                ZkTesting.await("the session to be adopted by B", () -> moved.getState() == ZooKeeper.States.CONNECTED);
                assertThat(ZkTesting.sessions(registryB, "adopted")).isEqualTo(1);
                a.close();
                a = null;
                for (int i = 0; i < 3; i++) { // B's ticks keep it alive as the clock moves on
                    clock.addAndGet(2_000);
                    long zxid = backend.lastZxid();
                    ZkTesting.await("a tick of B", () -> backend.lastZxid() > zxid);
                }
                assertThat(moved.exists("/mine", false)).isNotNull();
            } finally {
                moved.close();
            }
            ZkTesting.await("the closed session's node to go", () -> {
                try {
                    return backend.submit(new dev.parallax.examples.volery.Exists("/mine")).get().code()
                            == dev.parallax.examples.volery.ZkCode.NONODE;
                } catch (Exception e) {
                    return false;
                }
            });
        } finally {
            client.close();
        }
    }
}
