package dev.parallax.bench.systems.zookeeper;

import dev.parallax.core.client.CommandInvoker;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.Stat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One ZooKeeper session (its own client handle and connection) driven as a {@link CommandInvoker}:
 * every command is an asynchronous {@code setData(znode, command, -1)} on a znode of its own, and
 * the reply is the new data version from the returned {@link Stat} as a 4-byte big-endian int.
 *
 * <p>Threads: {@link #invoke} from any thread, never blocking (the ZooKeeper client queues the
 * request for its send thread); futures complete on the handle's event thread, in submission
 * order, which ZooKeeper guarantees per session.
 */
public final class ZooKeeperInvoker implements CommandInvoker, AutoCloseable {
    private static final AsyncCallback.StatCallback COMPLETE = ZooKeeperInvoker::complete;

    private final ZooKeeper zk;
    private final String path;

    private ZooKeeperInvoker(ZooKeeper zk, String path) {
        this.zk = zk;
        this.path = path;
    }

    /**
     * Opens a session to {@code connectString}, blocks until it is connected, and creates the
     * persistent znode {@code path} the commands will write.
     *
     * @throws IOException          if the session does not connect within {@code timeout} or the znode cannot be created
     * @throws InterruptedException if interrupted while waiting
     */
    public static ZooKeeperInvoker connect(String connectString, String path, Duration timeout)
            throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        Watcher watcher = (WatchedEvent e) -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        };
        ZKClientConfig config = new ZKClientConfig();
        // No SASL: the ensemble has no authentication, and the client would otherwise probe for a JAAS login.
        config.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
        ZooKeeper zk = new ZooKeeper(connectString, (int) timeout.toMillis(), watcher, config);
        try {
            if (!connected.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("no ZooKeeper session with " + connectString + " after " + timeout);
            }
            zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            return new ZooKeeperInvoker(zk, path);
        } catch (KeeperException e) {
            zk.close();
            throw new IOException("cannot create " + path, e);
        } catch (IOException | InterruptedException | RuntimeException e) {
            zk.close();
            throw e;
        }
    }

    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        byte[] data = new byte[command.remaining()];
        command.duplicate().get(data);
        CompletableFuture<ByteBuffer> reply = new CompletableFuture<>();
        zk.setData(path, data, -1, COMPLETE, reply);
        return reply;
    }

    @SuppressWarnings("unchecked")
    private static void complete(int rc, String path, Object ctx, Stat stat) {
        CompletableFuture<ByteBuffer> reply = (CompletableFuture<ByteBuffer>) ctx;
        if (rc == KeeperException.Code.OK.intValue()) {
            reply.complete(ByteBuffer.allocate(Integer.BYTES).putInt(0, stat.getVersion()));
        } else {
            reply.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
    }

    /**
     * Closes the session; commands still in flight fail with a connection-loss error. Blocks until
     * the server confirmed the close or the session timed out; if interrupted, returns early with
     * the interrupt flag set.
     */
    @Override
    public void close() {
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
