package dev.parallax.bench.systems.zookeeper;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ZooKeeperInvoker} against a real ZooKeeper server (standalone, in this JVM: it starts in
 * well under a second): the workload's operations reach the server as asked, with 25 outstanding
 * as in seed 004 (S-SMR / Eyrie / Volery) §VI.
 */
class ZooKeeperInvokerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int OUTSTANDING = 25;

    @TempDir
    Path dir;
    private ZooKeeperServer server;
    private ServerCnxnFactory factory;

    @BeforeEach
    void startServer() throws Exception {
        ZooKeeperInvoker.quietClientLogs();
        server = new ZooKeeperServer(Files.createDirectories(dir.resolve("snap")).toFile(),
                Files.createDirectories(dir.resolve("log")).toFile(), 2000);
        factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 100);
        factory.startup(server);
    }

    @AfterEach
    void stopServer() {
        if (factory != null) {
            factory.shutdown();
        }
        if (server != null) {
            server.shutdown();
        }
    }

    private String connectString() {
        return "127.0.0.1:" + factory.getLocalPort();
    }

    @Test
    @DisplayName("a read (the load's GET, as a query) is a getData of one of the session's data znodes: it answers the data last set there")
    void aQueryReadsADataZnode() throws Exception {
        ZkWorkload workload = new ZkWorkload(0, 1, 1);
        try (ZooKeeperInvoker invoker = ZooKeeperInvoker.connect(connectString(), 0, workload, TIMEOUT)) {
            invoker.invoke(ByteBuffer.wrap("written".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            ByteBuffer read = invoker.query(ByteBuffer.allocate(8)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(java.nio.charset.StandardCharsets.UTF_8.decode(read).toString()).isEqualTo("written");
            assertThat(invoker.issued(ZkSessionOps.Kind.GET_DATA)).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("seed 004 §VI: 3,000 commands of 100 B at 25 outstanding become setData, create and delete as the workload says, "
            + "and the server's znodes show exactly that")
    void theWorkloadReachesTheServer() throws Exception {
        ZkWorkload workload = ZkWorkload.globalPercent(10);
        int commands = 3_000;
        List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
        try (ZooKeeperInvoker invoker = ZooKeeperInvoker.connect(connectString(), 0, workload, TIMEOUT)) {
            Semaphore inFlight = new Semaphore(OUTSTANDING);
            for (int i = 0; i < commands; i++) {
                inFlight.acquire();
                byte[] data = new byte[100];
                data[0] = (byte) i;
                CompletableFuture<ByteBuffer> reply = invoker.invoke(ByteBuffer.wrap(data));
                reply.whenComplete((r, e) -> inFlight.release());
                replies.add(reply);
            }
            CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            ZkSessionOps expected = new ZkSessionOps(workload, 0);
            long setData = 0;
            long creates = 0;
            long deletes = 0;
            for (CompletableFuture<ByteBuffer> reply : replies) {
                ZkSessionOps.Op op = expected.next();
                ByteBuffer r = reply.join();
                switch (op.kind()) {
                    case SET_DATA -> {
                        setData++;
                        assertThat(r.remaining()).isEqualTo(Integer.BYTES);
                        assertThat(r.getInt(0)).as("data version").isPositive();
                    }
                    case CREATE -> {
                        creates++;
                        assertThat(r.remaining()).isZero();
                    }
                    case DELETE -> {
                        deletes++;
                        assertThat(r.remaining()).isZero();
                    }
                    default -> throw new AssertionError(op);
                }
            }
            assertThat(invoker.issued(ZkSessionOps.Kind.SET_DATA)).isEqualTo(setData);
            assertThat(invoker.issued(ZkSessionOps.Kind.CREATE)).isEqualTo(creates);
            assertThat(invoker.issued(ZkSessionOps.Kind.DELETE)).isEqualTo(deletes);
            assertThat(creates).isGreaterThan(50);

            ZooKeeper check = open();
            try {
                List<String> children = check.getChildren("/bench-0", false);
                assertThat(children).hasSize(ZkWorkload.DEFAULT_DATA_ZNODES + (int) (creates - deletes));
                long versions = 0;
                for (String path : expected.dataPaths()) {
                    Stat stat = new Stat();
                    byte[] data = check.getData(path, false, stat);
                    versions += stat.getVersion();
                    assertThat(data.length).as(path).isIn(0, 100);
                }
                assertThat(versions).as("one version per setData").isEqualTo(setData);
            } finally {
                check.close();
            }
        }
    }

    @Test
    void aSecondSessionOfTheSameNumberCannotCreateItsZnodesAndFailsClearly() throws Exception {
        try (ZooKeeperInvoker first = ZooKeeperInvoker.connect(connectString(), 4, ZkWorkload.DEFAULT, TIMEOUT)) {
            assertThat(first.invoke(ByteBuffer.wrap(new byte[10])).get(10, TimeUnit.SECONDS).getInt(0)).isEqualTo(1);
            assertThatThrownBy(() -> ZooKeeperInvoker.connect(connectString(), 4, ZkWorkload.DEFAULT, TIMEOUT))
                    .isInstanceOf(IOException.class).hasMessageContaining("cannot create /bench-4")
                    .hasCauseInstanceOf(KeeperException.NodeExistsException.class);
        }
    }

    private ZooKeeper open() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
        ZooKeeper zk = new ZooKeeper(connectString(), (int) TIMEOUT.toMillis(), e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, config);
        assertThat(connected.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return zk;
    }
}
