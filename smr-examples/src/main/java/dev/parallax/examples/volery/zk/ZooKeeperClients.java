package dev.parallax.examples.volery.zk;

import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Sessions of ZooKeeper's own client on ZooKeeper-protocol servers (Volery's front ends, seed 004
 * (S-SMR / Eyrie / Volery) §V-B, or Apache ZooKeeper), for the tools and tests that drive them.
 * Stateless; thread-safe; {@link #connect} and {@link #close} block the calling thread.
 */
public final class ZooKeeperClients {
    private ZooKeeperClients() {
    }

    /**
     * A client session on {@code connectString} ({@code host:port[,host:port...]}), once connected
     * (SyncConnected), asking for {@code sessionTimeoutMs}; the client picks among the listed servers
     * and moves to another when its own is gone.
     *
     * @throws IOException          if the session is not connected within {@code wait} (the client is closed)
     * @throws InterruptedException if interrupted while waiting
     */
    public static ZooKeeper connect(String connectString, int sessionTimeoutMs, Duration wait)
            throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, sessionTimeoutMs, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(wait.toNanos(), TimeUnit.NANOSECONDS)) {
            zk.close();
            throw new IOException("no ZooKeeper session on " + connectString + " within " + wait.toSeconds() + " s");
        }
        return zk;
    }

    /**
     * Closes {@code zk} (nothing if null), waiting for the session's close; an interrupt while
     * waiting ends the wait and is kept on the thread.
     */
    public static void close(ZooKeeper zk) {
        if (zk == null) {
            return;
        }
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
