package dev.parallax.scheduler;

/**
 * The spin-then-yield part of the idle strategy every waiting loop uses: some
 * {@link Thread#onSpinWait()} rounds, then some {@link Thread#yield()} rounds, then the caller
 * parks (so that an idle worker does not burn a core; the target machine has two). The counts can
 * be tuned with the system properties {@code parallax.scheduler.spins},
 * {@code parallax.scheduler.busySpins} (for {@link SyncMode#BUSY_WAIT} waits) and
 * {@code parallax.scheduler.yields}, read once at class initialization.
 *
 * <p>Stateless and thread-safe.
 */
final class Idle {
    /** Spin rounds before yielding, for idle workers and most waits. */
    static final int SPINS = Integer.getInteger("parallax.scheduler.spins", 32);
    /** Spin rounds before yielding in a busy-wait SEQ synchronization. */
    static final int BUSY_SPINS = Integer.getInteger("parallax.scheduler.busySpins", 64);
    /** Yield rounds before parking. */
    static final int YIELDS = Integer.getInteger("parallax.scheduler.yields", 32);

    private Idle() {
    }

    /**
     * Spins or yields once for idle round {@code round}.
     *
     * @return false when the caller should park instead
     */
    static boolean spinOrYield(int round, int spins) {
        if (round < spins) {
            Thread.onSpinWait();
            return true;
        }
        if (round < spins + YIELDS) {
            Thread.yield();
            return true;
        }
        return false;
    }
}
