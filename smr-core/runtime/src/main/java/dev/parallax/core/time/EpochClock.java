package dev.parallax.core.time;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A {@link Clock} whose readings are nanoseconds since the Unix epoch (1970-01-01T00:00Z): the wall
 * clock in milliseconds read once, at construction, plus the progress of {@link System#nanoTime()}
 * since then. Cores that need a time shared across machines read it as absolute time — Multi-Ring
 * Paxos' skip target λ·⌊now / 1 ms⌋ / 1000 (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1
 * l.13-20) lines the rings of different coordinators up only if their clocks agree on the origin.
 *
 * <p>Monotonic: readings never decrease (a later wall-clock step, NTP included, is not seen; the
 * clock drifts with the monotonic source instead), and every reading is at least the previous one
 * returned to any thread. Its accuracy against other machines is that of the wall clock at
 * construction (the skew between two coordinators' clocks is what they disagree on).
 *
 * <p>Thread-safe and non-blocking; never throws.
 */
public final class EpochClock implements Clock {
    private final long originNanos;
    private final long originEpochNanos;
    private final LongSupplier monotonic;
    private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);

    /** The wall clock now, extended by {@link System#nanoTime()}. */
    public EpochClock() {
        this(System.currentTimeMillis(), System::nanoTime);
    }

    /**
     * A clock that reads {@code epochMillis} now and advances with {@code monotonic} (tests).
     *
     * @param epochMillis the wall clock at construction, milliseconds since the Unix epoch (&gt;= 0)
     * @param monotonic   a monotonic nanosecond source, as {@link System#nanoTime()}
     * @throws IllegalArgumentException if {@code epochMillis} is negative or too large for nanoseconds
     */
    EpochClock(long epochMillis, LongSupplier monotonic) {
        if (epochMillis < 0 || epochMillis > Long.MAX_VALUE / 1_000_000) {
            throw new IllegalArgumentException("epoch milliseconds out of range: " + epochMillis);
        }
        this.monotonic = monotonic;
        this.originEpochNanos = epochMillis * 1_000_000;
        this.originNanos = monotonic.getAsLong();
    }

    /**
     * Nanoseconds since the Unix epoch: the wall clock at construction plus the monotonic progress
     * since, never less than a reading returned before. Thread-safe, non-blocking, never throws.
     */
    @Override
    public long nanoTime() {
        long now = originEpochNanos + (monotonic.getAsLong() - originNanos);
        return last.accumulateAndGet(now, Math::max);
    }

    @Override
    public String toString() {
        return "EpochClock";
    }
}
