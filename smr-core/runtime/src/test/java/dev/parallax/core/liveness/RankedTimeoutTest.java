package dev.parallax.core.liveness;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link RankedTimeout}: the member after the leader suspects first; ranks wrap around. */
class RankedTimeoutTest {

    @Test
    @DisplayName("timeout = suspect × (1 + rank/2), rank 0 right after the leader, wrapping around")
    void staggeredByRank() {
        long suspect = 1_000;
        // five members, leader 3: ranks 4→0, 0→1, 1→2, 2→3, 3 (the leader itself)→4
        assertThat(RankedTimeout.timeoutNanos(4, 3, 5, suspect)).isEqualTo(1_000);
        assertThat(RankedTimeout.timeoutNanos(0, 3, 5, suspect)).isEqualTo(1_500);
        assertThat(RankedTimeout.timeoutNanos(1, 3, 5, suspect)).isEqualTo(2_000);
        assertThat(RankedTimeout.timeoutNanos(2, 3, 5, suspect)).isEqualTo(2_500);
        assertThat(RankedTimeout.timeoutNanos(3, 3, 5, suspect)).isEqualTo(3_000);
        assertThat(RankedTimeout.timeoutNanos(0, 0, 1, suspect)).isEqualTo(1_000);
        assertThat(RankedTimeout.timeoutNanos(1, 0, 3, 0)).isZero();
    }

    @Test
    @DisplayName("a non-positive cluster size or a negative timeout is refused")
    void validated() {
        assertThatThrownBy(() -> RankedTimeout.timeoutNanos(0, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RankedTimeout.timeoutNanos(0, 0, 3, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
