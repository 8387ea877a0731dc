package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** M6, the M-Ring coordinator's AIMD window (seed 003 (Ring Paxos) §3.3.6). */
class FlowControlTest {
    private static final long MS = 1_000_000L;
    /** Two heartbeats of 50 ms: how long a report holds the window. */
    private static final long FRESH = 100 * MS;

    /** Three members, window 1..32, threshold 256, ÷2 per 10 ms, +1 per 5 ms, reports fresh for 100 ms. */
    private static FlowControl fc() {
        return new FlowControl(3, 1, 32, 256, 10 * MS, 5 * MS, FRESH, 0);
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
        assertThat(fc.report(1, 255, MS)).isFalse();
        assertThat(fc.window(MS)).isEqualTo(32);
        assertThat(fc.report(1, 256, MS)).isTrue();
        assertThat(fc.window(MS)).isEqualTo(16);
        assertThat(fc.decreases()).isEqualTo(1);
    }

    @Test
    @DisplayName("M6: at most one halving per mring.fc.decrease, whatever the number of reports and reporters")
    void oncePerDecreasePeriod() {
        FlowControl fc = fc();
        fc.report(1, 1000, 0);
        assertThat(fc.report(1, 1000, 3 * MS)).isFalse();
        assertThat(fc.report(2, 1000, 6 * MS)).as("another member inside the period").isFalse();
        assertThat(fc.window(9 * MS)).isEqualTo(16);
        assertThat(fc.report(1, 1000, 10 * MS)).isTrue();
        assertThat(fc.window(10 * MS)).isEqualTo(8);
    }

    @Test
    @DisplayName("M6 (§3.3.6 \"gradually increases its window size\"): +1 per mring.fc.increase once no fresh report is high, up to max")
    void regrows() {
        FlowControl fc = fc();
        fc.report(1, 1000, 0);
        assertThat(fc.window(FRESH - 1)).as("the report holds the window for two heartbeats").isEqualTo(16);
        assertThat(fc.window(FRESH + 4 * MS)).isEqualTo(16);
        assertThat(fc.window(FRESH + 5 * MS)).isEqualTo(17);
        assertThat(fc.window(FRESH + 27 * MS)).isEqualTo(21);
        assertThat(fc.window(10_000 * MS)).isEqualTo(32);
        assertThat(fc.increases()).isEqualTo(16);
    }

    @Test
    @DisplayName("M6 (B6): a learner reporting a high backlog on every heartbeat keeps the window at the minimum until it reports a low one")
    void highOnEveryHeartbeatHoldsTheMinimum() {
        FlowControl fc = fc();
        long t = 0;
        for (; t <= 2_000 * MS; t += 50 * MS) {
            fc.report(2, 300, t);
            assertThat(fc.window(t + 49 * MS)).as("at %d ms", t / MS).isLessThanOrEqualTo(32 >> Math.min(5, t / (50 * MS) + 1));
        }
        assertThat(fc.window(t)).isEqualTo(1);
        assertThat(fc.decreases()).isEqualTo(5);
        assertThat(fc.increases()).as("no growth between the reports").isZero();
        fc.report(2, 10, t);
        assertThat(fc.window(t + 4 * MS)).isEqualTo(1);
        assertThat(fc.window(t + 5 * MS)).as("a low report releases the hold at once").isEqualTo(2);
        assertThat(fc.window(t + 31 * 5 * MS)).isEqualTo(32);
    }

    @Test
    @DisplayName("M6: the window grows only while every member's latest fresh report is below the threshold")
    void everyMemberMustBeLow() {
        FlowControl fc = fc();
        fc.report(1, 1000, 0);
        fc.report(2, 0, 10 * MS);
        assertThat(fc.window(60 * MS)).as("member 1's high report still holds it").isEqualTo(16);
        fc.report(1, 0, 60 * MS);
        assertThat(fc.window(65 * MS)).isEqualTo(17);
        fc.report(2, 500, 70 * MS);
        assertThat(fc.window(70 * MS)).isEqualTo(9);
        assertThat(fc.window(150 * MS)).isEqualTo(9);
    }

    @Test
    @DisplayName("M6: a member silent for two heartbeats no longer holds the window (its report is stale)")
    void staleReportsAreIgnored() {
        FlowControl fc = fc();
        fc.report(2, 1000, 0);
        assertThat(fc.window(FRESH - 1)).isEqualTo(16);
        assertThat(fc.window(FRESH + 10 * MS)).isEqualTo(18);
    }

    @Test
    @DisplayName("M6: reports keep the window from growing even when they cannot halve it again")
    void reportsHoldGrowth() {
        FlowControl fc = fc();
        fc.report(1, 1000, 0);
        for (long t = 4 * MS; t < 100 * MS; t += 4 * MS) {
            fc.report(1, 300, t); // every 4 ms: halves at most every 10 ms, never grows
        }
        assertThat(fc.window(100 * MS)).isEqualTo(1);
    }

    @Test
    @DisplayName("M6: never below mring.window.min")
    void floor() {
        FlowControl fc = new FlowControl(2, 4, 32, 1, MS, 1000 * MS, FRESH, 0);
        for (int i = 0; i < 10; i++) {
            fc.report(1, 5, i * MS);
        }
        assertThat(fc.window(10 * MS)).isEqualTo(4);
        assertThat(fc.decreases()).isEqualTo(3);
    }

    @Test
    @DisplayName("bad input: a report of an unknown member or a negative backlog is counted and ignored")
    void badReports() {
        FlowControl fc = fc();
        assertThat(fc.report(3, 1000, 0)).isFalse();
        assertThat(fc.report(-1, 1000, 0)).isFalse();
        assertThat(fc.report(1, -5, 0)).isFalse();
        assertThat(fc.window(0)).isEqualTo(32);
        assertThat(fc.ignoredReports()).isEqualTo(3);
    }

    @Test
    @DisplayName("configuration errors are refused with a clear message")
    void validation() {
        assertThatThrownBy(() -> new FlowControl(0, 1, 4, 1, MS, MS, MS, 0)).hasMessageContaining("member");
        assertThatThrownBy(() -> new FlowControl(3, 0, 4, 1, MS, MS, MS, 0)).hasMessageContaining("min");
        assertThatThrownBy(() -> new FlowControl(3, 5, 4, 1, MS, MS, MS, 0)).hasMessageContaining("min");
        assertThatThrownBy(() -> new FlowControl(3, 1, 4, 0, MS, MS, MS, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FlowControl(3, 1, 4, 1, MS, MS, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
