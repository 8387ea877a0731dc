package dev.parallax.core.stage;

import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs one {@link Stage} on its own thread: calls {@link Stage#doWork()} in a loop and, whenever it
 * returns 0, lets a {@link WaitStrategy} spin, yield or park (Aeron's {@code AgentRunner}). The
 * thread is named after the stage and is not a daemon, so a replica that forgets to close its
 * runners does not exit half-way through.
 *
 * <p>Failures. An exception (or {@link AssertionError}) thrown by {@code doWork} is logged with
 * the stage name, counted in {@link StageCounters#exceptions()}, and the loop goes on, treating
 * the call as idle: a stage must not die silently over one bad input. Any other {@link Error}
 * (out of memory, stack overflow, linkage errors) leaves the stage in an unknown state: it is
 * logged and counted, the loop stops, {@link Stage#onClose()} runs, and {@link #failure()} reports
 * it. A failing {@link Stage#onStart()} stops the runner the same way before the first
 * {@code doWork}.
 *
 * <p>Wakeups. {@link #start()} installs the runner's wakeup (what {@link #wake()} does) as the
 * {@link Wakeup} of each queue in {@link Stage#inputQueues()}; producers then call it after every
 * offer, which costs one volatile read unless the runner is parked. The protocol that makes parking free of lost
 * wakeups is described in the package documentation.
 *
 * <p>The runner clears stray interrupts of its thread after parking, so that an interrupt does not
 * turn parking into spinning; the only way to stop it is {@link #close()}.
 *
 * <p>A runner runs once: it cannot be started again after {@link #close()}. All public methods are
 * thread-safe. It is the {@link StageHandle} of {@link ThreadPlacement#STAGED} placement and of
 * {@link StageThreads#runDedicated}; {@link CompositeStageRunner} is the shared-thread
 * counterpart, with the same failure rules and meters.
 */
public final class StageRunner implements StageHandle {

    private final StageDriver driver;
    private final String name;
    private final WaitStrategy waitStrategy;
    private final Clock clock;
    private final Duration closeTimeout;
    private final Thread thread;
    private final IdleParker parker;
    private final Object lifecycleLock = new Object();

    private volatile boolean started;
    private boolean closed;
    private volatile boolean stopRequested;
    private volatile boolean terminated;

    private StageRunner(Builder builder) {
        this.clock = builder.clock;
        this.closeTimeout = builder.closeTimeout;
        this.driver = new StageDriver(builder.stage, builder.registry, clock);
        this.name = driver.name();
        this.thread = StageThreads.newThread(name, false, this::run);
        this.parker = new IdleParker(thread, this);
        WaitStrategy strategy;
        try {
            strategy = Objects.requireNonNull(builder.waitStrategy.create(this::parkIdle), "wait strategy");
        } catch (RuntimeException e) {
            driver.closeMetrics();
            throw e;
        }
        this.waitStrategy = strategy;
    }

    /**
     * Starts configuring a runner for {@code stage}.
     *
     * @param stage the stage to run; the runner becomes its only driver
     * @return a builder with defaults: {@link WaitStrategies#yieldPark()}, {@link SystemClock},
     *     no meter registry, a close timeout of 10 s
     * @throws NullPointerException if {@code stage} is null
     */
    public static Builder builder(Stage stage) {
        return new Builder(stage);
    }

    /**
     * Starts the runner thread, after installing this runner as the consumer wakeup of the stage's
     * input queues. The thread calls {@link Stage#onStart()} and then loops on
     * {@link Stage#doWork()}.
     *
     * <p>Thread-safe; non-blocking.
     *
     * @throws IllegalStateException if the runner was already started or is closed
     */
    public void start() {
        synchronized (lifecycleLock) {
            if (closed) {
                throw new IllegalStateException("runner of stage " + name + " is closed");
            }
            if (started) {
                throw new IllegalStateException("runner of stage " + name + " is already started");
            }
            driver.installWakeup(parker);
            started = true;
            thread.start();
        }
    }

    /**
     * Stops the runner: asks the loop to stop, wakes the thread, waits up to the close timeout for
     * it to finish the current {@code doWork} and {@link Stage#onClose()}, then removes the
     * stage's meters. Idempotent: calling it again after success returns at once; after a timeout
     * it waits again. Closing a runner that was never started only marks it closed (the stage's
     * hooks are not called). Called from the runner thread itself (from inside the stage) it only
     * requests the stop, which takes effect when the current {@code doWork} returns.
     *
     * <p>Thread-safe; blocks up to the close timeout (wall-clock time). If the calling thread is
     * interrupted while waiting it keeps waiting and re-asserts the interrupt before returning.
     *
     * @throws IllegalStateException if the thread is still running after the close timeout, which
     *     means the stage blocks in {@code doWork} or {@code onClose} in breach of its contract
     */
    @Override
    public void close() {
        boolean wasStarted;
        synchronized (lifecycleLock) {
            closed = true;
            wasStarted = started;
        }
        if (wasStarted) {
            stopRequested = true;
            parker.unpark();
            if (Thread.currentThread() == thread) {
                return;
            }
            BoundedWait.join(thread, closeTimeout, () -> "stage " + name + " did not stop within " + closeTimeout
                    + "; its doWork or onClose is blocking");
        }
        driver.closeMetrics();
    }

    /**
     * Whether the runner thread has been started and has not yet finished (it finishes after
     * {@link #close()} or a fatal error).
     *
     * <p>Thread-safe; non-blocking.
     *
     * @return true while the thread runs the stage
     */
    @Override
    public boolean isRunning() {
        return started && !terminated;
    }

    /**
     * Unparks the runner thread if it is parked or about to park; otherwise does nothing. The fast
     * path, when the runner is busy, is one volatile read: no store, no system call. Of several
     * producers calling it at once, one unparks.
     *
     * <p>Thread-safe; non-blocking; never throws. Calling it on a runner that is not running does
     * nothing.
     */
    @Override
    public void wake() {
        parker.wake();
    }

    /**
     * The stage's name, which is also the thread's name.
     *
     * <p>Thread-safe.
     *
     * @return the stage name
     */
    @Override
    public String name() {
        return name;
    }

    /**
     * The stage's counters, kept whether or not a meter registry was given.
     *
     * <p>Thread-safe; readers see recent values (see {@link StageCounters}).
     *
     * @return the counters
     */
    @Override
    public StageCounters counters() {
        return driver.counters();
    }

    /**
     * The error that stopped the runner: a non-assertion {@link Error} from {@code doWork}, or
     * anything thrown by {@code onStart}.
     *
     * <p>Thread-safe; non-blocking.
     *
     * @return the fatal failure, or empty if the runner has not failed
     */
    @Override
    public Optional<Throwable> failure() {
        return driver.failure();
    }

    @Override
    public String toString() {
        return "StageRunner[" + name + (isRunning() ? ", running" : "") + "]";
    }

    private void run() {
        try {
            if (driver.start()) {
                loop();
            }
        } finally {
            driver.close();
            if (stopRequested) {
                driver.closeMetrics();
            }
            terminated = true;
        }
    }

    private void loop() {
        StageCounters counters = driver.counters();
        long start = clock.nanoTime();
        while (!stopRequested) {
            int work = driver.doWork();
            if (work == StageDriver.STOPPED) {
                return;
            }
            // One clock read per iteration: after work it ends this busy span and starts the next;
            // after an idle call it is taken once the wait is over.
            if (work > 0) {
                long end = clock.nanoTime();
                counters.recordWork(work, end - start);
                waitStrategy.idle(work);
                start = end;
            } else {
                waitStrategy.idle(0);
                start = clock.nanoTime();
            }
        }
    }

    /**
     * The {@link Parker} of this runner's wait strategy; the consumer half of the wakeup protocol.
     * Runs on the runner thread only.
     */
    private void parkIdle(long maxNanos) {
        parker.park(maxNanos, this::mayPark);
    }

    private boolean mayPark() {
        return !stopRequested && IdleParker.allEmpty(driver.inputs());
    }

    /** Configures a {@link StageRunner}. Not thread-safe; use from one thread, then discard. */
    public static final class Builder extends RunnerBuilder<Builder> {
        private final Stage stage;

        private Builder(Stage stage) {
            super(WaitStrategies.yieldPark());
            this.stage = Objects.requireNonNull(stage, "stage");
        }

        /**
         * Builds the runner (not started) and registers its metrics if a registry was set.
         *
         * @return the new runner
         * @throws IllegalArgumentException if the stage's name is empty
         * @throws NullPointerException if the stage returns a null name, input list or input queue
         */
        public StageRunner build() {
            return new StageRunner(this);
        }
    }
}
