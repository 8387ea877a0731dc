package dev.parallax.core.config;

import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.stage.WaitStrategy;

/**
 * How idle stage threads wait ({@code wait} in the cluster file). Immutable and thread-safe.
 */
public enum WaitMode {
    /** Spin on the CPU: lowest latency, burns a core per stage; only for machines with cores to spare. */
    BUSY_SPIN(WaitStrategies.BUSY_SPIN),
    /** Spin briefly, yield, then park with growing back-off: low latency where cores are to spare, cheap when idle. */
    YIELD_PARK(WaitStrategies.YIELD_PARK),
    /** Park at once: least CPU; every hand-off to an idle stage costs one unpark. */
    PARK(WaitStrategies.PARK),
    /** The default: {@link #resolve(int)} picks {@link #PARK} below {@link #SPIN_FROM_CORES} cores, {@link #YIELD_PARK} from there. */
    AUTO(null);

    /** Longest park of an idle stage thread in {@link #YIELD_PARK} mode. */
    public static final long MAX_IDLE_PARK_MILLIS = 10;

    /**
     * Cores from which {@link #AUTO} spins before parking. Measured on 2 cores running three
     * replica JVMs and a load JVM (docs/benchmarks.md, "Results"): every spin or yield there
     * takes the core from the thread whose output the spinner waits for, so parking at once
     * gave 1.1–1.25× (staged threads) and 1.2–1.9× (compact) the throughput of spinning and
     * yielding first, at every load from 1 to 256 commands in flight per connection, at a lower
     * p50. From 4 cores a replica's busy threads (pipeline, I/O, executor) each find a core, and
     * a short spin saves the unpark of a hand-off.
     */
    public static final int SPIN_FROM_CORES = 4;

    /** The {@link WaitStrategies} name of this mode; null for {@link #AUTO}, which is resolved first. */
    private final String strategyName;

    WaitMode(String strategyName) {
        this.strategyName = strategyName;
    }

    /**
     * The mode in effect on a machine with {@code cores} available processors: this one, or
     * for {@link #AUTO}, {@link #PARK} below {@link #SPIN_FROM_CORES} and {@link #YIELD_PARK}
     * from there.
     *
     * @param cores the available processors
     * @return a mode other than {@link #AUTO}
     */
    public WaitMode resolve(int cores) {
        if (this != AUTO) {
            return this;
        }
        return cores >= SPIN_FROM_CORES ? YIELD_PARK : PARK;
    }

    /**
     * The stage runtime's wait strategy for this mode, {@link #AUTO} resolved by this
     * machine's available processors. Yield-park parks for at most
     * {@link #MAX_IDLE_PARK_MILLIS} ms: producers wake a parked stage at once through its
     * queue, so the cap only bounds how late timers (ticks, batch time-outs) fire on an idle
     * replica, while keeping an idle replica's CPU use low.
     */
    public WaitStrategy.Factory strategy() {
        WaitMode mode = resolve(Runtime.getRuntime().availableProcessors());
        if (mode == YIELD_PARK) {
            return WaitStrategies.yieldPark(100, 10, 1_000, MAX_IDLE_PARK_MILLIS * 1_000_000L);
        }
        return WaitStrategies.parse(mode.strategyName);
    }
}
