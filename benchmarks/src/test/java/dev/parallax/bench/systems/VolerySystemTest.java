package dev.parallax.bench.systems;

import dev.parallax.bench.systems.zookeeper.ZkWorkload;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.ringpaxos.multiring.MultiRingKeys;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link VolerySystem}'s cluster and settings (nothing is started): seed 004 (S-SMR / Eyrie / Volery) §V-B, §VI. */
class VolerySystemTest {

    @Test
    @DisplayName("seed 004 §VI: volery-P writes a cluster file of 3P members, service=volery, execution=s-smr, multi-ring over "
            + "P U-Ring rings, partition p = replicas 3p..3p+2, a ZooKeeper front end per replica, data under the work dir")
    void theClusterFileDescribesPPartitionsOfThreeReplicas(@TempDir Path dir) throws Exception {
        // P = 1 and 3: odd member counts, which every ring accepts today; 2 and 4 (6 and 12 members) need Ring Paxos
        // with even member counts (branch even-rings), checked key by key below.
        for (int p : new int[] {1, 3}) {
            Path work = dir.resolve("p" + p);
            ReplicaCluster cluster = new VolerySystem(p).cluster(work);
            for (ClusterConfig file : List.of(cluster.config(), ClusterConfig.load(cluster.configFile()))) {
                assertThat(file.settings().raw("service")).contains("volery");
                assertThat(file.settings().raw("execution")).contains("s-smr");
                assertThat(file.ordering().name()).isEqualTo("multi-ring");
                assertThat(file.members().size()).isEqualTo(3 * p);
                assertThat(MultiRingKeys.partitions(file.settings(), 3 * p)).isEqualTo(p);
                List<int[]> partitions = MultiRingKeys.partitionMembers(file.settings(), 3 * p);
                for (int q = 0; q < p; q++) {
                    assertThat(partitions.get(q)).containsExactly(3 * q, 3 * q + 1, 3 * q + 2);
                }
                assertThat(cluster.partitionMembers()).hasSize(p);
                ClusterMembers zk = cluster.endpoints("zookeeper").orElseThrow();
                assertThat(zk.size()).isEqualTo(3 * p);
                Set<Integer> ports = new HashSet<>();
                for (Member m : zk.members()) {
                    assertThat(m.host()).isEqualTo("127.0.0.1");
                    ports.add(m.port());
                }
                assertThat(ports).as("one free port per front end").hasSize(3 * p);
                assertThat(file.replica(3 * p - 1).dataDirectory()).get().asString().startsWith(work.resolve("data").toString());
            }
            assertThat(java.nio.file.Files.readString(cluster.configFile())).contains("multiring.kind=u-ring")
                    .contains("service=volery").contains("log.sync=none").contains("ring.batch.bytes=8000");
            cluster.close();
        }
    }

    @Test
    @DisplayName("volery-2 and volery-4 write the same keys over 6 and 12 members")
    void theEvenClustersWriteTheSameKeys() {
        for (int p : new int[] {2, 4}) {
            ParallaxSpec spec = new VolerySystem(p).spec();
            assertThat(spec.keys()).containsEntry("service", "volery").containsEntry("execution", "s-smr")
                    .containsEntry("ordering", "multi-ring").containsEntry("multiring.rings", Integer.toString(p))
                    .containsEntry("multiring.kind", "u-ring").containsEntry("log.sync", "none");
            assertThat(spec.replicas()).isEqualTo(3 * p);
            assertThat(spec.durable()).as("data under the run's data.dir").isTrue();
            assertThat(ClusterMembers.parse(spec.settings().get("zookeeper")).size()).isEqualTo(3 * p);
        }
    }

    @Test
    @DisplayName("connection k goes to partition k mod P, so consecutive connections spread over the partitions and then over "
            + "every front end")
    void connectionsSpreadOverPartitionsThenReplicas() {
        List<int[]> two = List.of(new int[] {0, 1, 2}, new int[] {3, 4, 5});
        List<Integer> order = new java.util.ArrayList<>();
        for (int k = 0; k < 8; k++) {
            order.add(VolerySystem.frontEndOf(k, two));
        }
        assertThat(order).containsExactly(0, 3, 1, 4, 2, 5, 0, 3);
        List<int[]> one = List.of(new int[] {0, 1, 2});
        assertThat(VolerySystem.frontEndOf(4, one)).isEqualTo(1);
    }

    @Test
    void namesSettingsAndHeapFollowPartitionsAndWorkload() {
        VolerySystem v2 = new VolerySystem(2);
        assertThat(v2.name()).isEqualTo("volery-2");
        assertThat(v2.replicas()).isEqualTo(6);
        assertThat(v2.workload()).isEqualTo(ZkWorkload.DEFAULT);
        assertThat(v2.workload(ZkWorkload.globalPercent(10)).name()).isEqualTo("volery-2-g10");
        assertThat(v2.settings()).containsEntry("partitions", "2").containsEntry("service", "volery")
                .containsKey("front ends").containsEntry("execution", "s-smr")
                .containsEntry("ordering", "multi-ring").containsEntry("multiring.rings", "2")
                .containsEntry("multiring.kind", "u-ring").containsEntry("log.sync", "none")
                .containsEntry("ring.eager.below", "1").containsKey("client placement");
        assertThat(v2.settings().get("workload")).startsWith("10 % global");
        assertThat(new VolerySystem(1).heapMiB()).isEqualTo(2048);
        assertThat(new VolerySystem(2).heapMiB()).isEqualTo(1024);
        assertThat(new VolerySystem(4).heapMiB()).isEqualTo(512);
        assertThat(new VolerySystem(4).settings().get("jvm")).contains("-Xms512m", "-Xmx512m");
        assertThat(new VolerySystem(1).settings().get("jvm")).contains("-Xmx2g");
        assertThatThrownBy(() -> new VolerySystem(0)).hasMessageContaining("partitions must be 1..21");
    }
}
