package dev.parallax.core.stage;

/**
 * Parks for a fixed time after every idle {@code doWork}. Cheapest on CPU; the wakeup latency of a
 * runner whose inputs are declared (and so call {@link StageRunner#wake()}) is an unpark, otherwise
 * up to the park time.
 *
 * <p>Confined to one runner thread.
 */
public final class ParkWaitStrategy implements WaitStrategy {

    private final long parkNanos;
    private final Parker parker;

    /**
     * Creates a strategy that parks for {@code parkNanos} at each idle step.
     *
     * @param parkNanos the park time, positive
     * @param parker how to park
     * @throws IllegalArgumentException if {@code parkNanos} is not positive
     * @throws NullPointerException if {@code parker} is null
     */
    public ParkWaitStrategy(long parkNanos, Parker parker) {
        if (parkNanos <= 0) {
            throw new IllegalArgumentException("parkNanos must be positive: " + parkNanos);
        }
        if (parker == null) {
            throw new NullPointerException("parker");
        }
        this.parkNanos = parkNanos;
        this.parker = parker;
    }

    /**
     * Parks for at most the configured time if {@code workCount} is not positive.
     *
     * <p>Blocks up to the park time; never throws.
     *
     * @param workCount the value the last {@code doWork} returned
     */
    @Override
    public void idle(int workCount) {
        if (workCount <= 0) {
            parker.park(parkNanos);
        }
    }

    /** Does nothing: the park time is fixed. Never throws. */
    @Override
    public void reset() {
    }
}
