package dev.parallax.core.time;

/** A source of monotonic time in nanoseconds. Implementations are thread-safe. */
public interface Clock {
    /** Monotonic nanoseconds; only differences are meaningful. */
    long nanoTime();
}
