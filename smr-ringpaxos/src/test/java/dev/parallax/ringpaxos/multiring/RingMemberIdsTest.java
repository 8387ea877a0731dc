package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How a Multi-Ring deployment's rings number the replicas ({@link RingMemberIds}) and how a ring's
 * transport keeps the shared replica port's members ({@link RingMemberTransport}, {@link PortRemovals}).
 */
class RingMemberIdsTest {

    @Test
    @DisplayName("the file's replicas are rotated per ring; replicas joined later keep their id in every ring; a bijection")
    void fileReplicasRotateAndJoinedOnesKeepTheirIds() {
        for (int ring = 0; ring < 3; ring++) {
            RingMemberIds ids = new RingMemberIds(ring, new int[] {0, 1, 2}, new int[] {3, 4, 5, 6, 7});
            for (int p = 0; p < 3; p++) {
                assertThat(ids.member(p)).as("ring " + ring + " replica " + p).isEqualTo(RingMulticast.ringMember(p, ring, 3));
            }
            for (int p = 3; p < 8; p++) {
                assertThat(ids.member(p)).isEqualTo(p);
            }
            for (int m = 0; m < 8; m++) {
                assertThat(ids.member(ids.replica(m))).isEqualTo(m);
            }
            assertThat(ids.member(8)).isEqualTo(-1);
            assertThat(ids.replicas()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        }
    }

    @Test
    @DisplayName("a ring over a subset: the other file replicas are no members, its joiners keep their ids")
    void aSubsetRingLeavesTheOtherFileReplicasOut() {
        RingMemberIds ids = new RingMemberIds(1, new int[] {3, 4, 5}, new int[] {6, 7});
        assertThat(ids.member(3)).isEqualTo(1);
        assertThat(ids.member(5)).isEqualTo(0);
        assertThat(ids.member(0)).as("a replica of another partition").isEqualTo(-1);
        assertThat(ids.member(6)).isEqualTo(6);
        assertThat(ids.replica(4)).as("member ids n..N-1 are no replica's").isEqualTo(-1);
        assertThat(ids.replicas()).containsExactly(3, 4, 5, 6, 7);
        RingMemberIds fixed = new RingMemberIds(0, new int[] {0, 1, 2}, new int[0]);
        assertThat(fixed.member(3)).as("fixed members: no one joins").isEqualTo(-1);
        assertThatThrownBy(() -> new RingMemberIds(0, new int[] {3, 4, 5}, new int[] {1})).as("a joiner under the ring's size")
                .hasMessageContaining("its id is taken");
    }

    @Test
    @DisplayName("a ring's transport: sends and addresses go to the replica of the member; the port forgets a removed "
            + "replica only once every ring here that may have it removed it")
    void removalsReachThePortOnlyWhenEveryRingRemovedTheReplica() {
        RecordingPort port = new RecordingPort(0);
        PortRemovals removals = new PortRemovals();
        RingMemberTransport<String> ring0 = new RingMemberTransport<>(port, new RingMemberIds(0, new int[] {0, 1, 2}, new int[] {3, 4, 5, 6, 7}),
                removals);
        RingMemberTransport<String> ring1 = new RingMemberTransport<>(port, new RingMemberIds(1, new int[] {0, 1, 2}, new int[] {3, 4, 5, 6, 7}),
                removals);
        assertThat(ring1.localId()).isEqualTo(1);
        ring1.send(0, "x");
        assertThat(port.sentTo).containsExactly(2);
        ring1.addMember(5, "h", 7005);
        assertThat(port.added).containsExactly("5=h:7005");
        ring0.removeMember(2); // replica 2
        assertThat(port.removed).as("ring 1 still has replica 2").isEmpty();
        ring1.removeMember(0); // replica 2 in ring 1
        assertThat(port.removed).containsExactly(2);
        ring0.removeMember(4); // never a member anywhere: each ring removes it, then the port
        ring1.removeMember(4);
        assertThat(port.removed).containsExactly(2, 4);
        assertThatThrownBy(() -> new RingMemberTransport<>(port, new RingMemberIds(0, new int[] {3, 4, 5}, new int[] {6}),
                new PortRemovals()).send(4, "x")).hasMessageContaining("no replica");
    }

    /** A replica port that records what the rings asked of it. */
    private static final class RecordingPort implements Transport<String> {
        final int self;
        final List<Integer> sentTo = new ArrayList<>();
        final List<String> added = new ArrayList<>();
        final List<Integer> removed = new ArrayList<>();

        RecordingPort(int self) {
            this.self = self;
        }

        @Override
        public int localId() {
            return self;
        }

        @Override
        public void start(MessageHandler<String> handler) {
        }

        @Override
        public boolean send(int to, String message) {
            sentTo.add(to);
            return true;
        }

        @Override
        public void addMember(int id, String host, int port) {
            added.add(id + "=" + host + ":" + port);
        }

        @Override
        public void removeMember(int id) {
            removed.add(id);
        }

        @Override
        public void close() {
        }
    }
}
