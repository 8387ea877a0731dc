package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The delivery state of {@link MulticastBroadcast}: the merge position (version 2) or the
 * per-worker positions (version 3, P-SMR), decoded whole and refused clearly when it does not fit;
 * the order of positions along one merge. The lanes and the ring configuration are tested with
 * Multi-Ring Paxos (smr-ringpaxos {@code MultiRingBroadcastTest}).
 */
class MulticastBroadcastTest {

    private static MulticastBroadcast broadcast(int streams) {
        return new MulticastBroadcast(0, GroupSet.partition(streams), streams, g -> g, subscriptions -> {
            throw new AssertionError("not started in this test");
        }, () -> { });
    }

    @Test
    void theDeliveryStateIsTheMergePositionAndAnInstallBeforeStartResumesThere() {
        MulticastBroadcast b = broadcast(2);
        MulticastPosition p = MulticastPosition.START.with(0, 17).with(1, 9).with(MulticastPosition.GLOBAL_STREAM, 12)
                .with(MulticastPosition.resumeStream(0), 40);
        byte[] state = ByteBuffer.allocate(1 + p.encodedSize()).put(DeliveryState.STATE_VERSION)
                .put(encode(p)).array();
        assertThat(DeliveryState.position(state)).isEqualTo(p);
        b.snapshotInstalled(33, state);
        assertThat(b.nextSequence()).isEqualTo(33);
        assertThat(DeliveryState.position(b.deliveryState())).isEqualTo(p);
    }

