package dev.parallax.bench.load;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A sweep of one system: the runs at each load level, in order, and why it stopped. Immutable.
 *
 * @param system     what was measured
 * @param base       the load of every level but its outstanding count
 * @param points     the levels run, in order (at least one)
 * @param stopReason why no further level was run
 */
public record SweepResult(String system, LoadSpec base, List<SweepPoint> points, String stopReason) {
    public SweepResult {
        points = List.copyOf(points);
        if (points.isEmpty()) {
            throw new IllegalArgumentException("a sweep has at least one point");
        }
    }

    /** The level with the highest throughput. */
    public SweepPoint best() {
        return points.stream().max(Comparator.comparingDouble(SweepPoint::throughput)).orElseThrow();
    }

    /** The level with the highest throughput whose p99 is at most {@code p99Us}, if any. */
    public Optional<SweepPoint> bestWithin(long p99Us) {
        return points.stream().filter(p -> p.p99Us() <= p99Us).max(Comparator.comparingDouble(SweepPoint::throughput));
    }
}
