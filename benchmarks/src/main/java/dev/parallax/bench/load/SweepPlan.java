package dev.parallax.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The load levels of a sweep and when it stops. Levels are {@code from}, {@code from * factor}, ...
 * up to {@code max} outstanding commands per connection. After each level the sweep stops when:
 * the level had failed commands; its p99 exceeds {@code maxP99Us} (latency exploded); each of the
 * last {@code patience} levels gained less than {@code minGain} (a fraction) over the best
 * throughput before it (throughput stopped growing); or the next level would exceed {@code max}.
 * Immutable; {@link #stopReason} is a pure function.
 *
 * @param from      first level (outstanding per connection), >= 1
 * @param factor    ratio between levels, >= 2
 * @param max       last level allowed
 * @param minGain   smallest gain that counts as growth, e.g. 0.05
 * @param patience  levels in a row without growth before stopping, >= 1
 * @param maxP99Us  p99 (microseconds) beyond which the sweep stops
 */
public record SweepPlan(int from, int factor, int max, double minGain, int patience, long maxP99Us) {
    /** @throws IllegalArgumentException if a bound is out of range */
    public SweepPlan {
        if (from < 1 || factor < 2 || max < from || minGain < 0 || patience < 1 || maxP99Us < 1) {
            throw new IllegalArgumentException("need from >= 1, factor >= 2, max >= from, minGain >= 0, "
                    + "patience >= 1, maxP99Us >= 1");
        }
    }

    /** Levels 1, 4, 16, ... 4096; stop after two levels under 5 % gain or a p99 above 1 s. */
    public static SweepPlan defaults() {
        return new SweepPlan(1, 4, 4096, 0.05, 2, 1_000_000);
    }

    /** Every level the plan allows, in order. */
    public List<Integer> levels() {
        List<Integer> levels = new ArrayList<>();
        for (long w = from; w <= max; w *= factor) {
            levels.add((int) w);
        }
        return List.copyOf(levels);
    }

    /**
     * Why the sweep stops after {@code points} (in the order run), or empty to go on with the next
     * level.
     */
    public Optional<String> stopReason(List<SweepPoint> points) {
        if (points.isEmpty()) {
            return Optional.empty();
        }
        SweepPoint last = points.get(points.size() - 1);
        if (last.result().failed() > 0) {
            return Optional.of(last.result().failed() + " commands failed at " + last.outstanding() + " outstanding");
        }
        if (last.p99Us() > maxP99Us) {
            return Optional.of(String.format(Locale.ROOT, "p99 %.1f ms above the %.1f ms limit",
                    last.p99Us() / 1e3, maxP99Us / 1e3));
        }
        if (points.size() > patience && lastLevelsFlat(points)) {
            return Optional.of(String.format(Locale.ROOT, "throughput grew < %.0f %% for %d levels",
                    minGain * 100, patience));
        }
        if ((long) last.outstanding() * factor > max) {
            return Optional.of("reached the largest level, " + last.outstanding());
        }
        return Optional.empty();
    }

    private boolean lastLevelsFlat(List<SweepPoint> points) {
        for (int k = points.size() - patience; k < points.size(); k++) {
            double bestBefore = 0;
            for (int i = 0; i < k; i++) {
                bestBefore = Math.max(bestBefore, points.get(i).throughput());
            }
            if (points.get(k).throughput() >= bestBefore * (1 + minGain)) {
                return false;
            }
        }
        return true;
    }
}
