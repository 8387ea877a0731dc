package dev.parallax.core.stage;

/**
 * Backs off in three phases after consecutive idle {@code doWork} calls: {@code maxSpins} calls to
 * {@link Thread#onSpinWait()}, then {@code maxYields} calls to {@link Thread#yield()}, then parks,
 * starting at {@code minParkNanos} and doubling up to {@code maxParkNanos}. Any work starts over.
 * The shape of Aeron's {@code BackoffIdleStrategy}: a busy stage keeps its core, an idle one
 * releases it within microseconds.
 *
 * <p>Stateful and confined to one runner thread.
 */
public final class YieldParkWaitStrategy implements WaitStrategy {

    private final int maxSpins;
    private final int maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private final Parker parker;

    private int spins;
    private int yields;
    private long parkNanos;

    /**
     * Creates the strategy.
     *
     * @param maxSpins spin steps before yielding, at least 0
     * @param maxYields yield steps before parking, at least 0
     * @param minParkNanos first park time, positive
     * @param maxParkNanos longest park time, at least {@code minParkNanos}
     * @param parker how to park
     * @throws IllegalArgumentException if a bound is out of range
     * @throws NullPointerException if {@code parker} is null
     */
    public YieldParkWaitStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos, Parker parker) {
        checkBounds(maxSpins, maxYields, minParkNanos, maxParkNanos);
        if (parker == null) {
            throw new NullPointerException("parker");
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        this.parker = parker;
        this.parkNanos = minParkNanos;
    }

    static void checkBounds(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        if (maxSpins < 0 || maxYields < 0) {
            throw new IllegalArgumentException("spins and yields must be >= 0: " + maxSpins + ", " + maxYields);
        }
        if (minParkNanos <= 0 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException(
                    "need 0 < minParkNanos <= maxParkNanos: " + minParkNanos + ", " + maxParkNanos);
        }
    }

    /**
     * Resets on positive {@code workCount}; otherwise performs the next spin, yield or park step.
     *
     * <p>Blocks up to {@code maxParkNanos}; never throws.
     *
     * @param workCount the value the last {@code doWork} returned
     */
    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            reset();
        } else if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            parker.park(parkNanos);
            parkNanos = parkNanos > maxParkNanos / 2 ? maxParkNanos : Math.min(parkNanos * 2, maxParkNanos);
        }
    }

    /** Starts the backoff over with spinning. Non-blocking; never throws. */
    @Override
    public void reset() {
        spins = 0;
        yields = 0;
        parkNanos = minParkNanos;
    }
}
