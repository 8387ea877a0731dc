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

    @Test
    @DisplayName("joiners: a partition's declared replicas run its ring and the global ring and deliver its group; "
            + "bad declarations are refused naming the key; without partitions every id from n up to ring.member.ids joins")
    void joinersRunTheirPartitionsRing() {
        MultiRingTopology t = MultiRingTopology.parse(Map.of("multiring.rings", "2", "multiring.ring.0.members", "0,1,2",
                "multiring.ring.1.members", "3,4,5", "multiring.ring.1.joiners", "7,6"), 6);
        assertThat(t.joiners(1)).containsExactly(6, 7);
        assertThat(t.joiners(0)).isEmpty();
        assertThat(t.joiners(MultiRingTopology.GLOBAL)).as("the global ring takes every partition's").containsExactly(6, 7);
        assertThat(t.members(1)).as("the ring's size stays its file members'").containsExactly(3, 4, 5);
        assertThat(t.runs(6, 1)).isTrue();
        assertThat(t.runs(6, 0)).isFalse();
        assertThat(MultiRingBroadcast.subscribed(6, t)).isEqualTo(GroupSet.of(1));
        assertThat(MultiRingPlan.snapshotPeer(t, 6, 0)).as("a snapshot from its own partition").isIn(3, 4, 5);
        assertThatThrownBy(() -> MultiRingTopology.parse(Map.of("multiring.rings", "2", "multiring.ring.1.joiners", "4"), 6))
                .hasMessageContaining("multiring.ring.1.joiners: 4 is not an id a replica may join under: 6..31");
        assertThatThrownBy(() -> MultiRingTopology.parse(Map.of("multiring.rings", "2", "multiring.ring.1.joiners", "6,6"), 6))
                .hasMessageContaining("named twice");

        dev.parallax.ringpaxos.RingConfig template = dev.parallax.ringpaxos.RingConfig.builder(6,
                dev.parallax.ringpaxos.Ring.Kind.U_RING).memberIds(8).build();
        MultiRingTopology declared = MultiRingTopology.parse(Map.of("multiring.rings", "2", "multiring.ring.0.members", "0,1,2",
                "multiring.ring.1.members", "3,4,5", "multiring.ring.0.joiners", "6"), 6);
        MultiRingConfig partitioned = MultiRingConfig.builder(6).ringSettings(template).partitioned(true).topology(declared).build();
        assertThat(partitioned.topology().joiners(0)).containsExactly(6);
        assertThatThrownBy(() -> MultiRingConfig.builder(6).ringSettings(dev.parallax.ringpaxos.RingConfig.builder(6,
                dev.parallax.ringpaxos.Ring.Kind.U_RING).build()).partitioned(true).topology(declared).build())
                .hasMessageContaining("multiring.ring.0.joiners names replicas that may join, but the rings keep their members fixed");
        MultiRingTopology tooHigh = MultiRingTopology.parse(Map.of("multiring.rings", "2", "multiring.ring.0.members", "0,1,2",
                "multiring.ring.1.members", "3,4,5", "multiring.ring.0.joiners", "9"), 6);
        assertThatThrownBy(() -> MultiRingConfig.builder(6).ringSettings(template).partitioned(true).topology(tooHigh).build())
                .hasMessageContaining("replica 9 is outside the rings' ids 0..7");
        MultiRingConfig whole = MultiRingConfig.builder(3).ringSettings(dev.parallax.ringpaxos.RingConfig.builder(3,
                dev.parallax.ringpaxos.Ring.Kind.U_RING).memberIds(5).build()).build();
        for (int ring : whole.topology().ringIds()) {
            assertThat(whole.topology().joiners(ring)).as("ring " + ring).containsExactly(3, 4);
        }
        assertThatThrownBy(() -> MultiRingConfig.builder(3).ringSettings(dev.parallax.ringpaxos.RingConfig.builder(3,
                dev.parallax.ringpaxos.Ring.Kind.U_RING).memberIds(5).build()).topology(MultiRingTopology.parse(
                Map.of("multiring.rings", "2", "multiring.ring.0.joiners", "3"), 3)).build())
                .hasMessageContaining("without partitions every replica runs every ring");
    }
}
