package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static dev.parallax.ringpaxos.multiring.MultiRingTopology.GLOBAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cluster-file keys of a Multi-Ring topology: defaults for a local cluster, per-ring members,
 * kinds and datagram addresses, group → ring mapping, and a clear error for every bad input.
 */
class MultiRingTopologyTest {
    private static Map<String, String> keys(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static void refused(Map<String, String> keys, int processes, String... message) {
        assertThatThrownBy(() -> MultiRingTopology.parse(keys, processes)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll(message);
    }

    @Test
    @DisplayName("no keys: 2 M-Ring rings and the global ring on every process, groups 0, 1 on rings 0, 1, consecutive ports")
    void defaultsMakeALocalCluster() {
        MultiRingTopology t = MultiRingTopology.parse(Map.of(), 3);
        assertThat(t.processes()).isEqualTo(3);
        assertThat(t.rings()).isEqualTo(2);
        assertThat(t.ringIds()).containsExactly(0, 1, GLOBAL);
        assertThat(t.groups()).isEqualTo(GroupSet.of(0, 1));
        assertThat(t.ringOf(0)).isZero();
        assertThat(t.ringOf(1)).isEqualTo(1);
        for (int ring : t.ringIds()) {
            assertThat(t.members(ring)).containsExactly(0, 1, 2);
            assertThat(t.kind(ring)).isEqualTo(Ring.Kind.M_RING);
            assertThat(t.datagramGroup(ring)).isEqualTo("239.255.80.1");
        }
        assertThat(t.datagramPort(0)).isEqualTo(7400);
        assertThat(t.datagramPort(1)).isEqualTo(7401);
        assertThat(t.datagramPort(GLOBAL)).as("the global ring's index is k").isEqualTo(7402);
        RingConfig c = t.ringConfig(1).build();
        assertThat(c.members()).isEqualTo(3);
        assertThat(c.kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(c.mringPort()).isEqualTo(7401);
        assertThat(t.canSubscribe(2, GroupSet.of(0, 1))).isTrue();
        assertThat(MultiRingTopology.parse(Map.of("members", "0=h:1,1=h:2,2=h:3")).processes()).isEqualTo(3);
        assertThat(MultiRingTopology.parse(keys("multiring.rings", "1"), 3).ringIds()).as("one ring: no global ring")
                .containsExactly(0);
    }

    @Test
    @DisplayName("per-ring members, kinds and addresses, the global ring's keys and a group mapping")
    void keysSetEveryRing() {
        MultiRingTopology t = MultiRingTopology.parse(keys("multiring.rings", "2", "multiring.kind", "u-ring",
                "mring.group", "239.1.1.1", "mring.port", "9000",
                "multiring.ring.0.members", "0, 1, 2", "multiring.ring.1.members", "3,2,1",
                "multiring.ring.1.kind", "m-ring", "multiring.ring.1.group", "239.2.2.2:9100",
                "multiring.ring.global.members", "0,1,2", "multiring.ring.global.kind", "m-ring",
                "multiring.group.5", "1", "paxos.window", "9"), 4);
        assertThat(t.members(0)).containsExactly(0, 1, 2);
        assertThat(t.members(1)).as("sorted").containsExactly(1, 2, 3);
        assertThat(t.kind(0)).isEqualTo(Ring.Kind.U_RING);
        assertThat(t.kind(1)).isEqualTo(Ring.Kind.M_RING);
        assertThat(t.datagramGroup(1)).isEqualTo("239.2.2.2");
        assertThat(t.datagramPort(1)).isEqualTo(9100);
        assertThat(t.datagramGroup(GLOBAL)).isEqualTo("239.1.1.1");
        assertThat(t.datagramPort(GLOBAL)).isEqualTo(9002);
        assertThat(t.groups()).isEqualTo(GroupSet.of(0, 1, 5));
        assertThat(t.ringOf(5)).isEqualTo(1);
        assertThat(t.runs(0, 1)).isFalse();
        assertThat(t.canSubscribe(0, GroupSet.of(0))).isTrue();
        assertThat(t.canSubscribe(0, GroupSet.of(5))).as("group 5 is on ring 1, which process 0 does not run").isFalse();
        assertThat(t.canSubscribe(3, GroupSet.of(1))).as("process 3 does not run the global ring").isFalse();
        assertThat(t.canSubscribe(1, GroupSet.of(0, 1, 5))).isTrue();
        assertThat(t.toString()).contains("ring 1=[1, 2, 3] M_RING 239.2.2.2:9100");
    }

    @Test
    @DisplayName("every bad key is refused with a message naming it")
    void badKeysAreRefused() {
        refused(keys("multiring.ring.2.members", "0"), 3, "multiring.ring.2", "unknown ring", "rings 0..1 and global");
        refused(keys("multiring.ring.x.members", "0"), 3, "multiring.ring.x.members", "unknown ring 'x'");
        refused(keys("multiring.ring.64.members", "0"), 3, "unknown ring '64'");
        refused(keys("multiring.rings", "1", "multiring.ring.global.members", "0"), 3, "multiring.ring.global", "unknown ring");
        refused(keys("multiring.ring.0.colour", "red"), 3, "multiring.ring.0.colour", "unknown key");
        refused(keys("multiring.ring.0.members", " , "), 3, "multiring.ring.0.members", "empty");
        refused(keys("multiring.ring.0.members", "0,1,3"), 3, "multiring.ring.0.members", "member 3", "0..2");
        refused(keys("multiring.ring.0.members", "0,1,1"), 3, "multiring.ring.0.members", "named twice");
        refused(keys(), 32, "multiring.ring.0.members", "at most 31", "it has 32", "default: every process");
        refused(keys("multiring.ring.0.members", "0,1,2", "multiring.ring.1.members", "0,1,2"), 32,
                "multiring.ring.global.members", "at most 31", "default: every process");
        refused(keys("multiring.ring.0.members", "a"), 3, "multiring.ring.0.members", "integer");
        refused(keys("multiring.kind", "x-ring"), 3, "multiring.kind", "m-ring or u-ring");
        refused(keys("multiring.ring.1.kind", "ring"), 3, "multiring.ring.1.kind", "m-ring or u-ring");
        refused(keys("multiring.ring.1.group", "239.1.1.1"), 3, "multiring.ring.1.group", "<address>:<port>");
        refused(keys("multiring.ring.1.group", "239.1.1.1:0"), 3, "multiring.ring.1.group", "1..65535");
        refused(keys("multiring.group.3", "7"), 3, "multiring.group.3=7", "no such ring");
        refused(keys("multiring.group.1", "0"), 3, "ring 1 orders no group");
        refused(keys("multiring.group.99", "0"), 3, "multiring.group.99", "0..63");
        refused(keys("multiring.rings", "0"), 3, "multiring.rings", "1..64");
        refused(keys("multiring.rings", "two"), 3, "multiring.rings", "integer");
        refused(keys("mring.port", "65535"), 3, "port must be 1..65535", "mring.port + ring index");
        refused(keys("multiring.ring.1.group", "239.255.80.1:7400"), 3, "rings 0 and 1 both use datagram address "
                + "239.255.80.1:7400");
        refused(Map.of(), 0, "at least one process");
        assertThatThrownBy(() -> MultiRingTopology.parse(Map.of())).hasMessageContaining("'members' is required");
        assertThat(MultiRingTopology.parse(keys("multiring.ring.1.group", "239.255.80.1:7400",
                "multiring.ring.1.kind", "u-ring"), 3).kind(1)).as("a U-Ring uses no datagram address").isEqualTo(Ring.Kind.U_RING);
        MultiRingTopology t = MultiRingTopology.parse(Map.of(), 3);
        assertThatThrownBy(() -> t.members(5)).hasMessageContaining("no ring 5");
        assertThatThrownBy(() -> t.ringOf(7)).hasMessageContaining("group 7 is not offered");
    }

    @Test
    @DisplayName("ring member ids: the ring's processes in increasing id, rotated by the ring's index; the full ring as before")
    void ringMemberIdsMapBackToProcesses() {
        int[] procs = {3, 1, 2};
        for (int ring = 0; ring < 4; ring++) {
            for (int p : procs) {
                int member = RingMulticast.ringMember(p, ring, procs);
                assertThat(member).isBetween(0, 2);
                assertThat(RingMulticast.ringProcess(member, ring, procs)).isEqualTo(p);
            }
        }
        assertThat(RingMulticast.ringMember(1, 0, procs)).isZero();
        assertThat(RingMulticast.ringMember(1, 1, procs)).isEqualTo(1);
        int[] all = {0, 1, 2};
        for (int ring = 0; ring < 3; ring++) {
            for (int p = 0; p < 3; p++) {
                assertThat(RingMulticast.ringMember(p, ring, all)).isEqualTo(RingMulticast.ringMember(p, ring, 3));
            }
        }
        assertThatThrownBy(() -> RingMulticast.ringMember(0, 0, procs)).hasMessageContaining("not a member");
        assertThatThrownBy(() -> RingMulticast.ringProcess(3, 0, procs)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("a ring may have an even member count (majority quorums, RingConfig.quorum()): S-SMR's global ring over "
            + "two partitions of three has six members")
    void evenRingsAreAccepted() {
        MultiRingTopology two = MultiRingTopology.parse(keys("multiring.ring.0.members", "0,1"), 3);
        assertThat(two.members(0)).containsExactly(0, 1);
        MultiRingTopology four = MultiRingTopology.parse(keys("multiring.ring.0.members", "0,1,2"), 4);
        assertThat(four.members(1)).as("default: every process").containsExactly(0, 1, 2, 3);
        assertThat(four.members(GLOBAL)).containsExactly(0, 1, 2, 3);
        MultiRingTopology partitioned = MultiRingTopology.parse(keys("multiring.rings", "2",
                "multiring.ring.0.members", "0,1,2", "multiring.ring.1.members", "3,4,5"), 6);
        assertThat(partitioned.members(GLOBAL)).containsExactly(0, 1, 2, 3, 4, 5);
        RingConfig global = RingConfig.builder(partitioned.members(GLOBAL).length, partitioned.kind(GLOBAL)).build();
        assertThat(global.quorum()).as("a majority of six").isEqualTo(4);
        assertThat(global.f()).isEqualTo(2);
        assertThat(MultiRingTopology.parse(keys(), 31).members(GLOBAL)).hasSize(31);
    }
}
