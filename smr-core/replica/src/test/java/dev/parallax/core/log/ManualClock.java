package dev.parallax.core.log;

import dev.parallax.core.time.Clock;

import java.time.Duration;

/** A clock that moves only when told to; confined to the test thread. */
final class ManualClock implements Clock {
    private long nanos = 1_000_000_000L;

    void advance(Duration d) {
        nanos += d.toNanos();
    }

    @Override
    public long nanoTime() {
        return nanos;
    }
}
