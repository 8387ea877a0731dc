package dev.parallax.core.stage;

/**
 * A signal from a producer to the thread consuming a queue that something arrived. A
 * {@link StageRunner} is one; a {@link BoundedQueue} calls its consumer's wakeup after every
 * successful {@code offer} or {@code put}.
 *
 * <p>Implementations must be thread-safe, must not block, must not throw and must be cheap when
 * the consumer is not asleep: they sit on every producer's fast path.
 */
@FunctionalInterface
public interface Wakeup {

    /** A wakeup that does nothing; the default of every queue. */
    Wakeup NONE = () -> { };

    /**
     * Wakes the consumer if it is parked or about to park; otherwise does nothing.
     *
     * <p>Thread-safe, non-blocking, never throws.
     */
    void wake();
}
