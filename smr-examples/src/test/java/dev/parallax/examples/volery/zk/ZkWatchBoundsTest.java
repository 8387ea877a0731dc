package dev.parallax.examples.volery.zk;

import dev.parallax.examples.volery.SetData;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The partition's watch bounds fail visibly. A read that would set a watch past the bound on watches
 * fails with THROTTLEDOP (the official client's {@code KeeperException.ThrottledOpException}: not
 * executed, retry later) and is counted in {@code parallax.volery.zk.watches{event=refused}}. When
 * a front end's queue of events overflows, the partition forgets its watches and events and tells it
 * so; the front end closes its sessions' connections (counted in {@code watches{event=overflow}}),
 * and each client reconnects with its session and re-registers its watches with setWatches, which
 * fires what changed meanwhile: no event is lost.
 */
class ZkWatchBoundsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ZkServer server;
    private ZooKeeper zk;

    @AfterEach
    void stop() throws Exception {
        if (zk != null) {
            zk.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private LocalVoleryBackend start(int maxWatches, int maxPending, List<WatchedEvent> events) throws Exception {
        LocalVoleryBackend backend = LocalVoleryBackend.withWatchBounds(maxWatches, maxPending);
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1), backend, registry);
        server.start();
        zk = new ZooKeeper("127.0.0.1:" + server.port(), 10_000, events::add);
        ZkTesting.await("connected", () -> zk.getState() == ZooKeeper.States.CONNECTED);
        for (String p : new String[] {"/a", "/b", "/c"}) {
            zk.create(p, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }
        return backend;
    }

    private double watches(String event) {
        Counter c = registry.find("parallax.volery.zk.watches").tag("event", event).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aWatchPastTheBoundIsRefusedWithThrottledOp() throws Exception {
        List<WatchedEvent> events = new CopyOnWriteArrayList<>();
        LocalVoleryBackend backend = start(2, 1 << 16, events);
        zk.getData("/a", true, null);
        zk.exists("/b", true);
        assertThatThrownBy(() -> zk.getData("/c", true, null)).isInstanceOfSatisfying(KeeperException.class,
                e -> assertThat(e.code()).isEqualTo(KeeperException.Code.THROTTLEDOP));
        assertThatThrownBy(() -> zk.getChildren("/c", true)).isInstanceOf(KeeperException.ThrottledOpException.class);
        assertThat(zk.getData("/c", false, null)).as("without a watch").isEmpty();
        assertThat(zk.exists("/a", true)).as("a watch the session holds already").isNotNull();
        assertThat(backend.watchCount()).isEqualTo(2);
        assertThat(watches("refused")).isEqualTo(2);

        zk.setData("/a", "x".getBytes(StandardCharsets.UTF_8), -1); // fires /a's watch: room for one
        ZkTesting.await("the event", () -> events.stream().anyMatch(e -> "/a".equals(e.getPath())));
        assertThat(zk.getData("/c", true, null)).isEmpty();
        assertThat(backend.watchCount()).isEqualTo(2);
    }

    @Test
    void anOverflowingEventQueueResetsTheSessionsWhichReRegisterAndLoseNoEvent() throws Exception {
        List<WatchedEvent> events = new CopyOnWriteArrayList<>();
        LocalVoleryBackend backend = start(1000, 2, events);
        long session = zk.getSessionId();
        for (String p : new String[] {"/a", "/b", "/c"}) {
            zk.getData(p, true, null);
        }
        synchronized (backend) { // no poll in between: three events for a queue of two
            for (String p : new String[] {"/a", "/b", "/c"}) {
                backend.submit(new SetData(p, "x".getBytes(StandardCharsets.UTF_8), -1, System.currentTimeMillis()));
            }
        }
        ZkTesting.await("the three changes heard", () -> List.of("/a", "/b", "/c").stream().allMatch(p -> events.stream()
                .anyMatch(e -> e.getType() == Watcher.Event.EventType.NodeDataChanged && p.equals(e.getPath()))));
        assertThat(events).extracting(WatchedEvent::getState).contains(Watcher.Event.KeeperState.Disconnected)
                .doesNotContain(Watcher.Event.KeeperState.Expired);
        ZkTesting.await("reconnected", () -> zk.getState() == ZooKeeper.States.CONNECTED);
        assertThat(zk.getSessionId()).isEqualTo(session);
        assertThat(watches("overflow")).isEqualTo(1);
    }
}
