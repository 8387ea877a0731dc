package dev.parallax.core.testkit;

import dev.parallax.core.time.Clock;

/**
 * A clock that moves only when the simulator advances it. Starts at 0.
 *
 * <p>Not thread-safe: the simulator's thread owns it.
 */
public final class VirtualClock implements Clock {
    private long now;

    @Override
    public long nanoTime() {
        return now;
    }

    /** Moves the clock to {@code time}. @throws IllegalArgumentException if that is in the past */
    void advanceTo(long time) {
        if (time < now) {
            throw new IllegalArgumentException("time cannot go back: " + time + " < " + now);
        }
        now = time;
    }
}
