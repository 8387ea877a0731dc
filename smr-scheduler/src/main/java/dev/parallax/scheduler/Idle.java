package dev.parallax.scheduler;

/**
 * The spin-then-yield part of the idle strategy every waiting loop uses: a few hundred
 * {@link Thread#onSpinWait()} rounds, then some {@link Thread#yield()} rounds, then the caller
 * parks (so that an idle worker does not burn a core; the target machine has two).
 *
 * <p>Stateless and thread-safe.
 */
final class Idle {
    /** Spin rounds before yielding. */
    static final int SPINS = 256;
    /** Yield rounds before parking. */
    static final int YIELDS = 32;

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
