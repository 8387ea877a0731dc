package dev.parallax.core.stage;

/**
 * Never gives up the core: an idle step is one {@link Thread#onSpinWait()}. Lowest wakeup latency
 * at the cost of one fully busy core per runner; for stages pinned to dedicated cores.
 *
 * <p>Stateless, but like every strategy it belongs to one runner thread.
 */
public final class BusySpinWaitStrategy implements WaitStrategy {

    /** Creates a busy-spin strategy. */
    public BusySpinWaitStrategy() {
    }

    /**
     * Spins once if {@code workCount} is not positive; never blocks, never throws.
     *
     * @param workCount the value the last {@code doWork} returned
     */
    @Override
    public void idle(int workCount) {
        if (workCount <= 0) {
            Thread.onSpinWait();
        }
    }

    /** Does nothing: busy spinning has no backoff. Never throws. */
    @Override
    public void reset() {
    }
}
