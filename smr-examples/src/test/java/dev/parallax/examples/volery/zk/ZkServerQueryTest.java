package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.GroupSet;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.CommandRejectedException;
import dev.parallax.examples.volery.VoleryPartition;
import dev.parallax.scheduler.ssmr.IdealSsmr;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The official ZooKeeper client against ZkServer over a {@link ReplicatedVoleryBackend} whose reads
 * without a watch go as queries to a Volery partition in process: commands are ordered on one thread,
 * queries answered on another from the partition's state ({@link VoleryPartition#query}), each
 * whenever its thread gets to it — so only the session's FIFO discipline keeps a pipeline's reads
 * in their place.
 */
class ZkServerQueryTest {
    private static final List<org.apache.zookeeper.data.ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private InProcessPartition partition;
    private ZkServer server;
    private ZooKeeper zk;

    /**
     * One Volery partition (P = 1, one replica) as an invoker: commands execute in submission order on
     * a sequencer thread, queries on a reader thread from the state as it is then (which covers every
     * command completed before the query was asked: linearizable); a query the partition refuses is
     * ordered, as the client does on UNSUPPORTED.
     */
    private static final class InProcessPartition implements CommandInvoker, AutoCloseable {
        final IdealSsmr<VoleryPartition> ssmr = new IdealSsmr<>(1, 1, p -> new VoleryPartition(), VoleryPartition::digest);
        final ExecutorService sequencer = Executors.newSingleThreadExecutor();
        final ExecutorService reader = Executors.newSingleThreadExecutor();
        final AtomicInteger queries = new AtomicInteger();

        @Override
        public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
            byte[] bytes = copy(command);
            return CompletableFuture.supplyAsync(() -> execute(bytes), sequencer);
        }

