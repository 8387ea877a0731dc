package dev.parallax.examples.cli;

import dev.parallax.core.testkit.Await;
import dev.parallax.examples.volery.VoleryOracle;
import dev.parallax.examples.volery.zk.ZooKeeperClients;
import dev.parallax.ringpaxos.RingPaxos;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Volery as processes (seed 004 (S-SMR) §V-B, §VI): two partitions of three
 * {@code parallax replica} JVMs ({@link VoleryClusterFile}, as {@code parallax volery} runs them),
 * the official ZooKeeper client (front ends of replicas 0 and 1, partition 0) and Apache Curator
 * (front ends 3 and 5, partition 1) in a scripted session: create with parents, sequential
 * creates, getData/setData with versions, getChildren, versioned delete, delete with children.
 * Midway replica 4 (partition 1; no client's front end, and no front end's first replica of
 * partition 1) is killed with SIGKILL: its partition's ring and the global ring go on with the
 * two others; the session goes on; later it restarts from its data directory and catches up, and
 * each partition's replicas end with equal digests ({@code parallax_volery_digest} on their
 * metrics endpoints; equal within a partition, not across). Then {@code parallax zkcli} reads a
 * znode in a separate JVM.
 *
 * <p>The clients keep their front ends, so their sessions never move; should one expire all the
 * same (a front end stalled past the session timeout), {@link Session} opens a new one and retries
 * the operation, since sessions are per front end today.
 */
class VoleryProcessTest {
    private static final int VICTIM = 4;
    private static final Duration START = Duration.ofSeconds(60);
    private static final long WAIT_SECONDS = 60;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** An operation of the official client. */
    @FunctionalInterface
    private interface ZkCall<T> {
        T call(ZooKeeper zk) throws Exception;
    }

    /**
     * The official client's session on {@code connect}: an operation is retried on a connection loss
     * (the client reconnects by itself, to another listed server if its own is gone) and, on an
     * expired session, on a new session. Owned by the test thread.
     */
    private static final class Session implements AutoCloseable {
        private final String connect;
        private ZooKeeper zk;
        int expired;

        Session(String connect) throws Exception {
            this.connect = connect;
            this.zk = open();
        }

        private ZooKeeper open() throws Exception {
            return ZooKeeperClients.connect(connect, 20_000, Duration.ofSeconds(WAIT_SECONDS));
        }

        <T> T run(ZkCall<T> op) throws Exception {
            return Await.success(Duration.ofSeconds(WAIT_SECONDS), () -> {
                while (true) {
                    try {
                        return op.call(zk);
                    } catch (KeeperException.SessionExpiredException e) {
                        expired++;
                        zk.close();
                        zk = open();
                    }
                }
            }, e -> e instanceof KeeperException.ConnectionLossException, () -> "the call to get through");
        }

        @Override
        public void close() throws InterruptedException {
            zk.close();
        }
    }

    /** A path {@code /app/<prefix><i>} owned by partition {@code p} (CRC32(path) mod 2). */
    private static String ownedBy(int p, String prefix) {
        return IntStream.range(0, 1000).mapToObj(i -> "/app/" + prefix + i)
                .filter(path -> VoleryOracle.partitionOf(path, 2) == p).findFirst().orElseThrow();
    }

