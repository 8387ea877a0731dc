package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
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

    private static MultiRingBroadcast broadcast(int rings, AtomicBoolean closed) {
        return new MultiRingBroadcast(0, rings, () -> {
            throw new AssertionError("not started in this test");
        }, () -> closed.set(true));
    }

    @Test
    void groupRingsGetALaneEachAndEverythingElseTheGlobalLane() {
        MultiRingBroadcast b = broadcast(3, new AtomicBoolean());
        assertThat(b.lanes()).isEqualTo(4);
        assertThat(b.laneOf(GroupSet.DEFAULT)).isZero();
        assertThat(b.laneOf(GroupSet.of(2))).isEqualTo(2);
        assertThat(b.laneOf(GroupSet.of(0, 2))).isEqualTo(3);
        assertThat(b.laneOf(GroupSet.of(7))).as("a group without a ring").isEqualTo(3);
        MultiRingBroadcast one = broadcast(1, new AtomicBoolean());
        assertThat(one.lanes()).isEqualTo(1);
        assertThat(one.laneOf(GroupSet.of(0, 1))).isZero();
        assertThat(b.redirectHint()).isEqualTo(-1);
        assertThat(b.leaderHint()).isEqualTo(-1);
    }

    @Test
    void proposingBeforeStartOrOutsideTheLanesIsRefusedClearly() {
        MultiRingBroadcast b = broadcast(2, new AtomicBoolean());
        assertThatThrownBy(() -> b.propose(1, ByteBuffer.allocate(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> b.propose(3, ByteBuffer.allocate(1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theDeliveryStateIsTheMergePositionAndAnInstallBeforeStartResumesThere() {
        MultiRingBroadcast b = broadcast(2, new AtomicBoolean());
        MulticastPosition p = MulticastPosition.START.with(0, 17).with(1, 9).with(MulticastPosition.GLOBAL_STREAM, 12)
                .with(MulticastPosition.resumeStream(0), 40);
        byte[] state = ByteBuffer.allocate(1 + p.encodedSize()).put(MultiRingBroadcast.STATE_VERSION)
                .put(encode(p)).array();
        assertThat(MultiRingBroadcast.position(state)).isEqualTo(p);
        b.snapshotInstalled(33, state);
        assertThat(b.nextSequence()).isEqualTo(33);
        assertThat(MultiRingBroadcast.position(b.deliveryState())).isEqualTo(p);
    }

    @Test
    @DisplayName("P-SMR: a per-worker delivery state (version 3) holds each worker's next sequence and position; decoded whole, refused as one merge, malformed parts named")
    void perWorkerStateRoundTripAndRefusals() {
        MulticastPosition p0 = MulticastPosition.START.with(0, 17).with(MulticastPosition.GLOBAL_STREAM, 12);
        MulticastPosition p1 = MulticastPosition.START.with(1, 9).with(MulticastPosition.GLOBAL_STREAM, 12)
                .withRecord(new byte[] {1, 2, 3});
        ByteBuffer b = ByteBuffer.allocate(1 + 4 + 16 + p0.encodedSize() + p1.encodedSize());
        b.put(MultiRingBroadcast.PER_WORKER_VERSION).putInt(2).putLong(30);
        p0.writeTo(b);
        b.putLong(22);
        p1.writeTo(b);
        byte[] state = b.array();
        MultiRingBroadcast.DeliveryState d = MultiRingBroadcast.decode(state);
        assertThat(d.nexts()).containsExactly(30, 22);
        assertThat(d.positions()).containsExactly(p0, p1);
        assertThatThrownBy(() -> MultiRingBroadcast.position(state)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("per-worker");
        byte[] negative = state.clone();
        ByteBuffer.wrap(negative).putLong(5, -1);
        assertThatThrownBy(() -> MultiRingBroadcast.decode(negative)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
        byte[] trailing = java.util.Arrays.copyOf(state, state.length + 1);
        assertThatThrownBy(() -> MultiRingBroadcast.decode(trailing)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after");
        assertThatThrownBy(() -> MultiRingBroadcast.decode(new byte[] {3, 0, 0, 0, 0}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 workers");
    }

    @Test
    void aSnapshotWithoutAPositionOrWithAnUnknownOneIsRefusedClearly() {
        assertThatThrownBy(() -> MultiRingBroadcast.position(new byte[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no multi-ring merge position");
        assertThatThrownBy(() -> MultiRingBroadcast.position(new byte[]{9, 0, 0, 0, 0}))
                .hasMessageContaining("version 9");
        assertThatThrownBy(() -> MultiRingBroadcast.position(new byte[]{1, 0, 0, 0, 0, 0, 0, 0, 0}))
                .as("version 1, a development format without the duplicate record").hasMessageContaining("version 1");
        assertThatThrownBy(() -> MultiRingBroadcast.position(new byte[]{2, 0, 0})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MultiRingBroadcast.position(new byte[]{2, 0, 0, 0, 0, 0, 0, 0, 0, 5}))
                .hasMessageContaining("after the multi-ring merge position");
    }

    @Test
    void aPositionIsBeyondAnotherWhenItIsAheadInSomeStream() {
        MulticastPosition a = MulticastPosition.START.with(0, 5).with(1, 3);
        assertThat(MultiRingBroadcast.beyond(a, a)).isFalse();
        assertThat(MultiRingBroadcast.beyond(a.with(1, 4), a)).isTrue();
        assertThat(MultiRingBroadcast.beyond(a, a.with(1, 4))).isFalse();
        assertThat(MultiRingBroadcast.beyond(MulticastPosition.START.with(64, 1), a)).isTrue();
    }

    @Test
    void closingAnUnstartedBroadcastReleasesWhatItOpened() {
        AtomicBoolean closed = new AtomicBoolean();
        MultiRingBroadcast b = broadcast(2, closed);
        b.close();
        b.close();
        assertThat(closed).isTrue();
        assertThatThrownBy(() -> b.start((s, v) -> { })).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theLanesFollowTheTopologysGroupToRingMapping() {
        // Groups 0 and 2 on ring 0, group 1 on ring 1 (multiring.group.2=0).
        MultiRingTopology t = MultiRingTopology.builder(3).group(2, 0).build();
        MultiRingBroadcast b = new MultiRingBroadcast(0, t, () -> {
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
        RingMemberTransport<String> ring1 = new RingMemberTransport<>(replicas, 1, 3);
        assertThat(ring1.localId()).isEqualTo(1);
        ring1.send(0, "x");
        ring1.send(1, "y");
        assertThat(sentTo).containsExactly(2, 0);
        ring1.start((f, m) -> from.add(f), heard::add);
        assertThat(from).containsExactly(0);
        assertThat(heard).as("an id out of range passes through, for the stamps to ignore").containsExactly(0, 7);
        for (int r = 0; r < 3; r++) {
            assertThat(ring1.replica(ring1.member(r))).isEqualTo(r);
        }
    }

    private static ByteBuffer encode(MulticastPosition p) {
        ByteBuffer b = ByteBuffer.allocate(p.encodedSize());
        p.writeTo(b);
        return b.flip();
    }
}