        @Override
        public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
            byte[] bytes = copy(query);
            return CompletableFuture.supplyAsync(() -> {
                synchronized (this) {
                    try {
                        ByteBuffer reply = ssmr.replica(0, 0).query(ByteBuffer.wrap(bytes));
                        queries.incrementAndGet();
                        return CompletableFuture.completedFuture(reply);
                    } catch (UnsupportedOperationException ordered) {
                        return invoke(ByteBuffer.wrap(bytes));
                    }
                }
            }, reader).thenCompose(f -> f);
        }

        private synchronized ByteBuffer execute(byte[] bytes) {
            String outcome = ssmr.run(bytes, GroupSet.of(0)).values().iterator().next();
            if (outcome.startsWith("error") || outcome.startsWith("WrongPartitions")) {
                throw new CommandRejectedException(outcome);
            }
            return ByteBuffer.wrap(HexFormat.of().parseHex(outcome));
        }

        private static byte[] copy(ByteBuffer b) {
            byte[] out = new byte[b.remaining()];
            b.duplicate().get(out);
            return out;
        }

        @Override
        public void close() {
            sequencer.shutdownNow();
            reader.shutdownNow();
        }
    }

    @BeforeEach
    void start() throws Exception {
        partition = new InProcessPartition();
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(2),
                new ReplicatedVoleryBackend(partition, () -> 1_700_000_000_000L), registry);
        server.start();
        zk = ZkTesting.connect(server);
    }

    @AfterEach
    void stop() throws InterruptedException {
        zk.close();
        server.close();
        partition.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private double reads(String path) {
        return registry.get("parallax.volery.zk.reads").tag("path", path).counter().count();
    }

    @Test
    void readsWithoutAWatchAreQueriesAndAnswerAsOrderedReadsWould() throws Exception {
        zk.create("/a", bytes("one"), OPEN, CreateMode.PERSISTENT);
        zk.create("/a/b", bytes(""), OPEN, CreateMode.PERSISTENT);
        zk.setData("/a", bytes("two"), 0);
        int before = partition.queries.get();
        Stat stat = new Stat();
        assertThat(new String(zk.getData("/a", false, stat), StandardCharsets.UTF_8)).isEqualTo("two");
        assertThat(stat.getVersion()).isEqualTo(1);
        assertThat(stat.getNumChildren()).isEqualTo(1);
        assertThat(zk.exists("/a", false).getMtime()).isEqualTo(1_700_000_000_000L);
        assertThat(zk.exists("/missing", false)).isNull();
        assertThat(zk.getChildren("/a", false)).containsExactly("b");
        Stat childrenStat = new Stat();
        assertThat(zk.getChildren("/", false, childrenStat)).containsExactly("a"); // getChildren2
        assertThat(childrenStat.getNumChildren()).isEqualTo(1);
        assertThat(zk.getACL("/a", new Stat())).isEqualTo(OPEN);
        try {
            zk.getData("/missing", false, null);
            throw new AssertionError("NoNode expected");
        } catch (KeeperException.NoNodeException expected) {
            // a query's error reply, as the ordered read's
        }
        // seven reads; each goes as a query unless it reaches the loop before the previous reply's bookkeeping
        assertThat(reads("query") + reads("ordered")).isEqualTo(7);
        assertThat(reads("query")).isPositive();
        assertThat(partition.queries.get() - before).as("answered by the partition's query").isEqualTo((int) reads("query"));
        CountDownLatch synced = new CountDownLatch(1);
        zk.sync("/a", (rc, path, ctx) -> {
            if (rc == 0) {
                synced.countDown();
            }
        }, null);
        assertThat(synced.await(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(zk.getData("/a", false, null)).isEqualTo(bytes("two"));
    }

    @Test
    void aPipelineReadsItsOwnWritesAndNothingAfterThem() throws Exception {
        zk.create("/p", bytes("0"), OPEN, CreateMode.PERSISTENT);
        int rounds = 200;
        List<String> seen = new CopyOnWriteArrayList<>();
        List<Integer> errors = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(2 * rounds + 1);
        org.apache.zookeeper.AsyncCallback.DataCallback read = (rc, path, ctx, data, stat) -> {
            if (rc != 0) {
                errors.add(rc);
            }
            seen.add(data == null ? "error" : new String(data, StandardCharsets.UTF_8));
            done.countDown();
        };
        for (int i = 1; i <= rounds; i++) {
            // get (expects i-1), then set i: a query in flight holds the write; a write in flight orders the read
            zk.getData("/p", false, read, null);
            zk.setData("/p", bytes(Integer.toString(i)), -1, (rc, path, ctx, stat) -> {
                if (rc != 0) {
                    errors.add(rc);
                }
                done.countDown();
            }, null);
        }
        zk.getData("/p", false, read, null);
        assertThat(done.await(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(errors).isEmpty();
        for (int i = 0; i <= rounds; i++) {
            assertThat(seen.get(i)).as("read %d", i).isEqualTo(Integer.toString(i));
        }
        assertThat(reads("query")).as("some reads went as queries").isPositive();
        assertThat(reads("query") + reads("ordered")).isEqualTo(rounds + 1);
    }

    @Test
    void aReadThatSetsAWatchIsOrderedAndItsWatchFires() throws Exception {
        zk.create("/w", bytes("x"), OPEN, CreateMode.PERSISTENT);
        CountDownLatch fired = new CountDownLatch(1);
        List<WatchedEvent> events = new CopyOnWriteArrayList<>();
        Watcher watcher = e -> {
            events.add(e);
            fired.countDown();
        };
        assertThat(zk.getData("/w", watcher, null)).isEqualTo(bytes("x"));
        assertThat(reads("ordered")).isEqualTo(1);
        assertThat(reads("query")).isZero();
        try (ZooKeeper other = ZkTesting.connect(server)) {
            other.setData("/w", bytes("y"), -1);
        }
        assertThat(fired.await(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(events.get(0).getType()).isEqualTo(Watcher.Event.EventType.NodeDataChanged);
        assertThat(zk.getData("/w", false, null)).as("a read without a watch after the event").isEqualTo(bytes("y"));
        assertThat(reads("query") + reads("ordered")).isEqualTo(2);
    }
}
