package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** M3, 2Bs that overtook their 2A (seed 003 (Ring Paxos) Alg. 2 l.28–32). */
class Phase2BChainTest {
    private static final ValueId A = new ValueId(0, 1, 1);
    private static final ValueId B = new ValueId(1, 1, 1);

    @Test
    @DisplayName("M3 (Alg. 2 l.30): a held 2B is released when this acceptor votes the same id in the same round")
    void releasedOnMatchingVote() {
        Phase2BChain c = new Phase2BChain();
        assertThat(c.hold(5, 3, A, 8)).isTrue();
        assertThat(c.release(4, 3, A)).isFalse();
        assertThat(c.release(5, 3, A)).isTrue();
        assertThat(c.size()).isZero();
        assertThat(c.release(5, 3, A)).as("released once").isFalse();
    }

    @Test
    @DisplayName("M3: a vote for another id or round drops the held 2B instead of forwarding it")
    void mismatchDrops() {
        Phase2BChain c = new Phase2BChain();
        c.hold(5, 3, A, 8);
        assertThat(c.release(5, 3, B)).isFalse();
        assertThat(c.size()).isZero();
        c.hold(6, 3, A, 8);
        assertThat(c.release(6, 4, A)).isFalse();
        assertThat(c.size()).isZero();
        c.hold(7, 5, A, 8);
        assertThat(c.release(7, 4, A)).as("an older round's vote leaves a newer 2B held").isFalse();
        assertThat(c.size()).isEqualTo(1);
    }

    @Test
    @DisplayName("M3: pending 2Bs are bounded by the window; beyond, refused and counted")
    void bounded() {
        Phase2BChain c = new Phase2BChain();
        assertThat(c.hold(0, 1, A, 2)).isTrue();
        assertThat(c.hold(1, 1, A, 2)).isTrue();
        assertThat(c.hold(2, 1, A, 2)).isFalse();
        assertThat(c.hold(1, 2, B, 2)).as("replacing an instance's entry takes no room").isTrue();
        assertThat(c.refused()).isEqualTo(1);
        assertThat(c.size()).isEqualTo(2);
    }

    @Test
    @DisplayName("M3: held 2Bs of decided instances and of older rounds are forgotten")
    void forget() {
        Phase2BChain c = new Phase2BChain();
        c.hold(0, 1, A, 8);
        c.hold(5, 1, A, 8);
        c.hold(6, 2, A, 8);
        c.forget(3, 2);
        assertThat(c.size()).isEqualTo(1);
        assertThat(c.release(6, 2, A)).isTrue();
    }
}
