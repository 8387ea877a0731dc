package dev.parallax.core.stage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Cumulative counts of one stage's activity: items processed (the sum of positive
 * {@link Stage#doWork()} results), nanoseconds spent in {@code doWork} calls that did work, and
 * exceptions thrown by the stage.
 *
 * <p>Single writer: only the thread driving the stage records, with opaque stores (atomic, no
 * fence, no allocation, no lock), so recording costs a few plain stores per {@code doWork}. Any
 * thread may read; reads are opaque, so a reader sees each counter's latest value soon, and never a
 * torn one, but no ordering between counters.
 */
public final class StageCounters {

    private static final VarHandle ITEMS;
    private static final VarHandle BUSY_NANOS;
    private static final VarHandle EXCEPTIONS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ITEMS = lookup.findVarHandle(StageCounters.class, "items", long.class);
            BUSY_NANOS = lookup.findVarHandle(StageCounters.class, "busyNanos", long.class);
            EXCEPTIONS = lookup.findVarHandle(StageCounters.class, "exceptions", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long items;
    private long busyNanos;
    private long exceptions;

    StageCounters() {
    }

    /** Records a {@code doWork} call that did {@code work > 0} in {@code nanos}; writer thread only. */
    void recordWork(int work, long nanos) {
        ITEMS.setOpaque(this, items + work);
        BUSY_NANOS.setOpaque(this, busyNanos + Math.max(0, nanos));
    }

    /** Records one exception thrown by the stage; writer thread only. */
    void recordException() {
        EXCEPTIONS.setOpaque(this, exceptions + 1);
    }

    /**
     * The sum of all positive {@code doWork} results so far.
     *
     * <p>Any thread; non-blocking.
     *
     * @return the items processed
     */
    public long itemsProcessed() {
        return (long) ITEMS.getOpaque(this);
    }

    /**
     * Total wall time, by the runner's clock, spent in {@code doWork} calls that returned work.
     *
     * <p>Any thread; non-blocking.
     *
     * @return busy time in nanoseconds
     */
    public long busyNanos() {
        return (long) BUSY_NANOS.getOpaque(this);
    }

    /**
     * The number of exceptions and errors thrown by the stage's {@code doWork}, {@code onStart} or
     * {@code onClose}.
     *
     * <p>Any thread; non-blocking.
     *
     * @return the exception count
     */
    public long exceptions() {
        return (long) EXCEPTIONS.getOpaque(this);
    }

    @Override
    public String toString() {
        return "StageCounters[items=" + itemsProcessed() + ", busyNanos=" + busyNanos()
                + ", exceptions=" + exceptions() + "]";
    }
}
