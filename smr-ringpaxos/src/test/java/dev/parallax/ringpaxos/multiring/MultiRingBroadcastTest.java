package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.MulticastBroadcast;
import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Transport;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pure parts of multi-ring ordering: lanes, the snapshot's position, the configuration, the ring ids. */
class MultiRingBroadcastTest {

    private static MulticastBroadcast broadcast(int rings, AtomicBoolean closed) {
        return MultiRingBroadcast.create(0, rings, () -> {
            throw new AssertionError("not started in this test");
        }, () -> closed.set(true));
    }

    @Test
    void groupRingsGetALaneEachAndEverythingElseTheGlobalLane() {
        MulticastBroadcast b = broadcast(3, new AtomicBoolean());
        assertThat(b.lanes()).isEqualTo(4);
        assertThat(b.laneOf(GroupSet.DEFAULT)).isZero();
        assertThat(b.laneOf(GroupSet.of(2))).isEqualTo(2);
        assertThat(b.laneOf(GroupSet.of(0, 2))).isEqualTo(3);
        assertThat(b.laneOf(GroupSet.of(7))).as("a group without a ring").isEqualTo(3);
        MulticastBroadcast one = broadcast(1, new AtomicBoolean());
        assertThat(one.lanes()).isEqualTo(1);
        assertThat(one.laneOf(GroupSet.of(0, 1))).isZero();
        assertThat(b.redirectHint()).isEqualTo(-1);
        assertThat(b.leaderHint()).isEqualTo(-1);
    }

