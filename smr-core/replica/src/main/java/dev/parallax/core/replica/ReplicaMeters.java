package dev.parallax.core.replica;

import dev.parallax.core.log.ForceObserver;
import dev.parallax.core.runtime.LatencyTimers;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Meters the {@link Replica} registers itself: whether it knows a leader
 * ({@code parallax.replica.has.leader}), how far it executed ({@code parallax.replica.executed})
 * and how long the forces of its durable logs take ({@code parallax.log.fsync}). The gauges hold
 * their suppliers strongly (a lambda has no other owner). Stateless; registering is thread-safe.
 */
final class ReplicaMeters {
    private ReplicaMeters() {
    }

    /**
     * The gauge {@code parallax.replica.has.leader}: 1 while {@code known} says this replica knows
     * who leads its ordering ({@link dev.parallax.core.spi.LeaderHints#leaderKnown()}), else 0.
     * {@code known} is read at each scrape, from the scraping thread; it must not block.
     */
    static void hasLeader(MeterRegistry registry, int replica, BooleanSupplier known) {
        Gauge.builder("parallax.replica.has.leader", known, k -> k.getAsBoolean() ? 1 : 0)
                .description("1 while this replica knows who leads its ordering (with several streams: every stream it runs "
                        + "knows its leader or coordinator), else 0")
                .tag("replica", Integer.toString(replica)).strongReference(true).register(registry);
    }

    /**
     * The gauge {@code parallax.replica.executed}: the last position of the total order this
     * replica executed ({@code executedBelow} minus one; -1 before the first). Read at each scrape;
     * {@code executedBelow} must not block.
     */
    static void executed(MeterRegistry registry, int replica, java.util.function.LongSupplier executedBelow) {
        Gauge.builder("parallax.replica.executed", executedBelow, e -> e.getAsLong() - 1)
                .description("last position of the total order this replica executed (replicas of one partition compare: "
                        + "the highest minus this one is its lag)")
                .tag("replica", Integer.toString(replica)).strongReference(true).register(registry);
    }

    /** An observer that records each force of the durable log {@code log} in the timer {@code parallax.log.fsync}. */
    static ForceObserver fsync(MeterRegistry registry, int replica, String log) {
        Timer timer = LatencyTimers.register(registry, "parallax.log.fsync",
                "time one force (fdatasync) of the durable log took, with the directory when a segment was created",
                "replica", Integer.toString(replica), "log", log);
        return nanos -> timer.record(nanos, TimeUnit.NANOSECONDS);
    }
}
