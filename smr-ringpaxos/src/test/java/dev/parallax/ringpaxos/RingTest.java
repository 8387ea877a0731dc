package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RingTest {

    @Test
    @DisplayName("U-Ring: the coordinator is the first acceptor, positions 0..f acceptors, order[f] the last acceptor, the rest learners (seed 003 (Ring Paxos) §3.3.3 ¶2)")
    void uRingRoles() {
        Ring r = Ring.uRing(3, 2, new int[]{0, 1, 2, 3, 4});
        assertThat(r.kind()).isEqualTo(Ring.Kind.U_RING);
        assertThat(r.order()).as("rotated to start at the coordinator").containsExactly(3, 4, 0, 1, 2);
        assertThat(r.coordinator()).isEqualTo(3);
        assertThat(r.first()).isEqualTo(3);
        assertThat(r.acceptors()).isEqualTo(3);
        assertThat(r.lastAcceptor()).isEqualTo(0);
        assertThat(r.size()).isEqualTo(5);
        assertThat(r.isAcceptor(3)).isTrue();
        assertThat(r.isAcceptor(4)).isTrue();
        assertThat(r.isAcceptor(0)).isTrue();
        assertThat(r.isAcceptor(1)).as("a learner").isFalse();
        assertThat(r.isAcceptor(2)).as("a learner").isFalse();
        assertThat(r.position(3)).isZero();
        assertThat(r.position(2)).isEqualTo(4);
        assertThat(r.member(2)).isZero();
    }

    @Test
    @DisplayName("U-Ring: the packet goes to the successor; the last member's successor is the coordinator (seed 003 Alg. 3)")
    void uRingNeighbours() {
        Ring r = Ring.uRing(0, 1, new int[]{0, 2, 1});
        assertThat(r.successor(0)).isEqualTo(2);
        assertThat(r.successor(2)).isEqualTo(1);
        assertThat(r.successor(1)).isZero();
        assertThat(r.predecessor(0)).isEqualTo(1);
        assertThat(r.predecessor(2)).isZero();
        assertThat(r.predecessor(1)).isEqualTo(2);
        Ring alone = Ring.uRing(4, 0, new int[]{4});
        assertThat(alone.successor(4)).isEqualTo(4);
        assertThat(alone.predecessor(4)).isEqualTo(4);
        assertThat(alone.lastAcceptor()).isEqualTo(4);
    }

    @Test
    @DisplayName("a member off the ring has position -1, no successor or predecessor, and is no acceptor")
    void offRing() {
        Ring r = Ring.uRing(0, 1, new int[]{0, 1, 2});
        for (int m : new int[]{3, 4, -1, 255}) {
            assertThat(r.position(m)).isEqualTo(-1);
            assertThat(r.contains(m)).isFalse();
            assertThat(r.isAcceptor(m)).isFalse();
            assertThat(r.successor(m)).isEqualTo(-1);
            assertThat(r.predecessor(m)).isEqualTo(-1);
        }
        assertThat(r.contains(2)).isTrue();
    }

    @Test
    @DisplayName("M-Ring: order = [a1 … af, c], the 2B chain starts at first() and ends at the coordinator; every ring member is an acceptor (seed 003 §3.3.2 ¶1, Alg. 2 l.26–34)")
    void mRingRoles() {
        Ring r = Ring.mRing(1, new int[]{4, 2});
        assertThat(r.kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(r.order()).containsExactly(4, 2, 1);
        assertThat(r.coordinator()).isEqualTo(1);
        assertThat(r.first()).isEqualTo(4);
        assertThat(r.lastAcceptor()).isEqualTo(1);
        assertThat(r.acceptors()).isEqualTo(3);
        assertThat(r.successor(4)).isEqualTo(2);
        assertThat(r.successor(2)).isEqualTo(1);
        assertThat(r.isAcceptor(4)).isTrue();
        assertThat(r.isAcceptor(1)).isTrue();
        assertThat(r.isAcceptor(0)).as("a spare acceptor and learner, off the ring").isFalse();
        Ring f0 = Ring.mRing(2, new int[0]);
        assertThat(f0.order()).containsExactly(2);
        assertThat(f0.first()).isEqualTo(2);
        assertThat(f0.coordinator()).isEqualTo(2);
    }

    @Test
    @DisplayName("a ring is 1..254 distinct ids of [0, 254] with 1..size acceptors; an M-Ring's members are all acceptors")
    void validation() {
        assertThatThrownBy(() -> new Ring(Ring.Kind.U_RING, new int[0], 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1..254 members");
        assertThatThrownBy(() -> new Ring(Ring.Kind.U_RING, new int[]{0, 1, 0}, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> new Ring(Ring.Kind.U_RING, new int[]{0, 255}, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("255 outside");
        assertThatThrownBy(() -> new Ring(Ring.Kind.U_RING, new int[]{-1}, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Ring(Ring.Kind.U_RING, new int[]{0, 1}, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acceptors 0");
        assertThatThrownBy(() -> new Ring(Ring.Kind.U_RING, new int[]{0, 1}, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Ring(Ring.Kind.M_RING, new int[]{0, 1, 2}, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("every M-Ring member is an acceptor");
        assertThatThrownBy(() -> new Ring(null, new int[]{0}, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Ring.uRing(5, 1, new int[]{0, 1, 2})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("coordinator 5 not in");
        assertThatThrownBy(() -> Ring.uRing(0, 3, new int[]{0, 1, 2})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs 4 members");
        assertThatThrownBy(() -> Ring.uRing(0, -1, new int[]{0})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Ring.mRing(1, new int[]{0, 1})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("twice");
        int[] big = new int[254];
        for (int i = 0; i < big.length; i++) {
            big[i] = i;
        }
        assertThat(new Ring(Ring.Kind.U_RING, big, 128).size()).isEqualTo(254);
    }

    @Test
    @DisplayName("a ring is immutable: the order is copied in and out; equal rings are equal")
    void immutableValue() {
        int[] order = {0, 1, 2};
        Ring r = new Ring(Ring.Kind.U_RING, order, 2);
        order[0] = 2;
        assertThat(r.first()).isZero();
        r.order()[1] = 9;
        assertThat(r.member(1)).isEqualTo(1);
        assertThat(r).isEqualTo(Ring.uRing(0, 1, new int[]{1, 2, 0})).hasSameHashCodeAs(Ring.uRing(0, 1, new int[]{2, 0, 1}));
        assertThat(r).isNotEqualTo(new Ring(Ring.Kind.U_RING, new int[]{0, 1, 2}, 3));
        assertThat(r).isNotEqualTo(new Ring(Ring.Kind.M_RING, new int[]{0, 1, 2}, 3));
        assertThat(new Ring(Ring.Kind.M_RING, new int[]{0, 1, 2}, 3)).isNotEqualTo(new Ring(Ring.Kind.U_RING, new int[]{0, 1, 2}, 3));
        assertThat(r).hasToString("U_RING[0, 1, 2]/2");
    }

    @Test
    @DisplayName("wire form kind:1 count:1 acceptors:1 id:1×count")
    void wireForm() {
        assertThat(Ring.uRing(0, 1, new int[]{0, 1, 2}).wireBytes()).isEqualTo(6);
        assertThat(Ring.Kind.ofCode(Ring.Kind.U_RING.code())).isEqualTo(Ring.Kind.U_RING);
        assertThat(Ring.Kind.ofCode(Ring.Kind.M_RING.code())).isEqualTo(Ring.Kind.M_RING);
        assertThat(Ring.Kind.U_RING.code()).isNotZero().isNotEqualTo(Ring.Kind.M_RING.code());
        assertThatThrownBy(() -> Ring.Kind.ofCode(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Ring.Kind.ofCode(3)).isInstanceOf(IllegalArgumentException.class);
    }
}
