package dev.parallax.scheduler;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The {@code mark[c][cycle]} counters of seed 001 §6.1 (Alg. 4–5) and {@code syncMark} of §6.2.2.2
 * (Alg. 12–13): one atomic counter per request class and cycle. Each worker of a SEQ class keeps
 * its own cycle bit per class and flips it before every SEQ request of that class; it then
 * {@link #arrive arrives}. The last of the class's {@code k} threads to arrive gets {@code k}, runs
 * the request and {@link #release releases} the counter to 0; the others wait until
 * {@link #released} is true. One counter per class is not enough: a thread that missed the reset of
 * request {@code i} would wait forever once the executor had arrived for request {@code i+1}
 * (the lost-reset deadlock of §6.1); with two cycles, arrivals for {@code i+1} use the other
 * counter, which nobody can be waiting on.
 *
 * <p>Thread-safe; every operation is a single atomic access (volatile semantics), so the release
 * happens-before the waiters' return from their wait and they see the request's effects. Counters
 * of a class sit 16 ints (a cache line) apart from the next class's.
 */
final class TwoCycleCounters {
    private static final int STRIDE = 16;
    private final AtomicIntegerArray marks;

    TwoCycleCounters(int classCount) {
        this.marks = new AtomicIntegerArray(classCount * STRIDE);
    }

    /** Signals arrival of the calling thread; returns how many threads have arrived, itself included. */
    int arrive(int cls, int cycle) {
        return marks.incrementAndGet(cls * STRIDE + cycle);
    }

    /** Called by the executing (last-arrived) thread after the request ran. */
    void release(int cls, int cycle) {
        marks.set(cls * STRIDE + cycle, 0);
    }

    /** Whether the request of this class and cycle has executed (the counter is back to 0). */
    boolean released(int cls, int cycle) {
        return marks.get(cls * STRIDE + cycle) == 0;
    }
}
