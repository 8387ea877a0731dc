package dev.parallax.core.time;

/**
 * A source of monotonic time in nanoseconds, injected wherever Parallax measures elapsed time so
 * that tests and the deterministic simulator can substitute a virtual clock.
 *
 * <p>Only differences between two readings of the same clock are meaningful; the origin is
 * arbitrary, as for {@link System#nanoTime()}. Implementations must not block and must not throw.
 * A clock shared between threads (such as {@link SystemClock}) must be thread-safe; a virtual clock
 * confined to the simulator's thread need not be.
 */
@FunctionalInterface
public interface Clock {

    /**
     * Returns the current reading of this clock.
     *
     * <p>Non-blocking; thread-safe if the implementation is. Readings taken by one thread never
     * decrease.
     *
     * @return the current time in nanoseconds from an arbitrary origin
     */
    long nanoTime();
}
