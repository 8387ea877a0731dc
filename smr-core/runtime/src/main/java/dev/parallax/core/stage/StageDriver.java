package dev.parallax.core.stage;

import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One stage as a driver thread sees it: its validated name and inputs, its counters and meters,
 * and the calls to its hooks with the failure rules every driver applies. An exception (or
 * {@link AssertionError}) from {@code doWork} is logged, counted and treated as an idle call; any
 * other {@link Error} is logged, counted, recorded as the stage's failure and stops the stage; a
 * failing {@code onStart} stops it before the first {@code doWork}; a failing {@code onClose} is
 * logged and counted. Shared by {@link StageRunner} and {@link CompositeStageRunner}, so both
 * behave alike and publish the same meters.
 *
 * <p>{@link #start()}, {@link #doWork()} and {@link #close()} are called by the driver thread
 * only; the other methods are thread-safe.
 */
final class StageDriver {

    private static final Logger LOG = LoggerFactory.getLogger(StageDriver.class);

    /** What {@link #doWork()} returns when the stage threw a fatal error and must stop. */
    static final int STOPPED = -1;

    private final Stage stage;
    private final String name;
    private final BoundedQueue<?>[] inputs;
    private final StageCounters counters = new StageCounters();
    private final StageMetrics metrics;
    private volatile Throwable failure;

    /**
     * Validates {@code stage} and registers its {@link StageMetrics} if {@code registry} is not null.
     *
     * @throws IllegalArgumentException if the stage's name is empty
     * @throws NullPointerException if the stage returns a null name, input list or input queue
     */
    StageDriver(Stage stage, MeterRegistry registry, Clock clock) {
        this.stage = Objects.requireNonNull(stage, "stage");
        this.name = Objects.requireNonNull(stage.name(), "stage name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("stage name is empty");
        }
        List<? extends BoundedQueue<?>> declared = Objects.requireNonNull(stage.inputQueues(), "inputQueues");
        this.inputs = declared.toArray(new BoundedQueue<?>[0]);
        for (BoundedQueue<?> input : inputs) {
            Objects.requireNonNull(input, "input queue");
        }
        this.metrics = registry == null ? null : StageMetrics.register(registry, name, counters, declared, clock);
    }

    String name() {
        return name;
    }

    /** The declared input queues; the array must not be modified. */
    BoundedQueue<?>[] inputs() {
        return inputs;
    }

    StageCounters counters() {
        return counters;
    }

    Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /** Records {@code t} as the failure that stopped the stage, unless one is recorded already. */
    void recordFailure(Throwable t) {
        if (failure == null) {
            failure = t;
        }
    }

    /** Installs {@code wakeup} as the consumer wakeup of every declared input. Any thread. */
    void installWakeup(Wakeup wakeup) {
        for (BoundedQueue<?> input : inputs) {
            input.setConsumerWakeup(wakeup);
        }
    }

    /** Calls {@link Stage#onStart()}; false (failure recorded) if it threw. Driver thread. */
    boolean start() {
        try {
            stage.onStart();
            return true;
        } catch (Throwable t) {
            counters.recordException();
            failure = t;
            LOG.error("stage {}: onStart failed; the stage will not run", name, t);
            return false;
        }
    }

    /**
     * Calls {@link Stage#doWork()} once. Driver thread.
     *
     * @return the work done (negative results and recoverable exceptions count as 0), or
     *     {@link #STOPPED} after a fatal error, which is then this stage's failure
     */
    int doWork() {
        try {
            return Math.max(0, stage.doWork());
        } catch (Throwable t) {
            counters.recordException();
            if (t instanceof Error && !(t instanceof AssertionError)) {
                failure = t;
                LOG.error("stage {}: doWork threw an Error; the stage stops", name, t);
                return STOPPED;
            }
            LOG.error("stage {}: doWork threw; the stage goes on", name, t);
            return 0;
        }
    }

    /** Calls {@link Stage#onClose()}, logging and counting what it throws. Driver thread. */
    void close() {
        try {
            stage.onClose();
        } catch (Throwable t) {
            counters.recordException();
            LOG.error("stage {}: onClose failed", name, t);
        }
    }

    /** Removes the stage's meters, if registered. Idempotent; any thread. */
    void closeMetrics() {
        if (metrics != null) {
            metrics.close();
        }
    }
}
