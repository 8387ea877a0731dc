package dev.parallax.bench.queue;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Counts the items the consumer thread received; JMH reports it as the {@code :items} secondary result,
 * in items per second, which is the figure the queue benchmarks are read by.
 *
 * <p>Thread-safety: a per-thread JMH state; only the consumer thread writes it. Never blocks.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class ConsumedItems {

    /** Items received by the consumer in the current iteration; public so that JMH can read it. */
    public long items;

    /** Starts each iteration from zero (JMH does not reset auxiliary counters itself). */
    @Setup(Level.Iteration)
    public void reset() {
        items = 0;
    }
}
