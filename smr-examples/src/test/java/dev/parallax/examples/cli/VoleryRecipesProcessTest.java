package dev.parallax.examples.cli;

import dev.parallax.core.testkit.Await;
import dev.parallax.ringpaxos.RingPaxos;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.SharedCountListener;
import org.apache.curator.framework.recipes.shared.SharedCountReader;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Apache Curator's recipes against Volery as processes (seed 004 (S-SMR) §V-B, §VI): one cluster of
 * two partitions × three {@code parallax replica} JVMs ({@link VoleryClusterFile}, as {@code parallax
 * volery} runs them) for every recipe, each recipe's clients on front ends of different replicas
 * (and partitions), so that what one client does reaches the others only through the replicated
 * tree (Curator's default settings: the recipes' parents are container nodes, persistent in Volery):
 * <ul>
 *   <li>{@link SharedCount}: version-checked increments from two front ends, each seeing the other's;</li>
 *   <li>{@link DistributedBarrier}: a client waits at a barrier set through another front end until
 *       it is removed;</li>
 *   <li>{@link CuratorCache} (persistent recursive watches): creates, changes and deletes made through
 *       another front end, in order;</li>
 *   <li>{@link InterProcessMutex} (ephemeral sequential nodes): clients on three front ends increment a
 *       counter znode under the lock with a read-modify-write whose write is version-checked (two
 *       holders at once would make one fail); the final count proves mutual exclusion;</li>
 *   <li>{@link LeaderLatch} (ephemeral sequential nodes): exactly one leader among clients on three
 *       front ends; the replica whose front end holds the leader's session is SIGKILLed; the session
 *       expires in the order, its ephemeral node disappears, and exactly one of the others leads.</li>
 * </ul>
 * The latch runs last: it kills a replica.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class VoleryRecipesProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** The latch clients' session time-out: the leader's session expires this long after its front end dies. */
    private static final int LATCH_SESSION_MS = 6_000;

    private ProcessCluster cluster;
    private final List<CuratorFramework> clients = new ArrayList<>();

    @RegisterExtension
    final TestWatcher logsOnFailure = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (cluster != null) {
                KillUnderLoadScenario.printLogTails(cluster);
            }
        }
    };

    @BeforeAll
    void startCluster(@TempDir Path dir) throws Exception {
        Properties p = VoleryClusterFile.local(2, RingPaxos.U_RING, dir.resolve("data"), 20_000);
        // Six JVMs on a loaded 2-core machine (as `parallax volery` runs them).
        p.putAll(VoleryClusterFile.sharedMachineSettings());
        cluster = new ProcessCluster(dir, VoleryClusterFile.replicas(2), p, false,
                List.of("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")).replicaArgs("--metrics-port", "0");
        cluster.startAll(WAIT);
    }

    @AfterAll
    void stopCluster() {
        clients.forEach(CuratorFramework::close);
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A started Curator client of the front ends {@code ids} (in order), connected. */
    private CuratorFramework clientWithSession(int sessionMs, int... ids) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(VoleryClusterFile.connectString(cluster.clusterFile(), ids))
                .sessionTimeoutMs(sessionMs).connectionTimeoutMs(20_000).retryPolicy(new RetryNTimes(20, 200))
                .build();
        clients.add(c);
        c.start();
        assertThat(c.blockUntilConnected((int) WAIT.toSeconds(), TimeUnit.SECONDS)).as("connected to %s", List.of(ids)).isTrue();
        return c;
    }

    private CuratorFramework client(int... ids) throws InterruptedException {
        return clientWithSession(20_000, ids);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Order(1)
    @DisplayName("SharedCount: version-checked increments through two front ends (one per partition), each client hearing the other's")
    void sharedCount() throws Exception {
        CuratorFramework a = client(0);
        CuratorFramework b = client(3);
        try (SharedCount countA = new SharedCount(a, "/recipes/count", 0);
             SharedCount countB = new SharedCount(b, "/recipes/count", 0)) {
            BlockingQueue<Integer> heardByB = new LinkedBlockingQueue<>();
            countB.addListener(new SharedCountListener() {
                @Override
                public void countHasChanged(SharedCountReader reader, int value) {
                    heardByB.add(value);
                }

                @Override
                public void stateChanged(CuratorFramework client, ConnectionState state) {
                }
            });
            countA.start();
            countB.start();
            for (int i = 0; i < 3; i++) {
                for (SharedCount c : List.of(countA, countB)) {
                    Await.until("an increment wins", WAIT, () -> tryIncrement(c));
                }
            }
            Await.until("both see 6", WAIT, () -> countA.getCount() == 6 && countB.getCount() == 6);
            var stale = countA.getVersionedValue();
            assertThat(countB.trySetCount(countB.getVersionedValue(), 7)).isTrue();
            assertThat(countA.trySetCount(stale, 100)).as("a stale version is refused").isFalse();
            Await.until("A sees B's 7", WAIT, () -> countA.getCount() == 7);
            assertThat(countA.trySetCount(countA.getVersionedValue(), 8)).isTrue();
            Await.until("B hears A's 8 through its watch", WAIT, () -> heardByB.contains(8));
            assertThat(countB.getCount()).isEqualTo(8);
        }
    }

    private static boolean tryIncrement(SharedCount c) {
        try {
            var v = c.getVersionedValue();
            return c.trySetCount(v, v.getValue() + 1);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @Order(2)
    @DisplayName("DistributedBarrier: a client waits at a barrier set through another front end until that one removes it")
    void distributedBarrier() throws Exception {
        CuratorFramework setter = client(0);
        CuratorFramework waiter = client(4);
        DistributedBarrier set = new DistributedBarrier(setter, "/recipes/barrier");
        DistributedBarrier wait = new DistributedBarrier(waiter, "/recipes/barrier");
        set.setBarrier();
        assertThat(wait.waitOnBarrier(100, TimeUnit.MILLISECONDS)).as("the barrier holds").isFalse();
        CompletableFuture<Boolean> passed = CompletableFuture.supplyAsync(() -> {
            try {
                return wait.waitOnBarrier(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        set.removeBarrier();
        assertThat(passed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("passed once removed").isTrue();
        assertThat(wait.waitOnBarrier(1, TimeUnit.SECONDS)).as("no barrier: passes at once").isTrue();
    }

    @Test
    @Order(3)
    @DisplayName("CuratorCache (persistent recursive watches): creates, changes and deletes made through another front end, in order")
    void curatorCache() throws Exception {
        CuratorFramework watcher = client(1);
        CuratorFramework writer = client(5);
        writer.create().creatingParentsIfNeeded().forPath("/recipes/cache/a", bytes("a0"));
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        try (CuratorCache cache = CuratorCache.build(watcher, "/recipes/cache")) {
            CompletableFuture<Void> initialized = new CompletableFuture<>();
            cache.listenable().addListener(CuratorCacheListener.builder()
                    .forCreates(n -> events.add("created " + n.getPath() + " " + new String(n.getData(), StandardCharsets.UTF_8)))
                    .forChanges((before, after) -> events.add("changed " + after.getPath() + " "
                            + new String(after.getData(), StandardCharsets.UTF_8)))
                    .forDeletes(n -> events.add("deleted " + n.getPath()))
                    .forInitialized(() -> initialized.complete(null))
                    .build());
            cache.start();
            initialized.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(cache.get("/recipes/cache/a")).isPresent();
            List<String> initial = drain(events, 2);
            assertThat(initial).containsExactlyInAnyOrder("created /recipes/cache ", "created /recipes/cache/a a0");

            // One change at a time: the cache reads a created or changed node's data when it hears of it.
            writer.create().forPath("/recipes/cache/b", bytes("b0"));
            assertThat(drain(events, 1)).containsExactly("created /recipes/cache/b b0");
            writer.setData().forPath("/recipes/cache/a", bytes("a1"));
            assertThat(drain(events, 1)).containsExactly("changed /recipes/cache/a a1");
            writer.setData().forPath("/recipes/cache/b", bytes("b1"));
            assertThat(drain(events, 1)).containsExactly("changed /recipes/cache/b b1");
            writer.delete().forPath("/recipes/cache/a");
            assertThat(drain(events, 1)).containsExactly("deleted /recipes/cache/a");
            Await.until("the cache holds b1 only", WAIT, () -> cache.get("/recipes/cache/a").isEmpty()
                    && cache.get("/recipes/cache/b").map(d -> new String(d.getData(), StandardCharsets.UTF_8)).orElse("")
                    .equals("b1"));
        }
    }

    private static List<String> drain(BlockingQueue<String> events, int count) throws InterruptedException {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String e = events.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(e).as("event %d of %d within %s (so far %s)", i + 1, count, WAIT, out).isNotNull();
            out.add(e);
        }
        return out;
    }

    @Test
    @Order(4)
    @DisplayName("InterProcessMutex (ephemeral sequential nodes): clients on three front ends increment a counter under the lock "
            + "with version-checked writes; the final count proves mutual exclusion")
    void interProcessMutex() throws Exception {
        int[] frontEnds = {0, 3, 2};
        int rounds = 5;
        CuratorFramework setup = client(0);
        setup.create().creatingParentsIfNeeded().forPath("/recipes/counter", bytes("0"));
        List<CuratorFramework> lockers = new ArrayList<>();
        for (int id : frontEnds) {
            lockers.add(client(id));
        }
        ExecutorService pool = Executors.newFixedThreadPool(frontEnds.length);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (CuratorFramework c : lockers) {
                done.add(pool.submit(() -> {
                    InterProcessMutex lock = new InterProcessMutex(c, "/recipes/lock");
                    for (int i = 0; i < rounds; i++) {
                        assertThat(lock.acquire(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the lock acquired").isTrue();
                        try {
                            Stat stat = new Stat();
                            int value = Integer.parseInt(new String(c.getData().storingStatIn(stat).forPath("/recipes/counter"),
                                    StandardCharsets.UTF_8));
                            // Fails with BadVersion if another holder wrote since the read.
                            c.setData().withVersion(stat.getVersion()).forPath("/recipes/counter", bytes(Integer.toString(value + 1)));
                        } finally {
                            lock.release();
                        }
                    }
                    return rounds;
                }));
            }
            for (Future<Integer> f : done) {
                assertThat(f.get(2 * WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(rounds);
            }
        } finally {
            pool.shutdownNow();
        }
        Stat stat = new Stat();
        String count = new String(setup.getData().storingStatIn(stat).forPath("/recipes/counter"), StandardCharsets.UTF_8);
        assertThat(count).isEqualTo(Integer.toString(frontEnds.length * rounds));
        assertThat(stat.getVersion()).isEqualTo(frontEnds.length * rounds);
        assertThat(setup.getChildren().forPath("/recipes/lock")).as("every lock node deleted on release").isEmpty();
    }

    @Test
    @Order(5)
    @DisplayName("LeaderLatch (ephemeral sequential nodes): one leader among clients on three front ends; its front end's replica "
            + "SIGKILLed, its session expires in the order and exactly one of the others leads")
    void leaderLatch() throws Exception {
        int[] frontEnds = {1, 4, 5};
        List<LeaderLatch> latches = new ArrayList<>();
        for (int i = 0; i < frontEnds.length; i++) {
            // One front end each, so that a session cannot move to another when its front end dies.
            LeaderLatch latch = new LeaderLatch(clientWithSession(LATCH_SESSION_MS, frontEnds[i]), "/recipes/latch", "fe-" + frontEnds[i]);
            latches.add(latch);
            latch.start();
        }
        CuratorFramework observer = client(0);
        List<String> cutOff = new ArrayList<>(); // a latch whose front end is dead: its session expired with its node
        try {
            Await.until("exactly one leader", WAIT, () -> leaders(latches).size() == 1);
            int leader = leaders(latches).get(0);
            for (LeaderLatch l : latches) {
                assertThat(l.getLeader().getId()).as("every participant names the same leader").isEqualTo("fe-" + frontEnds[leader]);
            }
            assertThat(observer.getChildren().forPath("/recipes/latch")).hasSize(frontEnds.length);

            cutOff.add("fe-" + frontEnds[leader]);
            cluster.kill(frontEnds[leader]);
            List<LeaderLatch> survivors = new ArrayList<>(latches);
            LeaderLatch old = survivors.remove(leader);
            Await.until("the dead leader's latch node gone (its session expired)", WAIT,
                    () -> childCount(observer, "/recipes/latch") == frontEnds.length - 1);
            Await.until("exactly one new leader among the others", WAIT, () -> leaders(survivors).size() == 1);
            String next = survivors.get(leaders(survivors).get(0)).getId();
            assertThat(next).isNotEqualTo(old.getId());
            for (LeaderLatch l : survivors) {
                assertThat(l.getLeader().getId()).isEqualTo(next);
            }
            assertThat(old.hasLeadership()).as("the old leader, cut off, no longer claims it").isFalse();
        } finally {
            for (LeaderLatch l : latches) {
                if (l.getState() == LeaderLatch.State.STARTED && l.getId() != null && !cutOff.contains(l.getId())) {
                    l.close(LeaderLatch.CloseMode.SILENT);
                }
            }
        }
    }

    /** The indexes of the latches that hold leadership. */
    private static List<Integer> leaders(List<LeaderLatch> latches) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < latches.size(); i++) {
            if (latches.get(i).hasLeadership()) {
                out.add(i);
            }
        }
        return out;
    }

    private static int childCount(CuratorFramework c, String path) {
        try {
            return c.getChildren().forPath(path).size();
        } catch (Exception e) {
            return -1;
        }
    }
}
