package dev.parallax.examples.volery.zk;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** Helpers shared by the ZooKeeper front end's tests. */
final class ZkTesting {
    /** A generous wait for events on a loaded CI machine. */
    static final long WAIT_SECONDS = 30;

    private ZkTesting() {
    }

    /** The official client connected to {@code server} (waits for SyncConnected). */
    static ZooKeeper connect(ZkServer server) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper("127.0.0.1:" + server.port(), 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
            zk.close();
            throw new AssertionError("the ZooKeeper client did not connect to port " + server.port());
        }
        return zk;
    }

    /** Polls {@code condition} until it holds, failing after {@link #WAIT_SECONDS}. */
    static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }
}
