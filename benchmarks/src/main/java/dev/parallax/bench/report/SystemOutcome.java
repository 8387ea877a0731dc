package dev.parallax.bench.report;

import dev.parallax.bench.load.SweepResult;

import java.util.Objects;
import java.util.Optional;

/**
 * What a comparison got from one system: its sweep, or why it has none (it failed to start or to
 * run). Immutable.
 *
 * @param system  the system's name
 * @param sweep   its sweep, or null if it failed
 * @param failure why it failed, or null if it has a sweep
 */
public record SystemOutcome(String system, SweepResult sweep, String failure) {
    /** @throws IllegalArgumentException unless exactly one of {@code sweep} and {@code failure} is given */
    public SystemOutcome {
        Objects.requireNonNull(system, "system");
        if ((sweep == null) == (failure == null)) {
            throw new IllegalArgumentException("give a sweep or a failure, not both or neither");
        }
    }

    /** A system that was swept. */
    public static SystemOutcome of(SweepResult sweep) {
        return new SystemOutcome(sweep.system(), sweep, null);
    }

    /** A system that could not be swept, and why. */
    public static SystemOutcome failed(String system, String why) {
        return new SystemOutcome(system, null, why);
    }

    /** The sweep, if the system was swept. */
    public Optional<SweepResult> result() {
        return Optional.ofNullable(sweep);
    }
}
