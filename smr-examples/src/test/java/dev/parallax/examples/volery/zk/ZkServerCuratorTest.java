package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Apache Curator (5.9, default settings) running a scripted session against ZkServer. */
class ZkServerCuratorTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ZkServer server;
    private CuratorFramework curator;

    @BeforeEach
    void start() throws Exception {
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(2), new LocalVoleryBackend(), registry);
        server.start();
        curator = CuratorFrameworkFactory.newClient("127.0.0.1:" + server.port(), 10_000, 10_000,
                new RetryNTimes(3, 100));
        curator.start();
        assertThat(curator.blockUntilConnected((int) ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void stop() {
        curator.close();
        server.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void scriptedSession() throws Exception {
        assertThat(curator.create().creatingParentsIfNeeded().forPath("/app/config/db", bytes("v1")))
                .isEqualTo("/app/config/db");
        assertThat(curator.getData().forPath("/app/config/db")).isEqualTo(bytes("v1"));

        Stat stat = new Stat();
        curator.getData().storingStatIn(stat).forPath("/app/config/db");
        assertThat(stat.getVersion()).isZero();
        Stat updated = curator.setData().withVersion(stat.getVersion()).forPath("/app/config/db", bytes("v2"));
        assertThat(updated.getVersion()).isEqualTo(1);
        assertThatThrownBy(() -> curator.setData().withVersion(stat.getVersion()).forPath("/app/config/db", bytes("v3")))
                .isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(curator.getData().forPath("/app/config/db")).isEqualTo(bytes("v2"));

        Stat created = new Stat();
        String queued = curator.create().storingStatIn(created).creatingParentsIfNeeded()
                .withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath("/app/queue/item-", bytes("job"));
        assertThat(queued).isEqualTo("/app/queue/item-0000000000");
        assertThat(created.getDataLength()).isEqualTo(3);
        curator.create().forPath("/app/config/cache", bytes("on"));

        assertThat(curator.getChildren().forPath("/app")).containsExactly("config", "queue");
        assertThat(curator.getChildren().forPath("/app/config")).containsExactly("cache", "db");
        assertThat(curator.checkExists().forPath("/app/config/cache")).isNotNull();

        curator.delete().deletingChildrenIfNeeded().forPath("/app");
        assertThat(curator.checkExists().forPath("/app")).isNull();
        assertThat(curator.getChildren().forPath("/")).isEmpty();
        assertThat(curator.getZookeeperClient().isConnected()).isTrue();
    }

    @Test
    void unsupportedFeaturesFailWithoutBreakingTheSession() throws Exception {
        assertThatThrownBy(() -> curator.create().withMode(CreateMode.CONTAINER).forPath("/lock"))
                .isInstanceOf(KeeperException.UnimplementedException.class);
        curator.create().forPath("/still-works", bytes("yes"));
        assertThat(curator.getData().forPath("/still-works")).isEqualTo(bytes("yes"));
    }

    @Test
    void aWatchSetThroughCuratorFiresOnTheNextChange() throws Exception {
        curator.create().forPath("/watched", bytes("a"));
        java.util.concurrent.CountDownLatch changed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<org.apache.zookeeper.WatchedEvent> seen =
                new java.util.concurrent.atomic.AtomicReference<>();
        assertThat(curator.getData().usingWatcher((org.apache.curator.framework.api.CuratorWatcher) e -> {
            seen.set(e);
            changed.countDown();
        }).forPath("/watched")).isEqualTo(bytes("a"));
        curator.setData().forPath("/watched", bytes("b"));
        assertThat(changed.await(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get().getType()).isEqualTo(org.apache.zookeeper.Watcher.Event.EventType.NodeDataChanged);
        assertThat(seen.get().getPath()).isEqualTo("/watched");
    }

    @Test
    void curatorCacheFollowsTheSubtreeThroughPersistentRecursiveWatches() throws Exception {
        curator.create().forPath("/cache", bytes("root"));
        java.util.concurrent.BlockingQueue<String> changes = new java.util.concurrent.LinkedBlockingQueue<>();
        try (org.apache.curator.framework.recipes.cache.CuratorCache cache =
                     org.apache.curator.framework.recipes.cache.CuratorCache.build(curator, "/cache")) {
            java.util.concurrent.CountDownLatch initialized = new java.util.concurrent.CountDownLatch(1);
            cache.listenable().addListener(org.apache.curator.framework.recipes.cache.CuratorCacheListener.builder()
                    .forCreates(n -> changes.add("created " + n.getPath() + " " + new String(n.getData(), StandardCharsets.UTF_8)))
                    .forChanges((before, after) -> changes.add("changed " + after.getPath() + " "
                            + new String(after.getData(), StandardCharsets.UTF_8)))
                    .forDeletes(n -> changes.add("deleted " + n.getPath()))
                    .forInitialized(initialized::countDown)
                    .build());
            cache.start();
            assertThat(initialized.await(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(next(changes)).isEqualTo("created /cache root");

            curator.create().forPath("/cache/a", bytes("1"));
            assertThat(next(changes)).isEqualTo("created /cache/a 1");
            curator.setData().forPath("/cache/a", bytes("2"));
            assertThat(next(changes)).isEqualTo("changed /cache/a 2");
            curator.delete().forPath("/cache/a");
            assertThat(next(changes)).isEqualTo("deleted /cache/a");
            assertThat(cache.get("/cache")).isPresent();
            assertThat(cache.get("/cache/a")).isEmpty();
        }
    }

    private static String next(java.util.concurrent.BlockingQueue<String> changes) throws InterruptedException {
        String change = changes.poll(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(change).as("a cache change within %d s", ZkTesting.WAIT_SECONDS).isNotNull();
        return change;
    }
}
