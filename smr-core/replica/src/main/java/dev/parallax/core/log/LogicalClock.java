package dev.parallax.core.log;

import net.openhft.chronicle.core.time.TimeProvider;

/**
 * The time Chronicle Queue sees: segment {@code n} is day {@code n} since the epoch, so a roll to a
 * new cycle file happens exactly when the log decides (by size), never because the wall clock
 * moved. Chronicle reads the time on every write to know which cycle file to use.
 *
 * <p>Advanced only by the log's writer thread; read by Chronicle on that thread and possibly its
 * background threads, hence the volatile field. Never blocks.
 */
final class LogicalClock implements TimeProvider {

    static {
        ChronicleQuiet.ensure(); // before any Chronicle class initialises
    }
    static final long CYCLE_MILLIS = 86_400_000L;

    private volatile int cycle;

    LogicalClock(int cycle) {
        this.cycle = cycle;
    }

    int cycle() {
        return cycle;
    }

    /** Moves to the next segment; the next Chronicle write opens a new cycle file. */
    int advance() {
        int next = cycle + 1;
        cycle = next;
        return next;
    }

    @Override
    public long currentTimeMillis() {
        return cycle * CYCLE_MILLIS;
    }
}
