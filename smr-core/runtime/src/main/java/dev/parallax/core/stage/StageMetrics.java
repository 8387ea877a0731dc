package dev.parallax.core.stage;

import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The Micrometer meters of one stage, all tagged {@code stage=<name>}:
 *
 * <ul>
 *   <li>{@value #QUEUE_DEPTH} and {@value #QUEUE_CAPACITY}: gauges per declared input queue, also
 *       tagged {@code queue=<index in Stage.inputQueues()>};
 *   <li>{@value #ITEMS}: function counter of items processed (the sum of {@code doWork} results);
 *       its rate is the stage's items per second;
 *   <li>{@value #BUSY_TIME}: function counter of seconds spent in {@code doWork} calls that did
 *       work; its rate is the busy fraction, which is how a Prometheus-style backend should chart
 *       it;
 *   <li>{@value #BUSY_RATIO}: gauge of the busy fraction (0 to 1) of the wall time, by the injected
 *       clock, since this gauge was last read, for registries that sample gauges only. Each read
 *       starts a new interval, so when several registries read it each sees its share; prefer the
 *       rate of {@value #BUSY_TIME} there;
 *   <li>{@value #EXCEPTIONS}: function counter of exceptions thrown by the stage.
 * </ul>
 *
 * <p>The meters read {@link StageCounters} and the queues when the registry samples them; the
 * runner's hot path does not touch Micrometer. Gauges hold their queues strongly; function counters
 * hold the {@link StageCounters} weakly, as Micrometer does, which the runner keeps reachable. All
 * are removed from the registry by {@link #close()}. Thread-safe.
 */
public final class StageMetrics implements AutoCloseable {

    /** Tag naming the stage. */
    public static final String STAGE_TAG = "stage";
    /** Tag naming an input queue by its index in {@link Stage#inputQueues()}. */
    public static final String QUEUE_TAG = "queue";
    /** Gauge: elements in an input queue. */
    public static final String QUEUE_DEPTH = "parallax.stage.queue.depth";
    /** Gauge: capacity of an input queue. */
    public static final String QUEUE_CAPACITY = "parallax.stage.queue.capacity";
    /** Function counter: items processed. */
    public static final String ITEMS = "parallax.stage.items";
    /** Function counter: seconds spent in {@code doWork} calls that did work. */
    public static final String BUSY_TIME = "parallax.stage.busy.time";
    /** Gauge: busy fraction since the previous read. */
    public static final String BUSY_RATIO = "parallax.stage.busy.ratio";
    /** Function counter: exceptions thrown by the stage. */
    public static final String EXCEPTIONS = "parallax.stage.exceptions";

    private final MeterRegistry registry;
    private final List<Meter> meters;
    private boolean closed;

    private StageMetrics(MeterRegistry registry, List<Meter> meters) {
        this.registry = registry;
        this.meters = meters;
    }

    /**
     * Registers the meters of stage {@code stageName} in {@code registry}.
     *
     * <p>Thread-safe; non-blocking apart from the registry's own locking. If meters with the same
     * names and tags are already registered (a stage name used twice in one registry), Micrometer
     * returns the existing ones, which keep reading the old counters.
     *
     * @param registry where to register
     * @param stageName the value of the {@code stage} tag
     * @param counters the stage's counters
     * @param inputQueues the stage's input queues
     * @param clock the clock that measures the busy ratio's interval; the one the runner uses
     * @return a handle whose {@link #close()} removes the meters
     * @throws NullPointerException if an argument is null
     */
    public static StageMetrics register(
            MeterRegistry registry,
            String stageName,
            StageCounters counters,
            List<? extends BoundedQueue<?>> inputQueues,
            Clock clock) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(stageName, "stageName");
        Objects.requireNonNull(counters, "counters");
        Objects.requireNonNull(clock, "clock");
        List<Meter> meters = new ArrayList<>();
        for (int i = 0; i < inputQueues.size(); i++) {
            BoundedQueue<?> queue = Objects.requireNonNull(inputQueues.get(i), "input queue");
            String index = Integer.toString(i);
            meters.add(Gauge.builder(QUEUE_DEPTH, queue, BoundedQueue::size)
                    .tag(STAGE_TAG, stageName).tag(QUEUE_TAG, index)
                    .description("Elements waiting in the stage's input queue")
                    .strongReference(true)
                    .register(registry));
            meters.add(Gauge.builder(QUEUE_CAPACITY, queue, BoundedQueue::capacity)
                    .tag(STAGE_TAG, stageName).tag(QUEUE_TAG, index)
                    .description("Capacity of the stage's input queue")
                    .strongReference(true)
                    .register(registry));
        }
        meters.add(FunctionCounter.builder(ITEMS, counters, StageCounters::itemsProcessed)
                .tag(STAGE_TAG, stageName)
                .baseUnit("items")
                .description("Items processed: the sum of doWork results")
                .register(registry));
        meters.add(FunctionCounter.builder(BUSY_TIME, counters, c -> c.busyNanos() / (double) TimeUnit.SECONDS.toNanos(1))
                .tag(STAGE_TAG, stageName)
                .baseUnit("seconds")
                .description("Time spent in doWork calls that did work")
                .register(registry));
        meters.add(Gauge.builder(BUSY_RATIO, new BusyRatio(counters, clock), BusyRatio::sample)
                .tag(STAGE_TAG, stageName)
                .description("Fraction of wall time busy since the previous read")
                .strongReference(true)
                .register(registry));
        meters.add(FunctionCounter.builder(EXCEPTIONS, counters, StageCounters::exceptions)
                .tag(STAGE_TAG, stageName)
                .description("Exceptions thrown by the stage")
                .register(registry));
        return new StageMetrics(registry, List.copyOf(meters));
    }

    /**
     * The registered meters.
     *
     * <p>Thread-safe; the list is immutable.
     *
     * @return the meters, queue gauges first
     */
    public List<Meter> meters() {
        return meters;
    }

    /**
     * Removes the meters from the registry. Idempotent.
     *
     * <p>Thread-safe; non-blocking apart from the registry's own locking; never throws.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Meter meter : meters) {
            registry.remove(meter);
        }
    }

    /** Busy fraction over the interval since the previous sample. */
    private static final class BusyRatio {
        private final StageCounters counters;
        private final Clock clock;
        private long lastNanos;
        private long lastBusyNanos;
        private double lastRatio;

        BusyRatio(StageCounters counters, Clock clock) {
            this.counters = counters;
            this.clock = clock;
            this.lastNanos = clock.nanoTime();
            this.lastBusyNanos = counters.busyNanos();
        }

        synchronized double sample() {
            long now = clock.nanoTime();
            long busy = counters.busyNanos();
            long wall = now - lastNanos;
            if (wall <= 0) {
                return lastRatio;
            }
            // A doWork that began before the interval is charged to it whole; clamp to 1.
            lastRatio = Math.min(1.0, Math.max(0.0, (busy - lastBusyNanos) / (double) wall));
            lastNanos = now;
            lastBusyNanos = busy;
            return lastRatio;
        }
    }
}
