package dev.parallax.core.stage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Both halves of the lost-wakeup protocol of the package documentation for one driver thread:
 * {@link #wake()} is the producer half (called through the input queues' consumer wakeup), and
 * {@link #park(long, BooleanSupplier)} is the consumer half (called by the driver thread's
 * {@link WaitStrategy} through its {@link Parker}). Shared by {@link StageRunner} and
 * {@link CompositeStageRunner}, so the protocol exists once.
 *
 * <p>{@link #wake()} and {@link #unpark()} are thread-safe and non-blocking; {@code park} is called
 * only by the driver thread.
 */
final class IdleParker implements Wakeup {

    private static final VarHandle PARKED;

    static {
        try {
            PARKED = MethodHandles.lookup().findVarHandle(IdleParker.class, "parked", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Thread thread;
    private final Object blocker;
    /** True from just before the driver checks its inputs for the last time until it unparks. */
    private volatile boolean parked;

    /**
     * @param thread the driver thread, the only one that parks here
     * @param blocker the object thread dumps name as the reason of the park (the runner)
     */
    IdleParker(Thread thread, Object blocker) {
        this.thread = thread;
        this.blocker = blocker;
    }

    /**
     * Unparks the driver if it is parked or about to park. One volatile read when it is busy; of
     * several producers calling at once, one unparks.
     */
    @Override
    public void wake() {
        if (parked && PARKED.compareAndSet(this, true, false)) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Unparks the driver unconditionally; if it is not parked, its next park returns at once (the
     * {@link LockSupport} permit). For rare control events (stop, membership changes), which then
     * need no fence of their own.
     */
    void unpark() {
        LockSupport.unpark(thread);
    }

    /**
     * Parks the driver thread for at most {@code maxNanos}, unless {@code mayPark} (read after
     * "parked" is published) says there is work. Clears stray interrupts, so an interrupt does not
     * turn parking into spinning. Driver thread only.
     */
    void park(long maxNanos, BooleanSupplier mayPark) {
        parked = true;
        // Dekker with the producer's "publish, then read parked": our store of parked must be
        // visible before we read the queues' indices, whatever access mode the queue uses.
        VarHandle.fullFence();
        try {
            if (mayPark.getAsBoolean()) {
                LockSupport.parkNanos(blocker, maxNanos);
            }
        } finally {
            parked = false;
        }
        Thread.interrupted();
    }

    /** Whether every queue in {@code inputs} is empty; a helper for {@code mayPark}. */
    static boolean allEmpty(BoundedQueue<?>[] inputs) {
        for (BoundedQueue<?> input : inputs) {
            if (!input.isEmpty()) {
                return false;
            }
        }
        return true;
    }
}
