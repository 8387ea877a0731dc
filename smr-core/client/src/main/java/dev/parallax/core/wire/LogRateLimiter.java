package dev.parallax.core.wire;

import org.slf4j.Logger;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Keeps a flood of one kind of warning (bad frames, stale partial frames, broken client
 * connections) from flooding the log: at most {@code maxLines} lines per interval; the lines beyond
 * are dropped and counted, and the first line of a later interval is preceded by one summary line,
 * {@code "<what>: suppressed k similar warnings in the last s s"}. Counts that matter stay exact
 * elsewhere: the caller increments its meter (e.g. {@code parallax.net.bad.frames}) for every event,
 * whether or not its line is logged. A count suppressed in the last interval of a flood is reported
 * when the next warning comes, and is visible in the meter meanwhile.
 *
 * <p>Intervals are fixed windows on the injected clock, each opened by the first warning after the
 * previous one ended. Thread-safe: {@link #admit} is one short critical section (no I/O inside);
 * {@link #warn} logs outside it. Never blocks beyond that.
 */
public final class LogRateLimiter {
    /** Default lines per interval. */
    public static final int DEFAULT_LINES = 10;
    /** Default interval. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    /**
     * What to do with one warning.
     *
     * @param log             whether to log its line
     * @param suppressedBefore warnings suppressed since the last summary, to report first (0: no summary)
     */
    public record Admission(boolean log, long suppressedBefore) {
    }

    private final String what;
    private final int maxLines;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private boolean opened;
    private long windowStart;
    private int logged;
    private long suppressed;
    private long suppressedTotal;

    /**
     * @param what          names the warnings in the summary line (e.g. "replica port bad frames")
     * @param maxLines      lines per interval, at least 1
     * @param interval      positive
     * @param nanoClock     monotonic nanoseconds ({@code System::nanoTime} in production)
     * @throws IllegalArgumentException if {@code maxLines} or {@code interval} is not positive
     */
    public LogRateLimiter(String what, int maxLines, Duration interval, LongSupplier nanoClock) {
        if (maxLines < 1) {
            throw new IllegalArgumentException("at least one line per interval, got " + maxLines);
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive, got " + interval);
        }
        this.what = Objects.requireNonNull(what);
        this.maxLines = maxLines;
        this.intervalNanos = interval.toNanos();
        this.nanoClock = Objects.requireNonNull(nanoClock);
    }

    /** {@link #DEFAULT_LINES} per {@link #DEFAULT_INTERVAL} on {@code System.nanoTime()}. */
    public static LogRateLimiter withDefaults(String what) {
        return new LogRateLimiter(what, DEFAULT_LINES, DEFAULT_INTERVAL, System::nanoTime);
    }

    /** Decides about one warning happening now (counts it if suppressed). */
    public synchronized Admission admit() {
        long now = nanoClock.getAsLong();
        long report = 0;
        if (!opened || now - windowStart >= intervalNanos) {
            opened = true;
            windowStart = now;
            logged = 0;
            report = suppressed;
            suppressed = 0;
        }
        if (logged < maxLines) {
            logged++;
            return new Admission(true, report);
        }
        suppressed++;
        suppressedTotal++;
        return new Admission(false, report);
    }

    /**
     * Logs {@code format} at WARN on {@code log} if admitted, after the summary line of what was
     * suppressed before, if any. Arguments as slf4j's (a trailing throwable prints its stack).
     */
    public void warn(Logger log, String format, Object... args) {
        Admission a = admit();
        if (a.suppressedBefore() > 0) {
            log.warn("{}: suppressed {} similar warnings in the last {} s", what, a.suppressedBefore(),
                    TimeUnit.NANOSECONDS.toSeconds(intervalNanos));
        }
        if (a.log()) {
            log.warn(format, args);
        }
    }

    /** Warnings suppressed since this limiter was made (reported or not). */
    public synchronized long suppressedTotal() {
        return suppressedTotal;
    }
}