    /**
     * Stress profile only (CI budget): the default run drives Volery processes with ZooKeeper's
     * client under a SIGKILL, a wiped replica and its replacement in {@code VoleryMembershipProcessTest},
     * and Curator's recipes against the ZooKeeper front end in-process ({@code ZkServerCuratorTest}).
     */
    @Test
    @dev.parallax.core.testkit.StressOnly
    @DisplayName("seed 004 §V-B: 2 partitions as processes; ZooKeeper's client and Curator run a scripted session while a "
            + "replica is SIGKILLed and restarted (watches set before the kill fire after it); each partition converges; "
            + "zkcli reads the tree")
    void scriptedSessionsSurviveAKilledReplica(@TempDir Path dir) throws Exception {
        Properties p = VoleryClusterFile.local(2, RingPaxos.U_RING, dir.resolve("data"), 20_000);
        // Six JVMs on a loaded 2-core machine (as `parallax volery` runs them).
        p.putAll(VoleryClusterFile.sharedMachineSettings());
        try (ProcessCluster cluster = new ProcessCluster(dir, VoleryClusterFile.replicas(2), p, false,
                List.of("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")).replicaArgs("--metrics-port", "0")) {
            cluster.startAll(START);
            ClusterFile file = cluster.clusterFile();
            // Nodes of both partitions: setData goes to the owner only (a local command, seed 004 §IV).
            List<String> nodes = List.of(ownedBy(0, "n"), ownedBy(1, "n"), ownedBy(0, "m"), ownedBy(1, "m"));
            try (Session zk = new Session(VoleryClusterFile.connectString(file, 0, 1));
                 CuratorFramework curator = CuratorFrameworkFactory.newClient(VoleryClusterFile.connectString(file, 3, 5),
                         20_000, 20_000, new RetryNTimes(20, 200))) {
                curator.start();
                assertThat(curator.blockUntilConnected((int) WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

                // Before the kill: create with parents, sequential creates, plain creates.
                curator.create().creatingParentsIfNeeded().forPath("/app/cfg/a", bytes("A"));
                Stat cfg = zk.run(z -> z.exists("/app/cfg", false));
                assertThat(cfg).isNotNull();
                assertThat(text(zk.run(z -> z.getData("/app/cfg/a", false, null)))).isEqualTo("A");
                String q1 = zk.run(z -> z.create("/app/q-", bytes("1"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));
                String q2 = curator.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath("/app/q-", bytes("2"));
                assertThat(q1).matches("/app/q-\\d{10}");
                assertThat(Long.parseLong(q2.substring(7))).isEqualTo(Long.parseLong(q1.substring(7)) + 1);
                for (String n : nodes) {
                    zk.run(z -> z.create(n, bytes("v"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
                }

                // One-shot watches (held by each node's partition, polled by Curator's front end) set
                // before the kill fire on the writes made after it.
                java.util.concurrent.CountDownLatch fired = new java.util.concurrent.CountDownLatch(2);
                List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
                for (String n : nodes.subList(0, 2)) {
                    curator.getData().usingWatcher((org.apache.curator.framework.api.CuratorWatcher) e -> {
                        events.add(e.getType() + " " + e.getPath());
                        fired.countDown();
                    }).forPath(n);
                }

                cluster.kill(VICTIM);
                assertThat(cluster.isAlive(VICTIM)).isFalse();

                // Replica 4 is gone: partition 1's ring and the global ring go on with the others.
                for (String n : nodes) {
                    Stat s = zk.run(z -> z.setData(n, bytes("w" + n), 0));
                    assertThat(s.getVersion()).isEqualTo(1);
                }
                String n0 = nodes.get(0);
                String n1 = nodes.get(1);
                assertThat(fired.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("watch events: %s", events).isTrue();
                assertThat(events).containsExactlyInAnyOrder("NodeDataChanged " + n0, "NodeDataChanged " + n1);
                assertThatThrownBy(() -> zk.run(z -> z.setData(n0, bytes("x"), 0))).isInstanceOf(KeeperException.BadVersionException.class);
                assertThat(curator.setData().withVersion(1).forPath(n1, bytes("c1")).getVersion()).isEqualTo(2);
                assertThat(text(zk.run(z -> z.getData(n1, false, null)))).isEqualTo("c1");
                Stat stat = new Stat();
                assertThat(text(curator.getData().storingStatIn(stat).forPath(n0))).isEqualTo("w" + n0);
                assertThat(stat.getVersion()).isEqualTo(1);
                List<String> children = new ArrayList<>(List.of("cfg", q1.substring(5), q2.substring(5)));
                nodes.forEach(n -> children.add(n.substring(5)));
                assertThat(curator.getChildren().forPath("/app")).containsExactlyInAnyOrderElementsOf(children);
                // Versioned delete: the owner's version decides at every partition.
                String gone = nodes.get(3);
                assertThatThrownBy(() -> zk.run(z -> {
                    z.delete(gone, 0);
                    return null;
                })).isInstanceOf(KeeperException.BadVersionException.class);
                zk.run(z -> {
                    z.delete(gone, 1);
                    return null;
                });
                children.remove(gone.substring(5));
                curator.delete().deletingChildrenIfNeeded().forPath("/app/cfg");
                children.remove("cfg");
                Stat deleted = zk.run(z -> z.exists("/app/cfg", false));
                assertThat(deleted).isNull();

                // Replica 4 restarts from its data directory and catches up while the session goes on.
                cluster.start(VICTIM, START);
                zk.run(z -> z.setData(nodes.get(1), bytes("after"), -1));
                curator.create().forPath("/app/after", bytes("z"));
                children.add("after");
                List<String> listed = zk.run(z -> z.getChildren("/app", false));
                assertThat(listed).containsExactlyInAnyOrderElementsOf(children);
                assertThat(text(curator.getData().forPath(nodes.get(1)))).isEqualTo("after");
                assertThat(zk.expired).as("sessions expired and reopened").isZero();
            }
            PartitionConvergence.Outcome converged = PartitionConvergence.await(cluster, Duration.ofSeconds(WAIT_SECONDS));
            assertThat(converged.converged()).as(converged.describe()).isTrue();

            // zkCli of `parallax zkcli`, in a JVM of its own, against every front end.
            String out = zkCli(dir, VoleryClusterFile.connectString(file), "get", nodes.get(1));
            assertThat(out).contains("after");
        }
    }

    /** Runs {@code parallax zkcli -server connect args...} as a process and returns its output. */
    private static String zkCli(Path dir, String connect, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                ParallaxCli.class.getName(), "zkcli", "-server", connect));
        cmd.addAll(List.of(args));
        Path log = dir.resolve("zkcli.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("zkcli did not finish: " + Files.readString(log));
        }
        String out = Files.readString(log);
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
