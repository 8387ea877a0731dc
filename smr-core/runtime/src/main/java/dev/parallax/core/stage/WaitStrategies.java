package dev.parallax.core.stage;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Named wait strategy factories, so configuration can choose one by name with {@link #parse}.
 *
 * <table>
 *   <caption>Strategies</caption>
 *   <tr><th>name</th><th>idle behaviour</th><th>defaults</th></tr>
 *   <tr><td>{@code busy-spin}</td><td>{@link BusySpinWaitStrategy}</td><td>-</td></tr>
 *   <tr><td>{@code yield-park}</td><td>{@link YieldParkWaitStrategy}</td>
 *       <td>100 spins, 10 yields, park 1 µs doubling to 1 ms</td></tr>
 *   <tr><td>{@code park}</td><td>{@link ParkWaitStrategy}</td><td>park 1 ms</td></tr>
 *   <tr><td>{@code shared}</td><td>{@link YieldParkWaitStrategy}, tuned for a thread shared by
 *       the whole pipeline on a small machine (see {@link #shared()})</td>
 *       <td>20 spins, 4 yields, park 50 µs doubling to 1 ms</td></tr>
 * </table>
 *
 * <p>All methods are thread-safe and return immutable factories.
 */
public final class WaitStrategies {

    /** Configuration name of {@link #busySpin()}. */
    public static final String BUSY_SPIN = "busy-spin";
    /** Configuration name of {@link #yieldPark()}. */
    public static final String YIELD_PARK = "yield-park";
    /** Configuration name of {@link #park()}. */
    public static final String PARK = "park";
    /** Configuration name of {@link #shared()}. */
    public static final String SHARED = "shared";

    static final int DEFAULT_SPINS = 100;
    static final int DEFAULT_YIELDS = 10;
    static final long DEFAULT_MIN_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(1);
    static final long DEFAULT_MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long DEFAULT_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final int SHARED_SPINS = 20;
    static final int SHARED_YIELDS = 4;
    static final long SHARED_MIN_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    static final long SHARED_MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private WaitStrategies() {
    }

    /**
     * The busy-spin factory.
     *
     * @return a factory of {@link BusySpinWaitStrategy}
     */
    public static WaitStrategy.Factory busySpin() {
        return new BusySpin();
    }

    /**
     * The yield-then-park factory with the default bounds in the class table.
     *
     * @return a factory of {@link YieldParkWaitStrategy}
     */
    public static WaitStrategy.Factory yieldPark() {
        return yieldPark(DEFAULT_SPINS, DEFAULT_YIELDS, DEFAULT_MIN_PARK_NANOS, DEFAULT_MAX_PARK_NANOS);
    }

    /**
     * A yield-then-park factory with explicit bounds.
     *
     * @param spins spin steps before yielding, at least 0
     * @param yields yield steps before parking, at least 0
     * @param minParkNanos first park time, positive
     * @param maxParkNanos longest park time, at least {@code minParkNanos}
     * @return a factory of {@link YieldParkWaitStrategy}
     * @throws IllegalArgumentException if a bound is out of range
     */
    public static WaitStrategy.Factory yieldPark(int spins, int yields, long minParkNanos, long maxParkNanos) {
        return new YieldPark(spins, yields, minParkNanos, maxParkNanos);
    }

    /**
     * The wait strategy of a thread that drives the whole pipeline ({@link ThreadPlacement#COMPACT}
     * and {@link CompositeStageRunner}) on a small machine, for example 2 cores running three
     * replica JVMs, each with its pipeline, network and executor threads. There every spinning
     * thread takes CPU from the thread that would produce its next input, so the strategy spins
     * little and gives the core away early:
     *
     * <ol>
     *   <li>20 {@link Thread#onSpinWait()} steps (a few hundred ns to a few µs): catches an item
     *       handed over right after the last one, such as the next message of a burst, without
     *       a system call;</li>
     *   <li>4 {@link Thread#yield()} steps: if another thread is runnable on this core (often the
     *       producer being waited for) it runs now; if none is, a yield costs under a µs;</li>
     *   <li>then parks, first 50 µs, doubling to at most 1 ms. 50 µs is Linux's default timer
     *       slack, so shorter parks of an ordinary thread sleep that long anyway and would only
     *       add wakeups. The 1 ms cap bounds how late the work a queue does not signal is seen:
     *       time-outs checked in {@code doWork}, such as a partial batch (the replica's default
     *       batch time-out is 1 ms) and protocol ticks. An idle thread then wakes about a
     *       thousand times a second for a few µs each: well under 1% of a core.</li>
     * </ol>
     *
     * <p>Work that arrives through a declared input queue does not wait for any of this: the
     * queue's wakeup unparks the thread at once. Compared with {@link #yieldPark()} (100 spins,
     * 10 yields, parks from 1 µs) it spends far less CPU while a replica waits for the network,
     * at the price of a few µs more latency for an item that arrives within the spin window of
     * the other strategy.
     *
     * @return a factory of {@link YieldParkWaitStrategy} with the bounds above
     */
    public static WaitStrategy.Factory shared() {
        return yieldPark(SHARED_SPINS, SHARED_YIELDS, SHARED_MIN_PARK_NANOS, SHARED_MAX_PARK_NANOS);
    }

    /**
     * The park factory with the default park time (1 ms).
     *
     * @return a factory of {@link ParkWaitStrategy}
     */
    public static WaitStrategy.Factory park() {
        return park(DEFAULT_PARK_NANOS);
    }

    /**
     * A park factory with an explicit park time.
     *
     * @param parkNanos the park time, positive
     * @return a factory of {@link ParkWaitStrategy}
     * @throws IllegalArgumentException if {@code parkNanos} is not positive
     */
    public static WaitStrategy.Factory park(long parkNanos) {
        if (parkNanos <= 0) {
            throw new IllegalArgumentException("parkNanos must be positive: " + parkNanos);
        }
        return new Park(parkNanos);
    }

    /**
     * The factory named {@code name} ({@code busy-spin}, {@code yield-park}, {@code park} or
     * {@code shared}, case
     * and surrounding blanks ignored), with default bounds.
     *
     * @param name a strategy name
     * @return the named factory
     * @throws IllegalArgumentException if the name is unknown
     * @throws NullPointerException if {@code name} is null
     */
    public static WaitStrategy.Factory parse(String name) {
        Objects.requireNonNull(name, "name");
        switch (name.strip().toLowerCase(Locale.ROOT)) {
            case BUSY_SPIN:
                return busySpin();
            case YIELD_PARK:
                return yieldPark();
            case PARK:
                return park();
            case SHARED:
                return shared();
            default:
                throw new IllegalArgumentException("unknown wait strategy '" + name + "'; expected one of "
                        + BUSY_SPIN + ", " + YIELD_PARK + ", " + PARK + ", " + SHARED);
        }
    }

    private record BusySpin() implements WaitStrategy.Factory {
        @Override
        public WaitStrategy create(Parker parker) {
            Objects.requireNonNull(parker, "parker");
            return new BusySpinWaitStrategy();
        }
    }

    private record YieldPark(int spins, int yields, long minParkNanos, long maxParkNanos)
            implements WaitStrategy.Factory {
        YieldPark {
            YieldParkWaitStrategy.checkBounds(spins, yields, minParkNanos, maxParkNanos);
        }

        @Override
        public WaitStrategy create(Parker parker) {
            return new YieldParkWaitStrategy(spins, yields, minParkNanos, maxParkNanos, parker);
        }
    }

    private record Park(long parkNanos) implements WaitStrategy.Factory {
        @Override
        public WaitStrategy create(Parker parker) {
            return new ParkWaitStrategy(parkNanos, parker);
        }
    }
}
