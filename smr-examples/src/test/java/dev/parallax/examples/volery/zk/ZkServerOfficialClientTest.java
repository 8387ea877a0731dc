package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.testkit.Await;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The official ZooKeeper Java client (3.9.5), unmodified, against ZkServer over LocalVoleryBackend. */
class ZkServerOfficialClientTest {
    private static final List<org.apache.zookeeper.data.ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private LocalVoleryBackend backend;
    private ZkServer server;
    private ZooKeeper zk;

    @BeforeEach
    void start() throws Exception {
        backend = new LocalVoleryBackend(() -> 1_700_000_000_000L);
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(2), backend, registry);
        server.start();
        zk = ZkTesting.connect(server);
    }

    @AfterEach
    void stop() throws InterruptedException {
        zk.close();
        server.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private double counter(String name, String tag, String value) {
        return registry.get("parallax.volery.zk." + name).tag(tag, value).counter().count();
    }

    @Test
    void handshakeGrantsASessionWithinTheConfiguredTimeouts() {
        assertThat(zk.getState()).isEqualTo(ZooKeeper.States.CONNECTED);
        assertThat(zk.getSessionId()).isNotZero();
        assertThat(zk.getSessionId() >>> 56).isZero();
        assertThat(zk.getSessionPasswd()).hasSize(16);
        assertThat(zk.getSessionTimeout()).isEqualTo(10_000);
        assertThat(server.sessionCount()).isEqualTo(1);
        assertThat(counter("sessions", "event", "created")).isEqualTo(1);
    }

    @Test
    void createPlainSequentialAndCreate2WithStat() throws Exception {
        assertThat(zk.create("/a", bytes("x"), OPEN, CreateMode.PERSISTENT)).isEqualTo("/a");
        assertThat(zk.create("/a/s-", bytes("1"), OPEN, CreateMode.PERSISTENT_SEQUENTIAL)).isEqualTo("/a/s-0000000000");
        assertThat(zk.create("/a/s-", bytes("2"), OPEN, CreateMode.PERSISTENT_SEQUENTIAL)).isEqualTo("/a/s-0000000001");

        Stat stat = new Stat();
        assertThat(zk.create("/b", bytes("hello"), OPEN, CreateMode.PERSISTENT, stat)).isEqualTo("/b");
        assertThat(stat.getCzxid()).isEqualTo(backend.lastZxid()).isEqualTo(stat.getMzxid()).isPositive();
        assertThat(stat.getVersion()).isZero();
        assertThat(stat.getDataLength()).isEqualTo(5);
        assertThat(stat.getNumChildren()).isZero();
        assertThat(stat.getCtime()).isEqualTo(1_700_000_000_000L);

        assertThatThrownBy(() -> zk.create("/a", bytes("y"), OPEN, CreateMode.PERSISTENT))
                .isInstanceOf(KeeperException.NodeExistsException.class);
        assertThatThrownBy(() -> zk.create("/missing/child", bytes("y"), OPEN, CreateMode.PERSISTENT))
                .isInstanceOf(KeeperException.NoNodeException.class);
        assertThatThrownBy(() -> zk.create("/c", bytes("y"), ZooDefs.Ids.READ_ACL_UNSAFE, CreateMode.PERSISTENT))
                .isInstanceOf(KeeperException.InvalidACLException.class);
        assertThat(counter("unsupported", "feature", "acl")).isEqualTo(1);
    }

    @Test
    void childrenAreSortedAndStatFieldsMatchTheOperations() throws Exception {
        zk.create("/p", bytes("parent"), OPEN, CreateMode.PERSISTENT);
        for (String name : List.of("delta", "alpha", "charlie", "bravo")) {
            zk.create("/p/" + name, new byte[0], OPEN, CreateMode.PERSISTENT);
        }
        assertThat(zk.getChildren("/p", false)).containsExactly("alpha", "bravo", "charlie", "delta");
        Stat parent = new Stat();
        assertThat(zk.getChildren("/p", false, parent)).containsExactly("alpha", "bravo", "charlie", "delta");
        assertThat(parent.getNumChildren()).isEqualTo(4);
        assertThat(parent.getCversion()).isEqualTo(4);
        assertThat(parent.getPzxid()).isEqualTo(backend.lastZxid());
        assertThat(zk.getChildren("/", false)).containsExactly("p");

        Stat read = new Stat();
        assertThat(zk.getData("/p", false, read)).isEqualTo(bytes("parent"));
        assertThat(read.getDataLength()).isEqualTo(6);
        assertThat(read.getVersion()).isZero();
        assertThat(read.getEphemeralOwner()).isZero();
        assertThat(zk.exists("/p", false)).isEqualTo(read);
        assertThat(zk.exists("/nope", false)).isNull();
        assertThatThrownBy(() -> zk.getData("/nope", false, null)).isInstanceOf(KeeperException.NoNodeException.class);
        assertThatThrownBy(() -> zk.getChildren("/nope", false)).isInstanceOf(KeeperException.NoNodeException.class);

        Stat aclStat = new Stat();
        assertThat(zk.getACL("/p", aclStat)).isEqualTo(ZooDefs.Ids.OPEN_ACL_UNSAFE);
        assertThat(aclStat).isEqualTo(read);
    }

    @Test
    void setDataAndDeleteCheckVersions() throws Exception {
        zk.create("/n", bytes("v0"), OPEN, CreateMode.PERSISTENT);
        Stat set = zk.setData("/n", bytes("v1"), 0);
        assertThat(set.getVersion()).isEqualTo(1);
        assertThat(set.getMzxid()).isGreaterThan(set.getCzxid());
        assertThat(zk.setData("/n", bytes("v2"), -1).getVersion()).isEqualTo(2);
        assertThatThrownBy(() -> zk.setData("/n", bytes("stale"), 1)).isInstanceOf(KeeperException.BadVersionException.class);
        assertThatThrownBy(() -> zk.setData("/nope", bytes("x"), -1)).isInstanceOf(KeeperException.NoNodeException.class);
        assertThat(zk.getData("/n", false, null)).isEqualTo(bytes("v2"));

        zk.create("/n/child", new byte[0], OPEN, CreateMode.PERSISTENT);
        assertThatThrownBy(() -> zk.delete("/nope", -1)).isInstanceOf(KeeperException.NoNodeException.class);
        assertThatThrownBy(() -> zk.delete("/n", -1)).isInstanceOf(KeeperException.NotEmptyException.class);
        zk.delete("/n/child", 0);
        assertThatThrownBy(() -> zk.delete("/n", 1)).isInstanceOf(KeeperException.BadVersionException.class);
        zk.delete("/n", 2);
        assertThat(zk.exists("/n", false)).isNull();
        assertThatThrownBy(() -> zk.create("bad-path", new byte[0], OPEN, CreateMode.PERSISTENT))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pipelinedAsyncRequestsAndSyncAnswerInOrder() throws Exception {
        zk.create("/counter", bytes("0"), OPEN, CreateMode.PERSISTENT);
        int n = 200;
        List<Integer> versions = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(n + 1);
        List<String> synced = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            zk.setData("/counter", bytes(Integer.toString(i + 1)), i, (rc, path, ctx, stat) -> {
                versions.add(rc == 0 ? stat.getVersion() : rc);
                done.countDown();
            }, null);
        }
        zk.sync("/counter", (rc, path, ctx) -> {
            synchronized (synced) {
                synced.add(rc + " " + path + " after " + versions.size());
            }
            done.countDown();
        }, null);
        assertThat(done.await(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        List<Integer> expected = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            expected.add(i);
        }
        assertThat(versions).isEqualTo(expected);
        assertThat(synced).containsExactly("0 /counter after " + n);
        assertThat(zk.getData("/counter", false, null)).isEqualTo(bytes(Integer.toString(n)));
    }

    @Test
    void containersTtlsAclsAndMultiReadAreUnimplemented() throws Exception {
        zk.create("/w", new byte[0], OPEN, CreateMode.PERSISTENT);

        assertThatThrownBy(() -> zk.create("/c", new byte[0], OPEN, CreateMode.CONTAINER))
                .isInstanceOf(KeeperException.UnimplementedException.class);
        assertThatThrownBy(() -> zk.create("/t", new byte[0], OPEN, CreateMode.PERSISTENT_WITH_TTL, null, 1000))
                .isInstanceOf(KeeperException.UnimplementedException.class);
        assertThat(counter("unsupported", "feature", "create-mode")).isEqualTo(2);

        assertThatThrownBy(() -> zk.setACL("/w", OPEN, -1)).isInstanceOf(KeeperException.UnimplementedException.class);
        assertThatThrownBy(() -> zk.multi(List.of(org.apache.zookeeper.Op.create("/m", new byte[0], OPEN,
                CreateMode.CONTAINER)))).isInstanceOf(KeeperException.UnimplementedException.class);
        assertThat(counter("unsupported", "feature", "operation")).isEqualTo(2);

        // None of this disturbed the session or created anything.
        assertThat(zk.getChildren("/", false)).containsExactly("w");
        assertThat(zk.getState()).isEqualTo(ZooKeeper.States.CONNECTED);
        assertThat(counter("requests", "op", "create2")).isZero();
    }

    @Test
    void digestAuthIsAcceptedBecauseEveryZnodeIsOpen() throws Exception {
        zk.addAuthInfo("digest", bytes("user:secret"));
        zk.create("/after-auth", new byte[0], OPEN, CreateMode.PERSISTENT);
        assertThat(zk.exists("/after-auth", false)).isNotNull();
        assertThat(counter("requests", "op", "auth")).isEqualTo(1);
    }

    @Test
    void closeEndsTheSession() throws Exception {
        zk.create("/kept", bytes("k"), OPEN, CreateMode.PERSISTENT);
        zk.close();
        assertThat(server.sessionCount()).isZero();
        assertThat(counter("sessions", "event", "closed")).isEqualTo(1);
        zk = ZkTesting.connect(server);
        assertThat(zk.getData("/kept", false, null)).isEqualTo(bytes("k"));
        assertThat(server.sessionCount()).isEqualTo(1);
    }

    /** Records watch events; waits for them. */
    private static final class Events implements org.apache.zookeeper.Watcher {
        final java.util.concurrent.BlockingQueue<org.apache.zookeeper.WatchedEvent> events =
                new java.util.concurrent.LinkedBlockingQueue<>();

        @Override
        public void process(org.apache.zookeeper.WatchedEvent event) {
            events.add(event);
        }

        String next() throws InterruptedException {
            org.apache.zookeeper.WatchedEvent e = events.poll(30, TimeUnit.SECONDS);
            assertThat(e).as("a watch event within 30 s").isNotNull();
            return e.getType() + " " + e.getPath();
        }
    }

    @Test
    void oneShotWatchesFireOnceWithZooKeepersEventTypes() throws Exception {
        try (ZooKeeper other = ZkTesting.connect(server)) {
            Events data = new Events();
            Events exists = new Events();
            Events children = new Events();
            zk.create("/w", bytes("0"), OPEN, CreateMode.PERSISTENT);
            assertThat(zk.getData("/w", data, null)).isEqualTo(bytes("0"));
            assertThat(zk.exists("/w/new", exists)).isNull(); // an exists watch on a missing node
            assertThat(zk.getChildren("/w", children)).isEmpty();
            assertThat(counter("watches", "event", "set")).isEqualTo(3);

            other.setData("/w", bytes("1"), -1);
            assertThat(data.next()).isEqualTo("NodeDataChanged /w");
            other.create("/w/new", bytes("c"), OPEN, CreateMode.PERSISTENT);
            assertThat(exists.next()).isEqualTo("NodeCreated /w/new");
            assertThat(children.next()).isEqualTo("NodeChildrenChanged /w");

            // One-shot: further changes fire nothing until a read sets the watch again.
            other.setData("/w", bytes("2"), -1);
            other.create("/w/more", bytes("c"), OPEN, CreateMode.PERSISTENT);
            zk.getData("/w/new", data, null);
            zk.getChildren("/w/new", children);
            other.delete("/w/new", -1);
            // getData and getChildren watches on a deleted node both fire NodeDeleted.
            assertThat(data.next()).isEqualTo("NodeDeleted /w/new");
            assertThat(children.next()).isEqualTo("NodeDeleted /w/new");
            assertThat(data.events).isEmpty();
            assertThat(exists.events).isEmpty();
            assertThat(children.events).isEmpty();
            // As ZooKeeper's server: one NodeDeleted per session, which the client hands to both watchers.
            assertThat(counter("watches", "event", "delivered")).isEqualTo(4);
        }
    }

    @Test
    void aSessionSeesTheEventOfAWatchedZnodeBeforeAReplyShowingTheChange() throws Exception {
        try (ZooKeeper other = ZkTesting.connect(server)) {
            zk.create("/order", bytes("0"), OPEN, CreateMode.PERSISTENT);
            List<String> seen = Collections.synchronizedList(new ArrayList<>());
            // Many rounds: the timer's poll races the read's, and a notification it delivered used to be
            // queued on the event loop behind a reply the loop wrote directly (seen once in 20 rounds,
            // reliably within 400).
            for (int i = 1; i <= 200; i++) {
                CountDownLatch fired = new CountDownLatch(1);
                zk.getData("/order", event -> {
                    seen.add("event");
                    fired.countDown();
                }, null);
                other.setData("/order", bytes(Integer.toString(i)), -1);
                // An asynchronous read: its callback runs on the client's event thread, which dispatches
                // events and replies in the order they arrived. The reply shows the change, so the
                // event must have come first.
                CountDownLatch read = new CountDownLatch(1);
                zk.getData("/order", false, (rc, path, ctx, data, stat) -> {
                    seen.add("read " + new String(data, StandardCharsets.UTF_8));
                    read.countDown();
                }, null);
                assertThat(read.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(fired.await(30, TimeUnit.SECONDS)).isTrue();
            }
            for (int i = 0; i < 200; i++) {
                assertThat(seen.subList(2 * i, 2 * i + 2)).containsExactly("event", "read " + (i + 1));
            }
        }
    }

    @Test
    void aClosedSessionsWatchesAreDroppedAtThePartition() throws Exception {
        zk.create("/gone", bytes("0"), OPEN, CreateMode.PERSISTENT);
        try (ZooKeeper watcher = ZkTesting.connect(server)) {
            watcher.getData("/gone", event -> { }, null);
            watcher.exists("/gone/x", event -> { });
        }
        // closeSession dropped both watches (WatchDrop); a poll of an empty partition returns nothing
        Await.value(Duration.ofSeconds(30), () -> backend.watchCount(), count -> count == 0,
                () -> "the closed session's watches to be dropped");
        assertThat(backend.watchCount()).isZero();
        zk.setData("/gone", bytes("1"), -1);
        assertThat(counter("watches", "event", "undeliverable")).isZero();
    }

    @Test
    void persistentWatchesStayAndRecursiveOnesSeeTheSubtreeUntilRemoved() throws Exception {
        try (ZooKeeper other = ZkTesting.connect(server)) {
            zk.create("/p", bytes("0"), OPEN, CreateMode.PERSISTENT);
            Events persistent = new Events();
            Events recursive = new Events();
            zk.addWatch("/p", persistent, org.apache.zookeeper.AddWatchMode.PERSISTENT);
            zk.addWatch("/p", recursive, org.apache.zookeeper.AddWatchMode.PERSISTENT_RECURSIVE);

            other.setData("/p", bytes("1"), -1);
            other.setData("/p", bytes("2"), -1); // persistent: fires again, nothing re-armed
            other.create("/p/c", bytes("c"), OPEN, CreateMode.PERSISTENT);
            other.setData("/p/c", bytes("d"), -1);
            assertThat(List.of(persistent.next(), persistent.next(), persistent.next()))
                    .containsExactly("NodeDataChanged /p", "NodeDataChanged /p", "NodeChildrenChanged /p");
            // recursive: the path and every descendant, no NodeChildrenChanged
            assertThat(List.of(recursive.next(), recursive.next(), recursive.next(), recursive.next()))
                    .containsExactly("NodeDataChanged /p", "NodeDataChanged /p", "NodeCreated /p/c", "NodeDataChanged /p/c");

            zk.removeWatches("/p", recursive, org.apache.zookeeper.Watcher.WatcherType.Any, false);
            other.setData("/p/c", bytes("e"), -1);
            other.setData("/p", bytes("3"), -1);
            assertThat(persistent.next()).isEqualTo("NodeDataChanged /p");
            // the client tells the removed watcher so itself; nothing came from the server after it
            assertThat(recursive.next()).isEqualTo("PersistentWatchRemoved /p");
            assertThat(recursive.events).as("removed").isEmpty();
            assertThatThrownBy(() -> zk.removeWatches("/none", persistent, org.apache.zookeeper.Watcher.WatcherType.Any, false))
                    .isInstanceOf(KeeperException.NoWatcherException.class);
        }
    }
}
