package dev.parallax.examples.cli;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link CompletionTimeline} with injected times: completions land in the second and the 10 ms
 * slot they completed in, whenever the timeline is read. A control loop that read a counter once
 * per loop turn would lump the seconds of a turn that restarted a replica into one line and print
 * "0 writes/s" for the turns that caught up.
 */
class CompletionTimelineTest {
    private static final long ORIGIN = 1_000_000_000_000L; // any nanoTime value, not 0
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aLateReaderStillReadsEverySecondAsItWas() {
        CompletionTimeline timeline = new CompletionTimeline(Duration.ofSeconds(20), ORIGIN);
        // 1,000 writes per second, one every millisecond, for 10 s.
        for (long t = 0; t < 10 * S; t += MS) {
            timeline.record(ORIGIN + t, 500);
        }
        // The control loop reads seconds 1..5 on time, is then blocked (restarting a replica) and
        // reads seconds 6..9 all at once: each is still one second's worth.
        List<CompletionTimeline.Second> read = new ArrayList<>();
        for (int s = 1; s <= 9; s++) {
            read.add(timeline.second(s));
        }
        assertThat(read).extracting(CompletionTimeline.Second::completions).containsOnly(1_000L);
        assertThat(read).extracting(CompletionTimeline.Second::second).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(timeline.second(11).completions()).isZero();
    }

    @Test
    void aSecondCountsTheCompletionsThatEndedInItWithTheirLatencies() {
        CompletionTimeline timeline = new CompletionTimeline(Duration.ofSeconds(5), ORIGIN);
        for (int i = 0; i < 100; i++) {
            timeline.record(ORIGIN + S + i * MS, i < 50 ? 1_000 : 9_000); // second 2
        }
        timeline.record(ORIGIN + 2 * S - 1, 1_000); // the last nanosecond of second 2
        timeline.record(ORIGIN + 2 * S, 1_000);     // the first of second 3

        CompletionTimeline.Second second = timeline.second(2);
        assertThat(second.completions()).isEqualTo(101);
        assertThat(second.p50Us()).isBetween(990L, 1_010L);
        assertThat(second.p99Us()).isBetween(8_900L, 9_100L);
        assertThat(timeline.second(1)).isEqualTo(new CompletionTimeline.Second(1, 0, 0, 0));
        assertThat(timeline.second(3).completions()).isEqualTo(1);
    }

    @Test
    void completionsOutsideTheSpanOrBeforeTheOriginAreNotBucketed() {
        CompletionTimeline timeline = new CompletionTimeline(Duration.ofSeconds(2), ORIGIN);
        timeline.record(ORIGIN - 1, 100);
        timeline.record(ORIGIN + 2 * S, 100);
        timeline.record(ORIGIN + 5 * S, -7);
        assertThat(timeline.second(1).completions()).isZero();
        assertThat(timeline.second(2).completions()).isZero();
        assertThatThrownBy(() -> timeline.second(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> timeline.second(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CompletionTimeline(Duration.ZERO, ORIGIN)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void resetForgetsTheWarmUpAndMovesTheOrigin() {
        CompletionTimeline timeline = new CompletionTimeline(Duration.ofSeconds(10), ORIGIN);
        timeline.record(ORIGIN + 100 * MS, 100);
        timeline.record(ORIGIN + 3 * S, 100);
        timeline.reset(ORIGIN + 3 * S + 500 * MS);
        assertThat(timeline.origin()).isEqualTo(ORIGIN + 3 * S + 500 * MS);
        assertThat(timeline.second(1).completions()).isZero();
        timeline.record(ORIGIN + 4 * S, 700); // 0.5 s after the new origin
        CompletionTimeline.Second first = timeline.second(1);
        assertThat(first.completions()).isEqualTo(1);
        assertThat(first.p50Us()).isBetween(700L, 707L); // 2 significant digits
        assertThat(first.p99Us()).isEqualTo(first.p50Us());
    }

    @Test
    void theLongestGapIsTheLongestRunOfSlotsWithoutACompletion() {
        CompletionTimeline timeline = new CompletionTimeline(Duration.ofSeconds(10), ORIGIN);
        for (long t = 0; t < 10 * S; t += 5 * MS) {
            if (t < 3 * S || t >= 3 * S + 730 * MS) { // no completion for 730 ms after 3 s
                timeline.record(ORIGIN + t, 100);
            }
        }
        assertThat(timeline.longestGap(0, 10 * S)).isEqualTo(Duration.ofMillis(730));
        assertThat(timeline.longestGap(4 * S, 10 * S)).isZero();
        assertThat(timeline.longestGap(3 * S + 500 * MS, 20 * S)).isEqualTo(Duration.ofMillis(230));
    }

    @Test
    void aSecondOlderThanTheKeptLatenciesKeepsItsCountAndShowsNoPercentiles() {
        int span = CompletionTimeline.LATENCY_SECONDS + 2;
        CompletionTimeline timeline = new CompletionTimeline(Duration.ofSeconds(span), ORIGIN);
        for (int s = 0; s < span; s++) {
            timeline.record(ORIGIN + s * S, 100 + s);
        }
        assertThat(timeline.second(1)).isEqualTo(new CompletionTimeline.Second(1, 1, -1, -1));
        assertThat(timeline.second(span).completions()).isEqualTo(1);
        assertThat(timeline.second(span).p50Us()).isBetween(160L, 170L);
        assertThat(DemoCommand.timelineLine(timeline.second(1))).isEqualTo("    1 s          1 writes/s  p50      - us  p99       - us");
        assertThat(DemoCommand.timelineLine(new CompletionTimeline.Second(12, 41_250, 1_234, 56_789)))
                .isEqualTo("   12 s     41,250 writes/s  p50  1,234 us  p99  56,789 us");
    }
}