    @Test
    void proposingBeforeStartOrOutsideTheLanesIsRefusedClearly() {
        MulticastBroadcast b = broadcast(2, new AtomicBoolean());
        assertThatThrownBy(() -> b.propose(1, ByteBuffer.allocate(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> b.propose(3, ByteBuffer.allocate(1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void closingAnUnstartedBroadcastReleasesWhatItOpened() {
        AtomicBoolean closed = new AtomicBoolean();
        MulticastBroadcast b = broadcast(2, closed);
        b.close();
        b.close();
        assertThat(closed).isTrue();
        assertThatThrownBy(() -> b.start((s, v) -> { })).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theLanesFollowTheTopologysGroupToRingMapping() {
        // Groups 0 and 2 on ring 0, group 1 on ring 1 (multiring.group.2=0).
        MultiRingTopology t = MultiRingTopology.builder(3).group(2, 0).build();
        MulticastBroadcast b = MultiRingBroadcast.create(0, t, () -> {
            throw new AssertionError("not started in this test");
        }, () -> { });
        assertThat(b.lanes()).isEqualTo(3);
        assertThat(b.laneOf(GroupSet.of(2))).as("group 2 is ordered by ring 0").isZero();
        assertThat(b.laneOf(GroupSet.of(0, 2))).as("both groups of ring 0: still ring 0").isZero();
        assertThat(b.laneOf(GroupSet.of(1))).isEqualTo(1);
        assertThat(b.laneOf(GroupSet.of(1, 2))).as("groups of two rings: the global lane").isEqualTo(2);
        assertThat(b.laneOf(GroupSet.of(5))).as("a group not offered: the global lane").isEqualTo(2);
    }

    @Test
    void theConfigurationTakesPerRingKindsAndAddressesFromTheTopologyAndRefusesSubsets() {
        MultiRingTopology t = MultiRingTopology.parse(java.util.Map.of("multiring.ring.0.kind", "u-ring",
                "multiring.ring.1.kind", "m-ring", "multiring.ring.1.group", "239.255.9.9:9100", "mring.port", "9000",
                "multiring.ring.global.kind", "u-ring"), 3);
        MultiRingConfig c = MultiRingConfig.builder(3).topology(t).build();
        assertThat(c.rings()).isEqualTo(2);
        assertThat(c.topology()).isSameAs(t);
        assertThat(c.kind(0)).isEqualTo(Ring.Kind.U_RING);
        assertThat(c.ring(0).kind()).isEqualTo(Ring.Kind.U_RING);
        assertThat(c.ring(1).kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(c.ring(1).mringGroup()).isEqualTo("239.255.9.9");
        assertThat(c.ring(1).mringPort()).isEqualTo(9100);
        assertThat(c.ring(1).lambda()).isEqualTo(MultiRingConfig.DEFAULT_LAMBDA);
        assertThat(c.ring(2).kind()).isEqualTo(Ring.Kind.U_RING);
        assertThat(c.anyMRing()).isTrue();
        // The default topology is today's layout.
        MultiRingConfig d = MultiRingConfig.builder(3).kind(Ring.Kind.U_RING).rings(3).build();
        assertThat(d.topology().ringIds()).containsExactly(0, 1, 2, MultiRingTopology.GLOBAL);
        assertThat(d.kind(3)).isEqualTo(Ring.Kind.U_RING);
        assertThat(d.anyMRing()).isFalse();
        assertThat(d.groups()).isEqualTo(GroupSet.of(0, 1, 2));
        // Every ring on every replica.
        MultiRingTopology subset = MultiRingTopology.builder(5).ring(1, 0, 1, 3).build();
        assertThatThrownBy(() -> MultiRingConfig.builder(5).topology(subset).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("multiring.ring.1.members=0,1,3 leaves out replica 2")
                .hasMessageContaining("subscribes every replica to every group");
        assertThatThrownBy(() -> MultiRingConfig.builder(3).rings(3).topology(t).build())
                .hasMessageContaining("multiring.rings=3 but the topology has 2 rings");
        assertThatThrownBy(() -> MultiRingConfig.builder(5).topology(t).build()).hasMessageContaining("3 processes");
    }

    @Test
    void theConfigurationHasTheDocumentedDefaultsAndDerivesEveryRing() {
        MultiRingConfig c = MultiRingConfig.builder(3).build();
        assertThat(c.rings()).isEqualTo(2);
        assertThat(c.kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(c.roundLength()).isEqualTo(1);
        assertThat(c.lambda()).isEqualTo(20_000);
        assertThat(c.skipInterval()).isEqualTo(Duration.ofMillis(5));
        assertThat(c.streams()).isEqualTo(3);
        assertThat(c.groups()).isEqualTo(GroupSet.of(0, 1));
        RingConfig template = RingConfig.builder(3, Ring.Kind.U_RING).window(8).mringPort(9000).build();
        MultiRingConfig m = MultiRingConfig.builder(3).ringSettings(template).kind(Ring.Kind.M_RING).rings(4)
                .roundLength(2).lambda(500).skipInterval(Duration.ofMillis(2)).build();
        RingConfig global = m.ring(4);
        assertThat(global.kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(global.window()).isEqualTo(8);
        assertThat(global.mringPort()).isEqualTo(9004);
        assertThat(global.lambda()).isEqualTo(500);
        assertThat(global.skipIntervalNanos()).isEqualTo(Duration.ofMillis(2).toNanos());
        assertThat(global.toString()).isEqualTo(global.toBuilder().build().toString());
        assertThatThrownBy(() -> m.ring(5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MultiRingConfig.builder(3).lambda(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MultiRingConfig.builder(3).rings(65)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MultiRingConfig.builder(3).ringSettings(RingConfig.builder(3, Ring.Kind.M_RING)
                .mringPort(65_534).build()).rings(2).build()).hasMessageContaining("65535");
    }

    @Test
    void aRingsTransportSpeaksRingMemberIds() {
        List<Integer> sentTo = new ArrayList<>();
        List<Integer> heard = new ArrayList<>();
        List<Integer> from = new ArrayList<>();
        Transport<String> replicas = new Transport<>() {
            @Override
            public int localId() {
                return 0;
            }

            @Override
            public void start(MessageHandler<String> handler) {
                handler.onMessage(2, "m");
            }

            @Override
            public void start(MessageHandler<String> handler, ArrivalStamps stamps) {
                stamps.heard(2);
                stamps.heard(7);
                handler.onMessage(2, "m");
            }

            @Override
            public boolean send(int to, String message) {
                return sentTo.add(to);
            }

            @Override
            public void close() {
            }
        };
        RingMemberTransport<String> ring1 = new RingMemberTransport<>(replicas, new RingMemberIds(1, new int[] {0, 1, 2}, new int[0]),
                new PortRemovals());
        assertThat(ring1.localId()).isEqualTo(1);
        ring1.send(0, "x");
        ring1.send(1, "y");
        assertThat(sentTo).containsExactly(2, 0);
        ring1.start((f, m) -> from.add(f), heard::add);
        assertThat(from).containsExactly(0);
        assertThat(heard).as("a replica outside the ring is not a member: ignored").containsExactly(0);
        for (int r = 0; r < 3; r++) {
            assertThat(ring1.replica(ring1.member(r))).isEqualTo(r);
        }
        // A partition's ring (seed 004 (S-SMR)): replicas 3, 4, 5 of six are members 1, 2, 0 of ring 1.
        RingMemberTransport<String> partition = new RingMemberTransport<>(replicas, new RingMemberIds(1, new int[] {5, 3, 4}, new int[0]),
                new PortRemovals());
        assertThat(partition.member(3)).isEqualTo(1);
        assertThat(partition.member(5)).isEqualTo(0);
        assertThat(partition.member(0)).as("not in the ring").isEqualTo(-1);
        for (int r = 3; r < 6; r++) {
            assertThat(partition.replica(partition.member(r))).isEqualTo(r);
        }
    }
}