    @Test
    @DisplayName("P-SMR: a per-worker delivery state (version 3) holds each worker's next sequence and position; decoded whole, refused as one merge, malformed parts named")
    void perWorkerStateRoundTripAndRefusals() {
        MulticastPosition p0 = MulticastPosition.START.with(0, 17).with(MulticastPosition.GLOBAL_STREAM, 12);
        MulticastPosition p1 = MulticastPosition.START.with(1, 9).with(MulticastPosition.GLOBAL_STREAM, 12)
                .withRecord(new byte[] {1, 2, 3});
        ByteBuffer b = ByteBuffer.allocate(1 + 4 + 16 + p0.encodedSize() + p1.encodedSize());
        b.put(DeliveryState.PER_WORKER_VERSION).putInt(2).putLong(30);
        p0.writeTo(b);
        b.putLong(22);
        p1.writeTo(b);
        byte[] state = b.array();
        DeliveryState d = DeliveryState.decode(state);
        assertThat(d.nexts()).containsExactly(30, 22);
        assertThat(d.positions()).containsExactly(p0, p1);
        assertThatThrownBy(() -> DeliveryState.position(state)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("per-worker");
        byte[] negative = state.clone();
        ByteBuffer.wrap(negative).putLong(5, -1);
        assertThatThrownBy(() -> DeliveryState.decode(negative)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
        byte[] trailing = java.util.Arrays.copyOf(state, state.length + 1);
        assertThatThrownBy(() -> DeliveryState.decode(trailing)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after");
        assertThatThrownBy(() -> DeliveryState.decode(new byte[] {3, 0, 0, 0, 0}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 workers");
    }

    @Test
    @DisplayName("the streams' own states (a ring's member history) ride after the position, both versions; a snapshot "
            + "without them still decodes; a truncated or oversized part is refused; an install before start hands them "
            + "to the streams with the initial subscription")
    void streamStatesRideAfterThePosition() {
        MulticastPosition p = MulticastPosition.START.with(0, 17).with(MulticastPosition.GLOBAL_STREAM, 12);
        java.util.Map<Integer, byte[]> states = new java.util.TreeMap<>();
        states.put(0, new byte[] {1, 2, 3});
        states.put(MulticastPosition.GLOBAL_STREAM, new byte[] {4});
        DeliveryState one = DeliveryState.decode(DeliveryState.encode(p, states));
        assertThat(one.positions()).containsExactly(p);
        assertThat(one.streams()).containsOnlyKeys(0, MulticastPosition.GLOBAL_STREAM);
        assertThat(one.streams().get(0)).containsExactly(1, 2, 3);
        DeliveryState workers = DeliveryState.decode(DeliveryState.encode(new long[] {5, 6}, new MulticastPosition[] {p, p},
                states));
        assertThat(workers.nexts()).containsExactly(5, 6);
        assertThat(workers.streams().get(MulticastPosition.GLOBAL_STREAM)).containsExactly(4);
        assertThat(DeliveryState.decode(DeliveryState.encode(p, java.util.Map.of())).streams()).isEmpty();
        byte[] whole = DeliveryState.encode(p, states);
        assertThatThrownBy(() -> DeliveryState.decode(java.util.Arrays.copyOf(whole, whole.length - 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("state of 1 bytes, 0 left");
        byte[] huge = whole.clone();
        ByteBuffer.wrap(huge).putInt(1 + p.encodedSize(), 1000);
        assertThatThrownBy(() -> DeliveryState.decode(huge)).hasMessageContaining("the states of 1000 streams");

        java.util.List<MulticastBroadcast.InitialSubscription> opened = new java.util.ArrayList<>();
        MulticastBroadcast b = new MulticastBroadcast(0, GroupSet.partition(2), 2, g -> g, subscriptions -> {
            opened.addAll(subscriptions);
            throw new IllegalStateException("opened");
        }, () -> { });
        b.snapshotInstalled(3, whole);
        assertThatThrownBy(() -> b.start((seq, v) -> { })).hasMessage("opened");
        assertThat(opened).hasSize(1);
        assertThat(opened.get(0).from()).isEqualTo(p);
        assertThat(opened.get(0).streamStates()).containsOnlyKeys(0, MulticastPosition.GLOBAL_STREAM);
    }

    @Test
    void aSnapshotWithoutAPositionOrWithAnUnknownOneIsRefusedClearly() {
        assertThatThrownBy(() -> DeliveryState.position(new byte[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no multicast merge position");
        assertThatThrownBy(() -> DeliveryState.position(new byte[]{9, 0, 0, 0, 0}))
                .hasMessageContaining("version 9");
        assertThatThrownBy(() -> DeliveryState.position(new byte[]{1, 0, 0, 0, 0, 0, 0, 0, 0}))
                .as("version 1, a development format without the duplicate record").hasMessageContaining("version 1");
        assertThatThrownBy(() -> DeliveryState.position(new byte[]{2, 0, 0})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeliveryState.position(new byte[]{2, 0, 0, 0, 0, 0, 0, 0, 0, 5}))
                .hasMessageContaining("after the multicast merge position");
    }

    @Test
    void aPositionIsBeyondAnotherWhenItIsAheadInSomeStream() {
        MulticastPosition a = MulticastPosition.START.with(0, 5).with(1, 3);
        assertThat(MulticastBroadcast.beyond(a, a)).isFalse();
        assertThat(MulticastBroadcast.beyond(a.with(1, 4), a)).isTrue();
        assertThat(MulticastBroadcast.beyond(a, a.with(1, 4))).isFalse();
        assertThat(MulticastBroadcast.beyond(MulticastPosition.START.with(64, 1), a)).isTrue();
    }

    @Test
    void aGroupMappedOutsideTheStreamsIsRefused() {
        assertThatThrownBy(() -> new MulticastBroadcast(0, GroupSet.partition(3), 2, g -> g, s -> null, () -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group 2 maps to stream 2 of 2");
        assertThatThrownBy(() -> new MulticastBroadcast(0, GroupSet.partition(1), 0, g -> 0, s -> null, () -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static ByteBuffer encode(MulticastPosition p) {
        ByteBuffer b = ByteBuffer.allocate(p.encodedSize());
        p.writeTo(b);
        return b.flip();
    }
}
