package dev.parallax.core.seq;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bounded first-time-or-duplicate record of one origin stream. */
class SequenceWindowTest {
    private static final int W = SequenceWindow.WINDOW;

    @Test
    @DisplayName("each number is new once, in any order; the base rises over the contiguous prefix")
    void firstDecisionOncePerNumber() {
        SequenceWindow w = SequenceWindow.openingAt(1);
        assertThat(w.base()).isZero();
        assertThat(w.firstDecision(2)).isTrue();
        assertThat(w.firstDecision(1)).isTrue();
        assertThat(w.base()).as("0 never numbered: the base stays below it").isZero();
        assertThat(w.firstDecision(0)).isTrue();
        assertThat(w.base()).isEqualTo(3);
        assertThat(w.firstDecision(2)).isFalse();
        assertThat(w.firstDecision(5)).isTrue();
        assertThat(w.seen(4)).isFalse();
        assertThat(w.seen(5)).isTrue();
        assertThat(w.firstDecision(4)).isTrue();
        assertThat(w.firstDecision(3)).isTrue();
        assertThat(w.base()).isEqualTo(6);
    }

    @Test
    @DisplayName("the first number opens a window ending at it; a far number slides the window")
    void openingAndSliding() {
        SequenceWindow w = SequenceWindow.openingAt(5000);
        assertThat(w.base()).isEqualTo(5000 - W + 1);
        assertThat(w.seen(5000 - W)).isTrue();
        assertThat(w.firstDecision(5000)).isTrue();
        assertThat(w.firstDecision(5000 + 2L * W)).isTrue();
        assertThat(w.firstDecision(5000)).as("slid below the window").isFalse();
        assertThat(w.firstDecision(5001 + W)).as("the lowest still in the window").isTrue();
        assertThatThrownBy(() -> w.firstDecision(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SequenceWindow.openingAt(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SequenceWindow.openingAt(3, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThat(SequenceWindow.openingAt(3, 1).base()).as("numbers below the first count as seen").isEqualTo(1);
        assertThat(w.seen(-1)).isFalse();
    }

    @Test
    @DisplayName("agrees with an exact set while numbers stay within one window of the lowest unseen")
    void agreesWithAnExactSet() {
        Random rnd = new Random(42);
        SequenceWindow w = SequenceWindow.openingAt(1);
        TreeSet<Long> seen = new TreeSet<>();
        long lowest = 1;
        for (int i = 0; i < 20_000; i++) {
            long s = lowest + rnd.nextInt(W);
            boolean fresh = seen.add(s);
            assertThat(w.firstDecision(s)).isEqualTo(fresh);
            while (seen.contains(lowest)) {
                lowest++;
            }
            if (rnd.nextInt(10) == 0) {
                long dup = Math.max(1, lowest - rnd.nextInt(2 * W));
                assertThat(w.firstDecision(dup)).as("a copy of %s", dup).isEqualTo(!seen.contains(dup) && dup >= lowest && seen.add(dup));
            }
        }
    }

    @Test
    @DisplayName("writeTo/readFrom round trip; corrupt bytes are refused")
    void roundTrip() {
        SequenceWindow w = SequenceWindow.openingAt(3000);
        for (long s : new long[] {3000, 2500, 3010, 2100}) {
            w.firstDecision(s);
        }
        ByteBuffer b = ByteBuffer.allocate(SequenceWindow.BYTES);
        w.writeTo(b);
        SequenceWindow back = SequenceWindow.readFrom(b.flip());
        assertThat(back).isEqualTo(w);
        assertThat(back.firstDecision(3010)).isFalse();
        assertThat(back.firstDecision(3011)).isTrue();
        assertThatThrownBy(() -> SequenceWindow.readFrom(ByteBuffer.allocate(SequenceWindow.BYTES - 1)))
                .isInstanceOf(IllegalArgumentException.class);
        ByteBuffer negative = ByteBuffer.allocate(SequenceWindow.BYTES).putLong(0, -5);
        assertThatThrownBy(() -> SequenceWindow.readFrom(negative)).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer baseSet = ByteBuffer.allocate(SequenceWindow.BYTES).putLong(0, 0).putLong(8, 1L);
        assertThatThrownBy(() -> SequenceWindow.readFrom(baseSet)).isInstanceOf(IllegalArgumentException.class);
    }
}
