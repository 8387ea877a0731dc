package dev.parallax.examples.cli;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The completions of a load bucketed by the time they completed, not by the time someone looked:
 * an exact count per second, the latencies of the latest {@value #LATENCY_SECONDS} seconds (one
 * histogram per second, 2 significant digits) and a count per 10 ms slot for the longest gap
 * without a completion. Second {@code s} (from 1) covers {@code [origin + s - 1 s, origin + s s)}.
 * A reader that is late (the demo's control loop while it restarts a replica) therefore still reads
 * each second as it was, instead of lumping several seconds into one and reporting the ones after
 * as empty.
 *
 * <p>Every method takes times as {@link System#nanoTime()} values from the caller, so tests inject
 * them. Thread-safe: completions are recorded from the clients' event loop threads and read from
 * the control thread; every method holds this object's monitor briefly and never blocks otherwise.
 * Completions outside {@code [origin, origin + span)} are not bucketed.
 */
final class CompletionTimeline {
    /** Width of a gap-measuring slot. */
    static final long SLOT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Seconds whose latencies are kept: a reader later than this gets no percentiles, only the count. */
    static final int LATENCY_SECONDS = 64;
    private static final long SECOND_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MAX_LATENCY_US = TimeUnit.SECONDS.toMicros(60);

    /**
     * One second of the timeline.
     *
     * @param second the second, from 1
     * @param completions completions that ended in that second
     * @param p50Us median latency in microseconds, 0 without completions, -1 if no longer kept
     * @param p99Us 99th-percentile latency in microseconds, 0 without completions, -1 if no longer kept
     */
    record Second(int second, long completions, long p50Us, long p99Us) {
    }

    private final long spanNanos;
    private final long[] perSecond;
    private final int[] slots;
    private final Histogram[] latencies = new Histogram[LATENCY_SECONDS];
    private final int[] latencySecond = new int[LATENCY_SECONDS];
    private long origin;

    /**
     * An empty timeline covering {@code span} from an origin set by {@link #reset}.
     *
     * @param span how long after the origin completions are bucketed; positive
     * @param originNanos the first origin, a {@link System#nanoTime()} value
     * @throws IllegalArgumentException if {@code span} is not positive
     */
    CompletionTimeline(Duration span, long originNanos) {
        if (span.isNegative() || span.isZero()) {
            throw new IllegalArgumentException("span must be positive: " + span);
        }
        this.spanNanos = span.toNanos();
        this.perSecond = new long[(int) ((spanNanos + SECOND_NANOS - 1) / SECOND_NANOS)];
        this.slots = new int[(int) ((spanNanos + SLOT_NANOS - 1) / SLOT_NANOS)];
        this.origin = originNanos;
        Arrays.fill(latencySecond, -1);
    }

    /** Forgets everything recorded and measures from {@code originNanos} on. */
    synchronized void reset(long originNanos) {
        origin = originNanos;
        Arrays.fill(perSecond, 0);
        Arrays.fill(slots, 0);
        Arrays.fill(latencySecond, -1);
    }

    /** The current origin, a {@link System#nanoTime()} value. */
    synchronized long origin() {
        return origin;
    }

    /**
     * Records one completion.
     *
     * @param atNanos when it completed, a {@link System#nanoTime()} value
     * @param latencyMicros its latency; clamped to [0, 60 s]
     */
    synchronized void record(long atNanos, long latencyMicros) {
        long t = atNanos - origin;
        if (t < 0 || t >= spanNanos) {
            return;
        }
        int second = (int) (t / SECOND_NANOS);
        perSecond[second]++;
        slots[(int) (t / SLOT_NANOS)]++;
        int ring = second % LATENCY_SECONDS;
        if (latencySecond[ring] != second) {
            if (latencies[ring] == null) {
                latencies[ring] = new Histogram(MAX_LATENCY_US, 2);
            } else {
                latencies[ring].reset();
            }
            latencySecond[ring] = second;
        }
        latencies[ring].recordValue(Math.max(0, Math.min(latencyMicros, MAX_LATENCY_US)));
    }

    /**
     * Second {@code s} as recorded so far (complete once {@code origin + s} seconds have passed and
     * the completions of that second have been recorded).
     *
     * @param s the second, from 1
     * @throws IllegalArgumentException if {@code s} is not in [1, span in seconds]
     */
    synchronized Second second(int s) {
        if (s < 1 || s > perSecond.length) {
            throw new IllegalArgumentException("second " + s + " outside [1, " + perSecond.length + "]");
        }
        long count = perSecond[s - 1];
        if (count == 0) {
            return new Second(s, 0, 0, 0);
        }
        int ring = (s - 1) % LATENCY_SECONDS;
        if (latencySecond[ring] != s - 1) {
            return new Second(s, count, -1, -1);
        }
        Histogram h = latencies[ring];
        return new Second(s, count, h.getValueAtPercentile(50), h.getValueAtPercentile(99));
    }

    /**
     * The longest run of 10 ms slots without a completion between {@code fromNanos} and
     * {@code toNanos}, both relative to the origin (clipped to the span).
     */
    synchronized Duration longestGap(long fromNanos, long toNanos) {
        int from = (int) Math.max(0, fromNanos / SLOT_NANOS);
        int to = (int) Math.min(slots.length, Math.max(0, toNanos) / SLOT_NANOS);
        int best = 0;
        int run = 0;
        for (int i = from; i < to; i++) {
            run = slots[i] == 0 ? run + 1 : 0;
            best = Math.max(best, run);
        }
        return Duration.ofNanos(best * SLOT_NANOS);
    }
}
