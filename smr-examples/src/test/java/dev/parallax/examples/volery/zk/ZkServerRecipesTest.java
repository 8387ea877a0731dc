package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Curator's recipes that need ephemeral nodes against one front end in-process (the same recipes
 * run against Volery's processes in {@code VoleryRecipesProcessTest}).
 */
class ZkServerRecipesTest {
    private ZkServer server;
    private final List<CuratorFramework> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(2), new LocalVoleryBackend());
        server.start();
    }

    @AfterEach
    void stop() {
        clients.forEach(CuratorFramework::close);
        server.close();
    }

    private CuratorFramework client() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.newClient("127.0.0.1:" + server.port(), 10_000, 10_000,
                new RetryNTimes(3, 100));
        c.start();
        assertThat(c.blockUntilConnected((int) ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        clients.add(c);
        return c;
    }

    @Test
    @DisplayName("InterProcessMutex: three clients increment a counter under the lock; no update is lost or refused")
    void interProcessMutexExcludes() throws Exception {
        CuratorFramework setup = client();
        setup.create().forPath("/counter", "0".getBytes());
        int perClient = 15;
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                CuratorFramework c = client();
                InterProcessMutex lock = new InterProcessMutex(c, "/locks/counter");
                runs.add(pool.submit(() -> {
                    for (int k = 0; k < perClient; k++) {
                        assertThat(lock.acquire(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                        try {
                            Stat stat = new Stat();
                            int value = Integer.parseInt(new String(c.getData().storingStatIn(stat).forPath("/counter")));
                            // a version-checked write: two holders at once would make one of them fail
                            c.setData().withVersion(stat.getVersion()).forPath("/counter",
                                    Integer.toString(value + 1).getBytes());
                        } finally {
                            lock.release();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : runs) {
                f.get(ZkTesting.WAIT_SECONDS * 2, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(new String(setup.getData().forPath("/counter"))).isEqualTo(Integer.toString(3 * perClient));
        assertThat(setup.getChildren().forPath("/locks/counter")).isEmpty();
    }

    @Test
    @DisplayName("LeaderLatch: exactly one leader; when its session ends another takes over")
    void leaderLatchElectsOneAndFailsOver() throws Exception {
        List<LeaderLatch> latches = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LeaderLatch latch = new LeaderLatch(client(), "/election", "c" + i);
            latch.start();
            latches.add(latch);
        }
        ZkTesting.await("one leader", () -> latches.stream().filter(LeaderLatch::hasLeadership).count() == 1);
        LeaderLatch leader = latches.stream().filter(LeaderLatch::hasLeadership).findFirst().orElseThrow();
        int index = latches.indexOf(leader);
        clients.get(index).close(); // its session closes: its latch node goes with it
        latches.remove(index);
        ZkTesting.await("a new leader", () -> latches.stream().filter(LeaderLatch::hasLeadership).count() == 1);
        for (LeaderLatch l : latches) {
            l.close();
        }
    }
}
