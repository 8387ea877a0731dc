package dev.parallax.core.multicast;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The duplicate record: first decisions only, in any order, within a bounded window per origin. */
class OriginSequencesTest {
    private static final int W = OriginSequences.WINDOW;

    @Test
    void eachSequenceNumberIsNewOnceInAnyOrder() {
        OriginSequences r = new OriginSequences(2);
        assertThat(r.firstDecision(0, 10)).isTrue();
        assertThat(r.firstDecision(0, 12)).isTrue();
        assertThat(r.seen(0, 11)).isFalse();
        assertThat(r.firstDecision(0, 11)).as("decided after a later one: a resent dropped forward").isTrue();
        assertThat(r.seen(0, 11)).isTrue();
        assertThat(r.firstDecision(0, 11)).isFalse();
        assertThat(r.firstDecision(0, 10)).isFalse();
        assertThat(r.firstDecision(1, 10)).as("origins are apart").isTrue();
        assertThat(r.firstDecision(0, 0)).as("the first message of an origin opens a window ending at it").isTrue();
        assertThat(r.firstDecision(0, 0)).isFalse();
    }

    @Test
    void theWindowMovesUpToANumberBeyondItAndDropsWhatFallsBelow() {
        OriginSequences r = new OriginSequences(1);
        assertThat(r.firstDecision(0, 5)).isTrue();
        assertThat(r.firstDecision(0, 7)).isTrue(); // 6 outstanding
        long far = 5 + 3L * W;
        assertThat(r.firstDecision(0, far)).as("a given-up hole, or a new run of the origin").isTrue();
        assertThat(r.firstDecision(0, 6)).as("below the window: the origin had given it up").isFalse();
        assertThat(r.firstDecision(0, 7)).isFalse();
        assertThat(r.firstDecision(0, far - W + 1)).as("the lowest number still in the window").isTrue();
        assertThat(r.firstDecision(0, far - W)).isFalse();
        assertThat(r.firstDecision(0, far)).isFalse();
        assertThat(r.firstDecision(0, far + W / 2)).as("a slide by half a window keeps the upper half").isTrue();
        assertThat(r.firstDecision(0, far)).isFalse();
        assertThat(r.firstDecision(0, far - 1)).isTrue();
    }

    @Test
    void aLongRunInOrderKeepsTheRecordBoundedAndExact() {
        OriginSequences r = new OriginSequences(1);
        long start = 1L << 40;
        for (long s = start; s < start + 10L * W; s++) {
            assertThat(r.firstDecision(0, s)).isTrue();
            if (s % 97 == 0) {
                assertThat(r.firstDecision(0, s - 1)).isFalse();
            }
        }
        assertThat(r.seen(0, start)).isTrue();
        assertThat(r.seen(0, start + 10L * W)).isFalse();
    }

    @Test
    void resetForgetsEverythingAndBadInputIsRefused() {
        OriginSequences r = new OriginSequences(1);
        assertThat(r.firstDecision(0, 3)).isTrue();
        r.reset();
        assertThat(r.seen(0, 3)).isFalse();
        assertThat(r.firstDecision(0, 3)).isTrue();
        assertThat(r.seen(5, 3)).isFalse();
        assertThatThrownBy(() -> r.firstDecision(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> r.firstDecision(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
