package dev.parallax.core.stage;

import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where a process starts its stages on threads, following a
 * {@link ThreadPlacement}. Components that own stages (the replica's batcher, the protocol
 * runtime's protocol and delivery stages, the transport's per-peer senders) call {@link #run} at
 * whatever time suits them and keep the returned {@link StageHandle}; none of them knows which
 * thread drives its stage.
 *
 * <ul>
 *   <li>{@link ThreadPlacement#STAGED}: every {@link #run} starts a {@link StageRunner}, a thread of
 *       its own named after the stage, waiting with {@link Builder#waitStrategy}: the JPaxos
 *       layout of seed 000 (JPaxos staged replica) §V, exactly what the replica did before
 *       placements existed.</li>
 *   <li>{@link ThreadPlacement#COMPACT}: every {@link #run} attaches the stage to one shared
 *       {@link CompositeStageRunner}, created on the first {@code run}, whose thread is named
 *       {@code <prefix>pipeline} and waits with {@link Builder#sharedWaitStrategy}. A command then
 *       crosses only the hand-offs to and from the I/O threads instead of about ten: on 2 cores
 *       the lowest latency and CPU for a lone command, while staged threads, which let execution
 *       overlap ordering, carry more load (measured in docs/benchmarks.md; see
 *       {@link ThreadPlacement#STAGED_FROM_CORES}). I/O threads (Netty) and the executor's
 *       workers stay apart.</li>
 * </ul>
 *
 * <p>{@link #runDedicated} always gives a stage a thread of its own, whatever the placement: for
 * stages that must not wait behind the pipeline, such as the failure detector, whose heartbeats
 * and suspicions must keep time while the pipeline is busy.
 *
 * <p>{@link #newThread} is the one way the library makes a thread of its own, here and elsewhere
 * (receivers, executors' workers, the snapshot writer): named, with an explicit daemon flag, and
 * logging what escapes it.
 *
 * <p>Stages keep the meters and failure rules of {@link StageRunner} in both placements.
 * {@link #close()} stops everything still running. All methods are thread-safe; {@code run} does
 * not block, {@code close} blocks up to the close timeout per thread.
 */
public final class StageThreads implements AutoCloseable {

    /** Suffix of the shared thread's name in {@link ThreadPlacement#COMPACT}. */
    public static final String PIPELINE_THREAD = "pipeline";

    private static final Logger LOG = LoggerFactory.getLogger(StageThreads.class);

    /**
     * Logs what escapes a library thread, then passes it to the JVM's default handler if the
     * application installed one (so that its policy, such as exiting, still applies).
     */
    private static final Thread.UncaughtExceptionHandler LOG_UNCAUGHT = (thread, e) -> {
        LOG.error("thread {} ended with an uncaught exception", thread.getName(), e);
        Thread.UncaughtExceptionHandler application = Thread.getDefaultUncaughtExceptionHandler();
        if (application != null) {
            application.uncaughtException(thread, e);
        }
    };

    private final ThreadPlacement placement;
    private final String threadNamePrefix;
    private final WaitStrategy.Factory waitStrategy;
    private final WaitStrategy.Factory sharedWaitStrategy;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Duration closeTimeout;
    /** Handles not yet closed, in start order. Guarded by {@code this}. */
    private final Set<Tracked> open = new LinkedHashSet<>();
    /** The shared runner of COMPACT, made on the first run. Guarded by {@code this}. */
    private CompositeStageRunner pipeline;
    private boolean closed;

    private StageThreads(Builder b) {
        this.placement = b.placement.resolve(b.cores);
        this.threadNamePrefix = b.threadNamePrefix;
        this.waitStrategy = b.waitStrategy;
        this.sharedWaitStrategy = b.sharedWaitStrategy;
        this.clock = b.clock;
        this.registry = b.registry;
        this.closeTimeout = b.closeTimeout;
    }

    /**
     * Starts configuring stage threads with {@code placement}; {@link ThreadPlacement#AUTO} is
     * resolved when built, by the machine's available processors unless {@link Builder#cores}
     * says otherwise.
     *
     * @param placement how to place pipeline stages
     * @return a builder with defaults: thread name prefix {@code "parallax-"},
     *     {@link WaitStrategies#yieldPark()} for staged threads, {@link WaitStrategies#shared()} for
     *     the shared thread, {@link SystemClock}, no meter registry, a close timeout of 10 s
     * @throws NullPointerException if {@code placement} is null
     */
    public static Builder builder(ThreadPlacement placement) {
        return new Builder(placement);
    }

    /**
     * Makes, without starting it, a thread of the library: every thread the library runs, other
     * than Netty's event loops, comes from here (the runners of these stage threads included). The
     * thread is named {@code name}, is a daemon thread or not as {@code daemon} says (never
     * inherited from the calling thread), and has an uncaught-exception handler that logs the
     * exception at ERROR with the thread's name, then passes it to
     * {@link Thread#getDefaultUncaughtExceptionHandler()} if one is set.
     *
     * <p>Thread-safe; does not block.
     *
     * @param name the thread's name, not empty
     * @param daemon whether the thread is a daemon thread: true for threads that must not keep the
     *     JVM alive (the owner stops them), false for those the owner joins on close
     * @param body what the thread runs
     * @return the new, unstarted thread
     * @throws NullPointerException if {@code name} or {@code body} is null
     * @throws IllegalArgumentException if {@code name} is empty
     */
    public static Thread newThread(String name, boolean daemon, Runnable body) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(body, "body");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a library thread needs a name");
        }
        Thread t = new Thread(body, name);
        t.setDaemon(daemon);
        t.setUncaughtExceptionHandler(LOG_UNCAUGHT);
        return t;
    }

    /**
     * Runs a pipeline stage as the placement says: on a new {@link StageRunner} thread named after
     * the stage ({@link ThreadPlacement#STAGED}) or on the shared pipeline thread
     * ({@link ThreadPlacement#COMPACT}). The stage's {@code onStart} runs on its thread before
     * its first {@code doWork}.
     *
     * <p>Thread-safe; non-blocking.
     *
     * @param stage the stage; its handle's owner must close it (or close these threads)
     * @return the running stage's handle
     * @throws IllegalStateException if these threads are closed
     * @throws IllegalArgumentException if the stage's name is empty
     * @throws NullPointerException if {@code stage} is null or returns a null name, input list or
     *     input queue
     */
    public synchronized StageHandle run(Stage stage) {
        Objects.requireNonNull(stage, "stage");
        checkOpen(stage);
        if (placement == ThreadPlacement.COMPACT) {
            if (pipeline == null) {
                CompositeStageRunner.Builder b = CompositeStageRunner.builder(threadNamePrefix + PIPELINE_THREAD)
                        .waitStrategy(sharedWaitStrategy).clock(clock).closeTimeout(closeTimeout);
                if (registry != null) {
                    b.meterRegistry(registry);
                }
                pipeline = b.build();
            }
            return track(pipeline.attach(stage));
        }
        return startRunner(stage, waitStrategy);
    }

    /**
     * Runs {@code stage} on a {@link StageRunner} thread of its own, named after the stage, whatever
     * the placement.
     *
     * <p>Thread-safe; non-blocking.
     *
     * @param stage the stage
     * @param waitStrategy how its thread waits when the stage is idle
     * @return the running stage's handle
     * @throws IllegalStateException if these threads are closed
     * @throws IllegalArgumentException if the stage's name is empty
     * @throws NullPointerException if an argument is null or the stage returns a null name, input
     *     list or input queue
     */
    public synchronized StageHandle runDedicated(Stage stage, WaitStrategy.Factory waitStrategy) {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(waitStrategy, "waitStrategy");
        checkOpen(stage);
        return startRunner(stage, waitStrategy);
    }

    /**
     * The placement in effect: {@link ThreadPlacement#STAGED} or {@link ThreadPlacement#COMPACT},
     * never {@link ThreadPlacement#AUTO}.
     *
     * <p>Thread-safe.
     *
     * @return the resolved placement
     */
    public ThreadPlacement placement() {
        return placement;
    }

    /**
     * The name of the shared pipeline thread of {@link ThreadPlacement#COMPACT}:
     * {@code <prefix>pipeline}.
     *
     * <p>Thread-safe.
     *
     * @return the shared thread's name (also under STAGED, where no such thread is made)
     */
    public String pipelineThreadName() {
        return threadNamePrefix + PIPELINE_THREAD;
    }

    /**
     * Stops every stage still running, in the reverse of the order they were started, then the
     * shared thread. Each stage's {@code onClose} runs on its thread. Idempotent; later
     * {@code run} calls fail. If some closes fail (time out), the others are still done and the
     * first failure is thrown with the rest suppressed.
     *
     * <p>Thread-safe; blocks up to the close timeout per thread; must not be called from a stage
     * run by these threads.
     *
     * @throws IllegalStateException if a stage did not stop within the close timeout
     */
    @Override
    public void close() {
        List<Tracked> handles;
        CompositeStageRunner shared;
        synchronized (this) {
            closed = true;
            handles = new ArrayList<>(open);
            shared = pipeline;
        }
        Collections.reverse(handles);
        RuntimeException first = null;
        for (Tracked handle : handles) {
            first = closeQuietly(handle, first);
        }
        if (shared != null) {
            first = closeQuietly(shared, first);
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "StageThreads[" + placement.configName() + ", " + threadNamePrefix + "]";
    }

    private static RuntimeException closeQuietly(AutoCloseable closeable, RuntimeException first) {
        try {
            closeable.close();
        } catch (RuntimeException e) {
            if (first == null) {
                return e;
            }
            first.addSuppressed(e);
        } catch (Exception e) {
            throw new AssertionError("close declares no checked exception", e);
        }
        return first;
    }

    private void checkOpen(Stage stage) {
        if (closed) {
            throw new IllegalStateException("stage threads are closed; cannot run " + stage.name());
        }
    }

    private StageHandle startRunner(Stage stage, WaitStrategy.Factory strategy) {
        StageRunner.Builder b = StageRunner.builder(stage).waitStrategy(strategy).clock(clock)
                .closeTimeout(closeTimeout);
        if (registry != null) {
            b.meterRegistry(registry);
        }
        StageRunner runner = b.build();
        runner.start();
        return track(runner);
    }

    private StageHandle track(StageHandle handle) {
        Tracked tracked = new Tracked(handle);
        open.add(tracked);
        return tracked;
    }

    private synchronized void untrack(Tracked tracked) {
        open.remove(tracked);
    }

    /** A handle that leaves {@link #open} once closed, so a long-lived process does not collect them. */
    private final class Tracked implements StageHandle {
        private final StageHandle delegate;

        Tracked(StageHandle delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public void wake() {
            delegate.wake();
        }

        @Override
        public Optional<Throwable> failure() {
            return delegate.failure();
        }

        @Override
        public StageCounters counters() {
            return delegate.counters();
        }

        @Override
        public boolean isRunning() {
            return delegate.isRunning();
        }

        @Override
        public void close() {
            delegate.close();
            untrack(this);
        }

        @Override
        public String toString() {
            return delegate.toString();
        }
    }

    /** Configures {@link StageThreads}. Not thread-safe; use from one thread, then discard. */
    public static final class Builder extends RunnerBuilder<Builder> {
        private final ThreadPlacement placement;
        private int cores = Runtime.getRuntime().availableProcessors();
        private String threadNamePrefix = "parallax-";
        private WaitStrategy.Factory sharedWaitStrategy = WaitStrategies.shared();

        private Builder(ThreadPlacement placement) {
            super(WaitStrategies.yieldPark());
            this.placement = Objects.requireNonNull(placement, "placement");
        }

        /**
         * Sets the core count that resolves {@link ThreadPlacement#AUTO}; default the JVM's
         * available processors.
         *
         * @param cores at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code cores} is less than 1
         */
        public Builder cores(int cores) {
            if (cores < 1) {
                throw new IllegalArgumentException("cores must be at least 1: " + cores);
            }
            this.cores = cores;
            return this;
        }

        /**
         * Sets the prefix of the shared thread's name, for example {@code "replica-0-"}, which
         * names it {@code replica-0-pipeline}. Staged threads keep their stage's name.
         *
         * @param prefix the prefix, may be empty
         * @return this builder
         * @throws NullPointerException if {@code prefix} is null
         */
        public Builder threadNamePrefix(String prefix) {
            this.threadNamePrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * Sets how the shared pipeline thread ({@link ThreadPlacement#COMPACT}) waits when every
         * stage on it is idle; default {@link WaitStrategies#shared()}.
         *
         * @param factory the wait strategy factory
         * @return this builder
         * @throws NullPointerException if {@code factory} is null
         */
        public Builder sharedWaitStrategy(WaitStrategy.Factory factory) {
            this.sharedWaitStrategy = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /**
         * Builds the stage threads; no thread starts before the first {@code run}.
         *
         * @return the stage threads
         */
        public StageThreads build() {
            return new StageThreads(this);
        }
    }
}
