package dev.parallax.core.stage;

/**
 * What a runner does between two {@link Stage#doWork()} calls, given how much the last call did:
 * after work it goes straight on; after an idle call it spins, yields or parks (the Aeron
 * {@code IdleStrategy} idea: the stage's logic is kept apart from the thread that runs it and from
 * how that thread waits).
 *
 * <p>Strategies keep backoff state, so each runner has its own instance, made by a
 * {@link Factory} (see {@link WaitStrategies}). An instance is confined to its runner thread: not
 * thread-safe.
 */
public interface WaitStrategy {

    /**
     * Reacts to the result of one {@code doWork} call: a positive {@code workCount} resets the
     * backoff and returns at once; 0 (or less) performs the next idle step, which may spin, yield
     * or park through the strategy's {@link Parker}.
     *
     * <p>Confined to the owning thread; may block up to the strategy's longest park; never throws.
     *
     * @param workCount the value the last {@code doWork} returned
     */
    void idle(int workCount);

    /**
     * Returns the backoff to its first step, as after work.
     *
     * <p>Confined to the owning thread; non-blocking; never throws.
     */
    void reset();

    /**
     * Makes a fresh strategy for one runner. Factories are immutable values, safe to share and to
     * name in configuration.
     */
    @FunctionalInterface
    interface Factory {

        /**
         * Creates a new strategy that parks through {@code parker}.
         *
         * <p>Thread-safe; non-blocking.
         *
         * @param parker how the new strategy's thread parks
         * @return a new strategy, owned by the caller
         * @throws NullPointerException if {@code parker} is null
         */
        WaitStrategy create(Parker parker);
    }
}
