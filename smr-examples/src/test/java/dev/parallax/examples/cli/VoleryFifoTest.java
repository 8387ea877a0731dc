package dev.parallax.examples.cli;

import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.Await;
import dev.parallax.examples.volery.VoleryOracle;
import dev.parallax.examples.volery.VoleryPartition;
import dev.parallax.examples.volery.zk.ZooKeeperClients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ZooKeeper's FIFO order of a session's requests over a real S-SMR Volery (seed 004 (S-SMR) §V-B; two
 * partitions × 3 replicas in this JVM, a ring each and the global ring over all six, as
 * {@code parallax replica} assembles them): the official client pipelines asynchronous requests whose
 * destination sets differ, so they travel different rings, and each reply shows whether the request
 * executed after the one sent before it.
 * <ul>
 *   <li>create (every partition, the global ring), then setData of the new node (its owner's ring):
 *       executed in the other order, the setData answers NONODE;</li>
 *   <li>setData with version 0 (the owner's ring), then delete with version 1 (every partition):
 *       executed in the other order, the delete answers BADVERSION.</li>
 * </ul>
 * The nodes belong to both partitions, so the setData travel both partitions' rings.
 * The session's front end ({@code ReadWriteGate} in its lane) holds a request whose destination set
 * differs from that of the session's requests in flight until those are answered.
 */
@SuppressWarnings("try") // ZooKeeper.close() declares InterruptedException
class VoleryFifoTest {
    private static final int PARTITIONS = 2;
    private static final int ROUNDS = 40;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The {@code i}th path {@code /fifo/<prefix>N} owned by partition {@code p}. */
    private static List<String> ownedBy(int p, String prefix, int count) {
        return IntStream.range(0, 100 * count).mapToObj(i -> "/fifo/" + prefix + i)
                .filter(path -> VoleryOracle.partitionOf(path, PARTITIONS) == p).limit(count).toList();
    }

    @Test
    @DisplayName("seed 004 §V-B: a session's pipelined requests to different partition sets execute in the order sent "
            + "(create then setData, setData then versioned delete), through the official ZooKeeper client")
    void pipelinedRequestsToDifferentPartitionSetsExecuteInOrder(@TempDir Path dir) throws Exception {
        int n = InProcessClusterFiles.REPLICAS_PER_PARTITION * PARTITIONS;
        Properties p = InProcessClusterFiles.ssmr(PARTITIONS, dir);
        p.setProperty("zookeeper", LocalPorts.endpoints(n));
        p.setProperty("service", "volery");
        ClusterFile file = ClusterFile.of(p);
        List<Replica> replicas = new ArrayList<>();
        List<VoleryService.FrontEnd> frontEnds = new ArrayList<>();
        try {
            for (int id = 0; id < n; id++) {
                replicas.add(VoleryService.replica(file, id, new VoleryPartition()).meterRegistry(new SimpleMeterRegistry())
                        .bootstrap(true).build());
            }
            for (Replica r : replicas) {
                r.start();
            }
            frontEnds.add(VoleryService.frontEnd(file, 0, new SimpleMeterRegistry()));
            try (ZooKeeper zk = ZooKeeperClients.connect("127.0.0.1:" + frontEnds.get(0).port(), 20_000, WAIT)) {
                zk.create("/fifo", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                List<String> created = new ArrayList<>();
                created.addAll(ownedBy(0, "c", ROUNDS / 2));
                created.addAll(ownedBy(1, "c", ROUNDS / 2));
                List<String> deleted = new ArrayList<>();
                deleted.addAll(ownedBy(0, "d", ROUNDS / 2));
                deleted.addAll(ownedBy(1, "d", ROUNDS / 2));
                for (String path : deleted) {
                    zk.create(path, bytes("d"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                }

                Queue<String> outOfOrder = new ConcurrentLinkedQueue<>();
                AtomicInteger answered = new AtomicInteger();
                AsyncCallback.StatCallback setDone = (rc, path, ctx, stat) -> {
                    if (rc != KeeperException.Code.OK.intValue()) {
                        outOfOrder.add(ctx + " " + path + ": " + KeeperException.Code.get(rc));
                    }
                    answered.incrementAndGet();
                };
                AsyncCallback.StringCallback createDone = (rc, path, ctx, name) -> {
                    if (rc != KeeperException.Code.OK.intValue()) {
                        outOfOrder.add(ctx + " " + path + ": " + KeeperException.Code.get(rc));
                    }
                    answered.incrementAndGet();
                };
                AsyncCallback.VoidCallback deleteDone = (rc, path, ctx) -> {
                    if (rc != KeeperException.Code.OK.intValue()) {
                        outOfOrder.add(ctx + " " + path + ": " + KeeperException.Code.get(rc));
                    }
                    answered.incrementAndGet();
                };
                // All pipelined: nothing waits for a reply before the next request is sent.
                for (int i = 0; i < ROUNDS; i++) {
                    String c = created.get(i);
                    zk.create(c, bytes("c"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, createDone, "create");
                    zk.setData(c, bytes("after create"), -1, setDone, "setData after its create");
                    String d = deleted.get(i);
                    zk.setData(d, bytes("before delete"), 0, setDone, "setData before its delete");
                    zk.delete(d, 1, deleteDone, "versioned delete after its setData");
                }
                Await.until(WAIT, () -> answered.get() == 4 * ROUNDS, () -> "every pipelined request answered");
                assertThat(outOfOrder).as("requests that executed before one the session sent earlier").isEmpty();
                for (String c : created) {
                    assertThat(new String(zk.getData(c, false, null), StandardCharsets.UTF_8)).isEqualTo("after create");
                }
                for (String d : deleted) {
                    assertThat(zk.exists(d, false)).as(d).isNull();
                }
            }
        } finally {
            frontEnds.forEach(VoleryService.FrontEnd::close);
            replicas.forEach(Replica::close);
        }
    }
}
