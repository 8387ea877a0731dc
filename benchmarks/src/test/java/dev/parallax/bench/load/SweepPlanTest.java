package dev.parallax.bench.load;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SweepPlanTest {
    private static final LoadSpec BASE = new LoadSpec(4, 1, 32, 0, 100, Duration.ZERO, Duration.ofSeconds(1));
    private static final SweepPlan PLAN = new SweepPlan(1, 4, 4096, 0.05, 2, 100_000);

    /** A level answering {@code throughput} ops in one second with p99 {@code p99Us} and {@code failed} failures. */
    static SweepPoint point(int outstanding, double throughput, long p99Us, long failed) {
        BenchResult r = new BenchResult("sys", BASE.withOutstanding(outstanding), Math.round(throughput), failed, 1.0,
                Map.of("p50", p99Us / 2, "p99", p99Us), List.of(), Map.of("load", throughput / 1e6));
        return new SweepPoint(outstanding, r);
    }

    private static List<SweepPoint> run(double... throughputs) {
        List<SweepPoint> points = new ArrayList<>();
        int w = 1;
        for (double t : throughputs) {
            points.add(point(w, t, 1_000, 0));
            w *= 4;
        }
        return points;
    }

    @Test
    void levelsRiseByTheFactorUpToTheMax() {
        assertThat(PLAN.levels()).containsExactly(1, 4, 16, 64, 256, 1024, 4096);
        assertThat(new SweepPlan(2, 2, 20, 0.05, 2, 1).levels()).containsExactly(2, 4, 8, 16);
        assertThat(SweepPlan.defaults().levels()).startsWith(1, 4).endsWith(4096);
    }

    @Test
    void goesOnWhileThroughputGrows() {
        assertThat(PLAN.stopReason(List.of())).isEmpty();
        assertThat(PLAN.stopReason(run(100))).isEmpty();
        assertThat(PLAN.stopReason(run(100, 400, 1000))).isEmpty();
    }

    @Test
    void oneFlatLevelIsNotEnoughToStop() {
        assertThat(PLAN.stopReason(run(100, 400, 410))).isEmpty();
        assertThat(PLAN.stopReason(run(100, 400, 410, 600))).isEmpty();
    }

    @Test
    void stopsAfterTwoLevelsBelowFivePercentOverTheBestBefore() {
        assertThat(PLAN.stopReason(run(100, 400, 410, 415))).hasValueSatisfying(r -> assertThat(r).contains("grew < 5 %"));
        assertThat(PLAN.stopReason(run(100, 400, 300, 419))).hasValueSatisfying(r -> assertThat(r).contains("2 levels"));
    }

    @Test
    void aGainJustAboveTheMinimumCountsAsGrowth() {
        assertThat(PLAN.stopReason(run(100, 400, 421, 415))).isEmpty();
    }

    @Test
    void stopsWhenLatencyExplodesOrCommandsFail() {
        List<SweepPoint> slow = new ArrayList<>(run(100, 400));
        slow.add(point(16, 900, 100_001, 0));
        assertThat(PLAN.stopReason(slow)).hasValueSatisfying(r -> assertThat(r).contains("p99 100.0 ms above"));
        List<SweepPoint> failing = new ArrayList<>(run(100));
        failing.add(point(4, 400, 1_000, 3));
        assertThat(PLAN.stopReason(failing)).hasValueSatisfying(r -> assertThat(r).startsWith("3 commands failed"));
    }

    @Test
    void stopsAtTheLargestLevel() {
        SweepPlan small = new SweepPlan(1, 4, 16, 0.05, 2, 100_000);
        assertThat(small.stopReason(run(100, 400))).isEmpty();
        assertThat(small.stopReason(run(100, 400, 1600))).hasValueSatisfying(r -> assertThat(r).contains("largest level, 16"));
    }

    @Test
    void boundsAreValidated() {
        assertThatThrownBy(() -> new SweepPlan(0, 4, 16, 0.05, 2, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SweepPlan(1, 1, 16, 0.05, 2, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SweepPlan(8, 2, 4, 0.05, 2, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBestLevelAndTheBestWithinALatencyTarget() {
        List<SweepPoint> points = List.of(point(1, 100, 500, 0), point(4, 400, 2_000, 0), point(16, 500, 9_000, 0));
        SweepResult s = new SweepResult("sys", BASE, points, "done");
        assertThat(s.best().outstanding()).isEqualTo(16);
        assertThat(s.bestWithin(5_000)).hasValueSatisfying(p -> assertThat(p.outstanding()).isEqualTo(4));
        assertThat(s.bestWithin(100)).isEmpty();
    }
}
