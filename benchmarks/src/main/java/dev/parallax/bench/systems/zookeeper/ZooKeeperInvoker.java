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
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One ZooKeeper session (its own client handle and connection) driven as a {@link CommandInvoker}
 * with a {@link ZkWorkload}: every command becomes the session's next operation
 * ({@link ZkSessionOps}), an asynchronous {@code setData(znode, command, -1)} on one of its data
 * znodes, or, for the workload's global share, a {@code create(fresh znode, command)} or a
 * {@code delete(oldest transient znode, -1)}. The server is Apache ZooKeeper or Volery's
 * ZooKeeper-protocol front end (seed 004 (S-SMR / Eyrie / Volery) §V-B): the client is ZooKeeper's own.
 * A setData's reply is the new data version from the returned {@link Stat} as a 4-byte big-endian
 * int; a create's and a delete's reply is empty. A read ({@link #query}, the load's GET) is a
 * {@code getData(znode, no watch)} of one of the session's data znodes, answered with its data: on
 * Apache ZooKeeper by the server the session is connected to, from its local state (not
 * linearizable); on Volery by a replica of the owner through the query path (read-index). A failed
 * operation fails its future with the {@link KeeperException}.
 *
 * <p>Threads: {@link #invoke} from any thread, never blocking (a short lock keeps the sequence's order
 * the submission order; the ZooKeeper client queues the request for its send thread); futures
 * complete on the handle's event thread, in submission order, which ZooKeeper guarantees per session.
 */
public final class ZooKeeperInvoker implements CommandInvoker, AutoCloseable {
    private static final String ZOOKEEPER_LOGGER = "org.slf4j.simpleLogger.log.org.apache.zookeeper";
    private static final AsyncCallback.StatCallback SET_DATA_DONE = ZooKeeperInvoker::setDataDone;
    private static final AsyncCallback.StringCallback CREATE_DONE = ZooKeeperInvoker::createDone;
    private static final AsyncCallback.VoidCallback DELETE_DONE = ZooKeeperInvoker::deleteDone;
    private static final AsyncCallback.DataCallback GET_DATA_DONE = ZooKeeperInvoker::getDataDone;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final ZooKeeper zk;
    private final ZkSessionOps ops;
    private final Map<ZkSessionOps.Kind, LongAdder> issued = new EnumMap<>(ZkSessionOps.Kind.class);

    private ZooKeeperInvoker(ZooKeeper zk, ZkSessionOps ops) {
        this.zk = zk;
        this.ops = ops;
        for (ZkSessionOps.Kind k : ZkSessionOps.Kind.values()) {
            issued.put(k, new LongAdder());
        }
    }

    /**
     * Opens session number {@code session} of {@code workload} to {@code connectString}, blocks
     * until it is connected, and creates its parent znode and data znodes ({@link ZkSessionOps}),
     * the data znodes pipelined.
     *
     * @throws IOException          if the session does not connect within {@code timeout} or a znode cannot be created
     * @throws InterruptedException if interrupted while waiting
     */
    public static ZooKeeperInvoker connect(String connectString, int session, ZkWorkload workload, Duration timeout)
            throws IOException, InterruptedException {
        ZkSessionOps ops = new ZkSessionOps(workload, session);
        CountDownLatch connected = new CountDownLatch(1);
        Watcher watcher = (WatchedEvent e) -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        };
        ZKClientConfig config = new ZKClientConfig();
        // No SASL: the servers have no authentication, and the client would otherwise probe for a JAAS login.
        config.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
        ZooKeeper zk = new ZooKeeper(connectString, (int) timeout.toMillis(), watcher, config);
        try {
            if (!connected.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("no ZooKeeper session with " + connectString + " after " + timeout);
            }
            createRetrying(zk, ops.parent(), timeout);
            createAll(zk, ops, timeout);
            return new ZooKeeperInvoker(zk, ops);
        } catch (KeeperException e) {
            zk.close();
            throw new IOException("cannot create " + ops.parent() + " on " + connectString, e);
        } catch (IOException | InterruptedException | RuntimeException e) {
            zk.close();
            throw e;
        }
    }

    /**
     * Creates a znode, again after a connection loss until {@code timeout}: a
     * cluster that is still starting (or a loaded machine) may answer the first command late, and a
     * create whose outcome was lost may have happened (NODEEXISTS after a retry then counts as done;
     * on the first attempt it means another session of the same number).
     */
    private static void createRetrying(ZooKeeper zk, String path, Duration timeout) throws KeeperException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean retried = false;
        while (true) {
            try {
                zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                return;
            } catch (KeeperException.NodeExistsException e) {
                if (!retried) {
                    throw e; // there before this session: another session of the same number
                }
                return; // an earlier attempt whose answer was lost did create it
            } catch (KeeperException.ConnectionLossException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                retried = true;
                Thread.sleep(100);
            }
        }
    }

    /** {@link #createRetrying} for a znode whose first create's answer was lost (it may exist). */
    private static void createLost(ZooKeeper zk, String path, Duration timeout) throws KeeperException, InterruptedException {
        try {
            createRetrying(zk, path, timeout);
        } catch (KeeperException.NodeExistsException e) {
            // the lost attempt created it
        }
    }

    /**
     * Creates the data znodes, all requests in flight at once, and waits for every answer; those
     * answered with a connection loss are created again one by one ({@link #createRetrying}).
     */
    private static void createAll(ZooKeeper zk, ZkSessionOps ops, Duration timeout)
            throws IOException, InterruptedException, KeeperException {
        CountDownLatch answered = new CountDownLatch(ops.dataPaths().size());
        AtomicReference<String> failure = new AtomicReference<>();
        java.util.Queue<String> lost = new java.util.concurrent.ConcurrentLinkedQueue<>();
        for (String path : ops.dataPaths()) {
            zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, (rc, p, ctx, name) -> {
                if (rc == KeeperException.Code.CONNECTIONLOSS.intValue()) {
                    lost.add(p);
                } else if (rc != KeeperException.Code.OK.intValue() && rc != KeeperException.Code.NODEEXISTS.intValue()) {
                    failure.compareAndSet(null, p + ": " + KeeperException.Code.get(rc));
                }
                answered.countDown();
            }, null);
        }
        if (!answered.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IOException("data znodes of " + ops.parent() + " not created after " + timeout);
        }
        if (failure.get() != null) {
            throw new IOException("cannot create data znode " + failure.get());
        }
        for (String path : lost) {
            createLost(zk, path, timeout);
        }
    }

    /**
     * Lets the ZooKeeper client log at WARN unless the caller chose a level for it: it logs every
     * session's set-up at INFO, which would drown the load's console. Call before connecting.
     */
    public static void quietClientLogs() {
        if (System.getProperty(ZOOKEEPER_LOGGER) == null) {
            System.setProperty(ZOOKEEPER_LOGGER, "warn");
        }
    }

    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        byte[] data = new byte[command.remaining()];
        command.duplicate().get(data);
        CompletableFuture<ByteBuffer> reply = new CompletableFuture<>();
        synchronized (ops) {
            ZkSessionOps.Op op = ops.next();
            issued.get(op.kind()).increment();
            switch (op.kind()) {
                case SET_DATA -> zk.setData(op.path(), data, -1, SET_DATA_DONE, reply);
                case CREATE -> zk.create(op.path(), data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, CREATE_DONE, reply);
                case DELETE -> zk.delete(op.path(), -1, DELETE_DONE, reply);
                default -> throw new IllegalStateException("unknown operation " + op.kind());
            }
        }
        return reply;
    }

    /** A read: {@code getData} of one of the session's data znodes, without a watch (the command's bytes are not used). */
    @Override
    public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
        CompletableFuture<ByteBuffer> reply = new CompletableFuture<>();
        synchronized (ops) {
            ZkSessionOps.Op op = ops.nextRead();
            issued.get(op.kind()).increment();
            zk.getData(op.path(), false, GET_DATA_DONE, reply);
        }
        return reply;
    }

    @SuppressWarnings("unchecked")
    private static void getDataDone(int rc, String path, Object ctx, byte[] data, Stat stat) {
        CompletableFuture<ByteBuffer> reply = (CompletableFuture<ByteBuffer>) ctx;
        if (rc == KeeperException.Code.OK.intValue()) {
            reply.complete(ByteBuffer.wrap(data == null ? new byte[0] : data));
        } else {
            reply.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
    }

    /** Operations of {@code kind} issued so far (answered or not). */
    public long issued(ZkSessionOps.Kind kind) {
        return issued.get(kind).sum();
    }

    @SuppressWarnings("unchecked")
    private static void setDataDone(int rc, String path, Object ctx, Stat stat) {
        CompletableFuture<ByteBuffer> reply = (CompletableFuture<ByteBuffer>) ctx;
        if (rc == KeeperException.Code.OK.intValue()) {
            reply.complete(ByteBuffer.allocate(Integer.BYTES).putInt(0, stat.getVersion()));
        } else {
            reply.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
    }

    @SuppressWarnings("unchecked")
    private static void createDone(int rc, String path, Object ctx, String name) {
        done(rc, path, (CompletableFuture<ByteBuffer>) ctx);
    }

    @SuppressWarnings("unchecked")
    private static void deleteDone(int rc, String path, Object ctx) {
        done(rc, path, (CompletableFuture<ByteBuffer>) ctx);
    }

    private static void done(int rc, String path, CompletableFuture<ByteBuffer> reply) {
        if (rc == KeeperException.Code.OK.intValue()) {
            reply.complete(EMPTY.duplicate());
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
