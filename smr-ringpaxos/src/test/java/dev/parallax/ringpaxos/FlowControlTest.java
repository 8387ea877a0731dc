package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** M6, the M-Ring coordinator's AIMD window (seed 003 (Ring Paxos) §3.3.6). */
class FlowControlTest {
    private static final long MS = 1_000_000L;

    private static FlowControl fc() {
        return new FlowControl(1, 32, 256, 10 * MS, 5 * MS, 0);
    }

    @Test
    @DisplayName("M6 (§3.3.6): the window starts at ring.window and stays there without notifications")
    void startsAtMax() {
        FlowControl fc = fc();
        assertThat(fc.window(0)).isEqualTo(32);
        assertThat(fc.window(1_000 * MS)).isEqualTo(32);
        assertThat(fc.increases()).isZero();
    }

    @Test
    @DisplayName("M6 (§3.3.6 \"reduces the window\"): a backlog at the threshold halves it; below it changes nothing")
    void backlogHalves() {
        FlowControl fc = fc();
        assertThat(fc.report(255, MS)).isFalse();
        assertThat(fc.window(MS)).isEqualTo(32);
        assertThat(fc.report(256, MS)).isTrue();
        assertThat(fc.window(MS)).isEqualTo(16);
        assertThat(fc.decreases()).isEqualTo(1);
    }

    @Test
    @DisplayName("M6: at most one halving per mring.fc.decrease, whatever the number of reports")
    void oncePerDecreasePeriod() {
        FlowControl fc = fc();
        fc.report(1000, 0);
        assertThat(fc.report(1000, 3 * MS)).isFalse();
        assertThat(fc.report(1000, 6 * MS)).isFalse();
        assertThat(fc.window(9 * MS)).as("reports 3 ms apart: no growth either").isEqualTo(16);
        assertThat(fc.report(1000, 10 * MS)).isTrue();
        assertThat(fc.window(10 * MS)).isEqualTo(8);
    }

    @Test
    @DisplayName("M6 (§3.3.6 \"gradually increases its window size\"): +1 per mring.fc.increase without a notification, up to max")
    void regrows() {
        FlowControl fc = fc();
        fc.report(1000, 0);
        assertThat(fc.window(4 * MS)).isEqualTo(16);
        assertThat(fc.window(5 * MS)).isEqualTo(17);
        assertThat(fc.window(27 * MS)).isEqualTo(21);
        assertThat(fc.window(10_000 * MS)).isEqualTo(32);
        assertThat(fc.increases()).isEqualTo(16);
    }

    @Test
    @DisplayName("M6: reports keep the window from growing even when they cannot halve it again")
    void reportsHoldGrowth() {
        FlowControl fc = fc();
        fc.report(1000, 0);
        for (long t = 4 * MS; t < 100 * MS; t += 4 * MS) {
            fc.report(300, t); // every 4 ms: halves at most every 10 ms, never grows
        }
        assertThat(fc.window(100 * MS)).isEqualTo(1);
    }

    @Test
    @DisplayName("M6: never below mring.window.min")
    void floor() {
        FlowControl fc = new FlowControl(4, 32, 1, MS, 1000 * MS, 0);
        for (int i = 0; i < 10; i++) {
            fc.report(5, i * MS);
        }
        assertThat(fc.window(10 * MS)).isEqualTo(4);
        assertThat(fc.decreases()).isEqualTo(3);
    }

    @Test
    @DisplayName("configuration errors are refused with a clear message")
    void validation() {
        assertThatThrownBy(() -> new FlowControl(0, 4, 1, MS, MS, 0)).hasMessageContaining("min");
        assertThatThrownBy(() -> new FlowControl(5, 4, 1, MS, MS, 0)).hasMessageContaining("min");
        assertThatThrownBy(() -> new FlowControl(1, 4, 0, MS, MS, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
