package dev.parallax.core.check;

import java.time.Duration;
import java.util.Objects;

/**
 * How much work a {@link LinearizabilityChecker} may spend before answering
 * {@link Verdict#UNKNOWN}: wall-clock time (measured with {@link System#nanoTime()}) and search
 * steps (one step tries one list entry; deterministic, so tests and simulations use it), both over
 * all partitions together. Immutable and therefore thread-safe.
 *
 * @param time the wall-clock limit; {@link #UNLIMITED_TIME} for none
 * @param steps the step limit; {@link Long#MAX_VALUE} for none
 */
public record CheckBudget(Duration time, long steps) {

    /** The time limit that never runs out. */
    public static final Duration UNLIMITED_TIME = Duration.ofNanos(Long.MAX_VALUE);

    private static final CheckBudget UNLIMITED = new CheckBudget(UNLIMITED_TIME, Long.MAX_VALUE);

    /**
     * Validates the limits.
     *
     * @throws NullPointerException if {@code time} is null
     * @throws IllegalArgumentException if a limit is negative
     */
    public CheckBudget {
        Objects.requireNonNull(time, "time");
        if (time.isNegative() || steps < 0) {
            throw new IllegalArgumentException("negative budget: " + time + ", " + steps + " steps");
        }
    }

    /** No limit. Non-blocking. */
    public static CheckBudget unlimited() {
        return UNLIMITED;
    }

    /**
     * At most {@code time} of wall-clock time. Non-blocking.
     *
     * @throws NullPointerException if {@code time} is null
     * @throws IllegalArgumentException if {@code time} is negative
     */
    public static CheckBudget ofTime(Duration time) {
        return new CheckBudget(time, Long.MAX_VALUE);
    }

    /**
     * At most {@code steps} search steps. Non-blocking.
     *
     * @throws IllegalArgumentException if {@code steps} is negative
     */
    public static CheckBudget ofSteps(long steps) {
        return new CheckBudget(UNLIMITED_TIME, steps);
    }

    /** The time limit in nanoseconds, saturated at {@link Long#MAX_VALUE}. Non-blocking. */
    public long timeNanos() {
        try {
            return time.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
