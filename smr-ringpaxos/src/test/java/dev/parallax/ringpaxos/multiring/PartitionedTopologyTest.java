package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A partitioned deployment (seed 004 (S-SMR) §IV, §VI: one ring per partition over its replicas,
 * plus a global ring over all): what each replica delivers, and where it fetches a snapshot.
 */
class PartitionedTopologyTest {
    /** Two partitions of three replicas: ring 0 = {0,1,2}, ring 1 = {3,4,5}, global = all six. */
    private static MultiRingTopology twoPartitions() {
        return MultiRingTopology.parse(Map.of("multiring.rings", "2", "multiring.ring.0.members", "0,1,2",
                "multiring.ring.1.members", "3,4,5"), 6);
    }

    @Test
    @DisplayName("a replica delivers the groups whose rings it runs: its partition's; every group when it runs every ring")
    void subscribesToItsPartition() {
        MultiRingTopology t = twoPartitions();
        for (int r = 0; r < 6; r++) {
            assertThat(MultiRingBroadcast.subscribed(r, t)).as("replica %d", r).isEqualTo(GroupSet.of(r / 3));
            assertThat(t.canSubscribe(r, MultiRingBroadcast.subscribed(r, t))).isTrue();
        }
        MultiRingTopology full = MultiRingTopology.parse(Map.of("multiring.rings", "2"), 3);
        assertThat(MultiRingBroadcast.subscribed(1, full)).isEqualTo(GroupSet.of(0, 1));
    }

    @Test
    @DisplayName("a replica running no group ring is refused with a message naming it")
    void noGroupRingIsRefused() {
        MultiRingTopology t = MultiRingTopology.parse(Map.of("multiring.rings", "2", "multiring.ring.0.members", "0,1,2",
                "multiring.ring.1.members", "0,1,2"), 4);
        assertThatThrownBy(() -> MultiRingBroadcast.subscribed(3, t)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("process 3 runs none of the group rings");
    }

    @Test
    @DisplayName("a snapshot is fetched within the partition: a global-ring peer of another partition is replaced by one of the own ring")
    void snapshotsComeFromTheOwnPartition() {
        MultiRingTopology t = twoPartitions();
        assertThat(MultiRingPlan.snapshotPeer(t, 0, 2)).as("same partition: as asked").isEqualTo(2);
        for (int peer = 3; peer < 6; peer++) {
            assertThat(MultiRingPlan.snapshotPeer(t, 0, peer)).as("peer %d of partition 1", peer).isIn(1, 2);
            assertThat(MultiRingPlan.snapshotPeer(t, 4, peer - 3)).as("peer %d of partition 0", peer - 3).isIn(3, 5);
        }
        MultiRingTopology full = MultiRingTopology.parse(Map.of("multiring.rings", "2"), 3);
        assertThat(MultiRingPlan.snapshotPeer(full, 0, 2)).isEqualTo(2);
    }
}
