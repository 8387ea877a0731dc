package dev.parallax.core.stage;

import java.util.concurrent.locks.LockSupport;

/**
 * How a {@link WaitStrategy} puts its thread to sleep. A {@link StageRunner} supplies a parker that
 * takes part in its wakeup protocol (publish "parked", look at the inputs again, then park), so a
 * strategy never calls {@link LockSupport} itself.
 *
 * <p>A parker is called only by the thread that owns the strategy.
 */
@FunctionalInterface
public interface Parker {

    /** Parks the calling thread with {@link LockSupport#parkNanos(long)}; nothing can wake it early but an unpark or interrupt. */
    Parker LOCK_SUPPORT = LockSupport::parkNanos;

    /**
     * Blocks the calling thread for at most {@code maxNanos} nanoseconds, or less if woken, or not
     * at all if work is already waiting. May return spuriously.
     *
     * <p>Called only by the owning thread; blocking by design; never throws.
     *
     * @param maxNanos the longest time to stay parked, positive
     */
    void park(long maxNanos);
}
