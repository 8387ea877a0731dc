package dev.parallax.core.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;

/**
 * Builds the latency timers of a replica (command, commit and fsync latency) with one set of
 * histogram buckets, so that dashboards and alerts can compare them: from 50 µs to 10 s, about
 * three per decade ({@link #BUCKETS}). Prometheus exports each as a histogram in seconds
 * ({@code _seconds_bucket}, {@code _seconds_count}, {@code _seconds_sum}) and a
 * {@code _seconds_max} gauge. Recording into such a timer allocates nothing.
 *
 * <p>Stateless and thread-safe; {@link #register} may block briefly on the registry's lock.
 */
public final class LatencyTimers {
    /** The histogram's upper bounds. */
    static final Duration[] BUCKETS = {
            Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
            Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5), Duration.ofMillis(10),
            Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
            Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
            Duration.ofSeconds(10)};

    private LatencyTimers() {
    }

    /**
     * The timer {@code name} with {@code description} and the tags {@code tags} (name, value
     * pairs), registered in {@code registry} (or the one registered there already).
     *
     * @throws IllegalArgumentException if {@code description} is blank or {@code tags} has an odd length
     */
    public static Timer register(MeterRegistry registry, String name, String description, String... tags) {
        if (description == null || description.isBlank()) {
            throw new IllegalArgumentException("a description is needed for " + name);
        }
        return Timer.builder(name).description(description).tags(tags).serviceLevelObjectives(BUCKETS)
                .minimumExpectedValue(BUCKETS[0]).maximumExpectedValue(BUCKETS[BUCKETS.length - 1]).register(registry);
    }
}
