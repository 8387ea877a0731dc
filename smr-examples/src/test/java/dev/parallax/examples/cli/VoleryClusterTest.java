package dev.parallax.examples.cli;

import dev.parallax.examples.process.ClusterSecretFile;
import dev.parallax.core.GroupSet;
import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandRejectedException;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.Await;
import dev.parallax.examples.volery.Create;
import dev.parallax.examples.volery.VoleryOracle;
import dev.parallax.examples.volery.VoleryPartition;
import dev.parallax.examples.volery.ZkReply;
import dev.parallax.examples.volery.zk.ZooKeeperClients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Volery end to end in one JVM (seed 004 (S-SMR) §V-B): P partitions × 3 replicas assembled from a
 * cluster file as {@code parallax replica} assembles them ({@link VoleryService}), each with its
 * ZooKeeper-protocol front end, driven by the official ZooKeeper client: the znode API answers as
 * ZooKeeper does across partitions (creates and deletes at every partition, the rest at the
 * owner; a versioned delete reads the owner's version), and replicas of a partition end with
 * equal digests.
 */
@SuppressWarnings("try") // ZooKeeper.close() declares InterruptedException
class VoleryClusterTest {
    private static final long WAIT_SECONDS = 60;

    /** A running Volery cluster: its replicas, their partitions' state, their front ends. */
    private static final class Cluster implements AutoCloseable {
        final ClusterFile file;
        final List<Replica> replicas = new ArrayList<>();
        final List<VoleryPartition> state = new ArrayList<>();
        final List<VoleryService.FrontEnd> frontEnds = new ArrayList<>();

        Cluster(int partitions, Path dir) throws Exception {
            int n = InProcessClusterFiles.REPLICAS_PER_PARTITION * partitions;
            Properties p = InProcessClusterFiles.ssmr(partitions, dir);
            p.setProperty("zookeeper", LocalPorts.endpoints(n));
            p.setProperty("service", "volery");
            p.putAll(ClusterSecretFile.write(dir.resolve("cluster.secret"))); // sessions move between front ends
            file = ClusterFile.of(p);
            try {
                for (int id = 0; id < n; id++) {
                    VoleryPartition v = new VoleryPartition();
                    Replica r = VoleryService.replica(file, id, v).meterRegistry(new SimpleMeterRegistry()).bootstrap(true).build();
                    state.add(v);
                    replicas.add(r);
                }
                for (Replica r : replicas) {
                    r.start();
                }
                for (int id = 0; id < n; id++) {
                    frontEnds.add(VoleryService.frontEnd(file, id, new SimpleMeterRegistry()));
                }
            } catch (Exception | Error e) {
                close();
                throw e;
            }
        }

        ZooKeeper connect(int... ids) throws Exception {
            StringBuilder s = new StringBuilder();
            for (int id : ids) {
                s.append(s.length() == 0 ? "" : ",").append("127.0.0.1:").append(frontEnds.get(id).port());
            }
            return ZooKeeperClients.connect(s.toString(), 20_000, Duration.ofSeconds(WAIT_SECONDS));
        }

        /** Waits until the replicas of every partition hold equal digests. */
        void awaitPartitionsConverged() throws InterruptedException {
            InProcessClusterFiles.awaitPartitionsConverged(state, VoleryPartition::digest, WAIT_SECONDS);
        }

        @Override
        public void close() {
            frontEnds.forEach(VoleryService.FrontEnd::close);
            replicas.forEach(Replica::close);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void scriptedSession(Cluster c, int partitions) throws Exception {
        try (ZooKeeper zk = c.connect(0)) {
            zk.create("/app", bytes("root"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            for (int i = 0; i < 8; i++) {
                zk.create("/app/n" + i, bytes("v" + i), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }
            String seq = zk.create("/app/q-", bytes("s"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
            assertThat(seq).isEqualTo("/app/q-0000000008");
            assertThat(zk.getChildren("/app", false)).hasSize(9).contains("n0", "n7", "q-0000000008");
            Stat stat = zk.setData("/app/n3", bytes("w3"), 0);
            assertThat(stat.getVersion()).isEqualTo(1);
            assertThat(new String(zk.getData("/app/n3", false, new Stat()), StandardCharsets.UTF_8)).isEqualTo("w3");
            assertThatThrownBy(() -> zk.setData("/app/n3", bytes("x"), 0)).isInstanceOf(KeeperException.BadVersionException.class);
            // A versioned delete: the owner's version decides at every partition (seed 004 §IV, a remote read).
            assertThatThrownBy(() -> zk.delete("/app/n3", 0)).isInstanceOf(KeeperException.BadVersionException.class);
            zk.delete("/app/n3", 1);
            assertThat(zk.exists("/app/n3", false)).isNull();
            assertThatThrownBy(() -> zk.delete("/app", -1)).isInstanceOf(KeeperException.NotEmptyException.class);
            assertThatThrownBy(() -> zk.create("/app/n1", bytes("again"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT))
                    .isInstanceOf(KeeperException.NodeExistsException.class);
            assertThatThrownBy(() -> zk.getData("/missing", false, null)).isInstanceOf(KeeperException.NoNodeException.class);
        }
        // Another front end (another partition's replica when there are several) sees the same tree.
        try (ZooKeeper zk = c.connect(c.replicas.size() - 1)) {
            assertThat(zk.getChildren("/app", false)).hasSize(8).doesNotContain("n3");
            assertThat(new String(zk.getData("/app/n5", false, null), StandardCharsets.UTF_8)).isEqualTo("v5");
        }
        c.awaitPartitionsConverged();
        double served = 0;
        for (Replica r : c.replicas) {
            var k = r.meterRegistry().find("parallax.queries").tag("outcome", "served").counter();
            served += k == null ? 0 : k.count();
        }
        assertThat(served).as("reads without a watch answered by the path's owner as queries (read-index over the "
                + "merge), each seeing the writes before it").isPositive();
    }

    @Test
    @DisplayName("seed 004 §V-B: one partition (3 replicas): the official ZooKeeper client's scripted session; a session "
            + "outlives its front end (the cluster's front ends share the session secret)")
    void onePartition(@TempDir Path dir) throws Exception {
        try (Cluster c = new Cluster(1, dir)) {
            scriptedSession(c, 1);
            try (ZooKeeper zk = c.connect(0, 1)) {
                long session = zk.getSessionId();
                zk.create("/failover", bytes("a"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                Events watch = new Events();
                zk.getData("/failover", watch, null); // re-armed at the next front end by setWatches
                c.frontEnds.get(0).close(); // the client's server goes away; replica 0 keeps running
                c.frontEnds.get(1).close();
                c.frontEnds.set(1, VoleryService.frontEnd(c.file, 1, new SimpleMeterRegistry()));
                Stat stat = Await.success(Duration.ofSeconds(WAIT_SECONDS), () -> zk.setData("/failover", bytes("b"), 0),
                        e -> e instanceof KeeperException.ConnectionLossException, () -> "setData through another front end");
                assertThat(stat.getVersion()).isEqualTo(1);
                assertThat(zk.getSessionId()).as("the same session, adopted by another front end").isEqualTo(session);
                assertThat(watch.next()).as("the watch moved with the session").isEqualTo("NodeDataChanged /failover");
            }
        }
    }

    @Test
    @DisplayName("seed 004 §V-B: two partitions (2 × 3 replicas, a ring each and the global ring over all six): the scripted "
            + "session across partitions; a client whose oracle names too few partitions gets WrongPartitions and retries wider")
    void twoPartitions(@TempDir Path dir) throws Exception {
        try (Cluster c = new Cluster(2, dir)) {
            scriptedSession(c, 2);
            // An under-approximating oracle: a create sent to its owner only fails alike on
            // every replica of the owner, and the invoker re-sends it to every partition.
            List<SmrClient> clients = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                clients.add(SmrClient.connect(ClientConfig.builder(PartitionedReplicas.partitionClients(c.file, p)).build()));
            }
            VoleryOracle owner = new VoleryOracle(2);
            try (PartitionedInvoker narrow = new PartitionedInvoker(clients,
                    command -> GroupSet.of(owner.partitionOf("/narrow")), PartitionedInvoker.DEFAULT_MAX_RETRIES)) {
                byte[] create = new Create("/narrow", bytes("n"), dev.parallax.examples.volery.CreateMode.PERSISTENT)
                        .encode();
                ZkReply reply = ZkReply.decode(narrow.invoke(ByteBuffer.wrap(create)).get(WAIT_SECONDS, TimeUnit.SECONDS));
                assertThat(reply.path()).isEqualTo("/narrow");
                PartitionedInvoker once = new PartitionedInvoker(clients, command -> GroupSet.of(owner.partitionOf("/narrow2")), 0);
                byte[] again = new Create("/narrow2", bytes("n"), dev.parallax.examples.volery.CreateMode.PERSISTENT)
                        .encode();
                assertThatThrownBy(() -> once.invoke(ByteBuffer.wrap(again)).get(WAIT_SECONDS, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(CommandRejectedException.class).hasMessageContaining("WrongPartitions");
            }
            try (ZooKeeper zk = c.connect(3)) {
                assertThat(zk.exists("/narrow", false)).isNotNull();
                assertThat(zk.exists("/narrow2", false)).as("refused: nothing of it executed").isNull();
            }
            watchesAcrossPartitions(c);
            c.awaitPartitionsConverged();
        }
    }

    /** Queues the watch events it hears. */
    private static final class Events implements org.apache.zookeeper.Watcher {
        final java.util.concurrent.BlockingQueue<String> events = new java.util.concurrent.LinkedBlockingQueue<>();

        @Override
        public void process(org.apache.zookeeper.WatchedEvent e) {
            if (e.getType() != Event.EventType.None) {
                events.add(e.getType() + " " + e.getPath());
            }
        }

        String next() throws InterruptedException {
            String e = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(e).as("a watch event within %d s", WAIT_SECONDS).isNotNull();
            return e;
        }
    }

    /**
     * Watches set through one front end fire on changes made through another, whichever partition owns
     * the znode: the owner holds the watch, and the watcher's front end polls it.
     */
    private static void watchesAcrossPartitions(Cluster c) throws Exception {
        try (ZooKeeper watcher = c.connect(0); ZooKeeper writer = c.connect(c.replicas.size() - 1)) {
            VoleryOracle oracle = new VoleryOracle(2);
            for (int i = 0; i < 2; i++) {
                String owned = firstOwnedBy(oracle, i);
                Events data = new Events();
                watcher.getData(owned, data, null);
                writer.setData(owned, bytes("changed"), -1);
                assertThat(data.next()).as("a znode of partition %d", i).isEqualTo("NodeDataChanged " + owned);
            }
            Events children = new Events();
            Events created = new Events();
            watcher.getChildren("/app", children);
            assertThat(watcher.exists("/app/late", created)).isNull();
            writer.create("/app/late", bytes("l"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertThat(children.next()).isEqualTo("NodeChildrenChanged /app");
            assertThat(created.next()).isEqualTo("NodeCreated /app/late");

            // A persistent recursive watch: held by both partitions, fired by the owner of each change.
            Events subtree = new Events();
            watcher.addWatch("/app", subtree, org.apache.zookeeper.AddWatchMode.PERSISTENT_RECURSIVE);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                String owned = firstOwnedBy(oracle, i);
                writer.setData(owned, bytes("again"), -1);
                expected.add("NodeDataChanged " + owned);
            }
            writer.delete("/app/late", -1);
            expected.add("NodeDeleted /app/late");
            List<String> heard = new ArrayList<>();
            for (int i = 0; i < expected.size(); i++) {
                heard.add(subtree.next());
            }
            assertThat(heard).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private static String firstOwnedBy(VoleryOracle oracle, int partition) {
        for (int i = 0; i < 8; i++) {
            if (i != 3 && oracle.partitionOf("/app/n" + i) == partition) {
                return "/app/n" + i;
            }
        }
        throw new AssertionError("no /app/n* znode owned by partition " + partition);
    }
}
