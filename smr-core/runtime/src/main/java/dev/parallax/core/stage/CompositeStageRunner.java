package dev.parallax.core.stage;

import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs several {@link Stage}s on one thread (Aeron's {@code CompositeAgent} driven by one
 * {@code AgentRunner}): each loop calls {@link Stage#doWork()} once on every member, in the order
 * they were attached, and lets the {@link WaitStrategy} back off only when every member returned 0.
 * Stage logic does not change; only the thread that runs it does. This is the shared thread of
 * {@link ThreadPlacement#COMPACT}.
 *
 * <p>Why one thread is enough on a small machine. Seed 000 (JPaxos staged replica) §V-VI gives
 * every stage a thread so that stages run in parallel on many cores. On a 2-core machine the
 * parallelism is not there to be had, while each of the ~10 thread hand-offs a command crosses
 * costs a wakeup (an unpark and a context switch, microseconds each) and cache misses. Driving the
 * pipeline stages from one thread turns those hand-offs into queue operations within a thread; the
 * stages still talk through their bounded queues, so back-pressure and batching are unchanged.
 *
 * <p>Membership changes at run time. {@link #attach(Stage)} may be called from any thread, at any
 * time, by whichever component owns the stage; it returns a {@link StageHandle} whose
 * {@link StageHandle#close() close()} detaches that one stage while the others go on. A member's
 * {@link Stage#onStart()} runs on the runner thread before its first {@code doWork}, and its
 * {@link Stage#onClose()} runs there after its last, before {@code close()} returns.
 *
 * <p>Wakeups. {@code attach} installs the runner's wakeup (what {@link #wake()} does) as the
 * consumer {@link Wakeup} of the member's declared input queues, and before parking the runner
 * looks at the inputs of every member (and at members waiting to be attached), with the
 * lost-wakeup protocol of the package documentation; so an item offered to any member wakes the
 * shared thread at once. Attach and detach unpark the
 * thread unconditionally.
 *
 * <p>Failures are isolated per member, with the rules of {@link StageRunner}: an exception (or
 * {@link AssertionError}) from a member's {@code doWork} is logged and counted in its
 * {@link StageCounters} and the loop goes on; any other {@link Error}, or a failing
 * {@code onStart}, stops that member only (its {@code onClose} runs, its handle's
 * {@link StageHandle#failure()} reports it) and the others go on. A member that blocks in breach
 * of the {@link Stage} contract blocks every member; closes then time out.
 *
 * <p>Metrics. Each member registers the same {@link StageMetrics} as a {@link StageRunner} would,
 * tagged with its own stage name, so dashboards do not depend on the placement. Busy time is
 * measured per member; the busy ratios of the members of one runner add up to at most 1.
 *
 * <p>The thread starts with the first {@code attach}, is named as configured and is not a daemon.
 * It clears stray interrupts after parking; only {@link #close()} stops it. A runner runs once.
 * All public methods are thread-safe.
 */
public final class CompositeStageRunner implements Wakeup, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CompositeStageRunner.class);

    private final String threadName;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Duration closeTimeout;
    private final Thread thread;
    private final IdleParker parker;
    private final WaitStrategy waitStrategy;
    private final Object lifecycleLock = new Object();
    /** Members attached but not yet adopted by the runner thread; FIFO. */
    private final Queue<Member> arrivals = new ConcurrentLinkedQueue<>();
    /** Members whose handle has not been closed: their meters are removed by {@link #close()}. */
    private final Set<Member> unclosed = ConcurrentHashMap.newKeySet();

    private boolean started;
    private boolean closed;
    /** Set, under the lifecycle lock, by the runner thread once it takes no more arrivals. */
    private boolean finished;
    private volatile boolean stopRequested;
    private volatile boolean terminated;

    // Runner thread only.
    private final List<Member> active = new ArrayList<>();
    private BoundedQueue<?>[] activeInputs = new BoundedQueue<?>[0];

    private CompositeStageRunner(Builder builder) {
        this.threadName = builder.threadName;
        this.clock = builder.clock;
        this.registry = builder.registry;
        this.closeTimeout = builder.closeTimeout;
        this.thread = StageThreads.newThread(threadName, false, this::run);
        this.parker = new IdleParker(thread, this);
        this.waitStrategy = Objects.requireNonNull(builder.waitStrategy.create(this::parkIdle), "wait strategy");
    }

    /**
     * Starts configuring a runner whose thread is called {@code threadName}.
     *
     * @param threadName the name of the shared thread, not empty
     * @return a builder with defaults: {@link WaitStrategies#shared()}, {@link SystemClock}, no
     *     meter registry, a close timeout of 10 s
     * @throws IllegalArgumentException if {@code threadName} is empty
     * @throws NullPointerException if {@code threadName} is null
     */
    public static Builder builder(String threadName) {
        return new Builder(threadName);
    }

    /**
     * Adds {@code stage} to the stages this runner drives, starting the thread if this is the
     * first: installs the runner's wakeup on the stage's input queues, registers the stage's
     * meters, and hands the stage to the thread, which calls {@link Stage#onStart()} before its
     * first {@code doWork} (so a closed handle has still seen {@code onStart} and
     * {@code onClose}, like a started {@link StageRunner}).
     *
     * <p>Thread-safe, including from a member's {@code doWork}; non-blocking.
     *
     * @param stage the stage; this runner becomes its only driver
     * @return the stage's handle; closing it detaches the stage
     * @throws IllegalStateException if this runner is closed
     * @throws IllegalArgumentException if the stage's name is empty
     * @throws NullPointerException if {@code stage} is null or returns a null name, input list or
     *     input queue
     */
    public StageHandle attach(Stage stage) {
        Objects.requireNonNull(stage, "stage");
        Member member;
        synchronized (lifecycleLock) {
            if (closed || finished) {
                throw new IllegalStateException("runner " + threadName + " is closed; cannot attach " + stage.name());
            }
            member = new Member(new StageDriver(stage, registry, clock));
            member.driver.installWakeup(parker);
            unclosed.add(member);
            arrivals.add(member);
            if (!started) {
                started = true;
                thread.start();
            }
        }
        parker.unpark();
        return member;
    }

    /**
     * Unparks the shared thread if it is parked or about to park; otherwise does nothing. The fast
     * path, when the thread is busy, is one volatile read.
     *
     * <p>Thread-safe; non-blocking; never throws.
     */
    @Override
    public void wake() {
        parker.wake();
    }

    /**
     * The name of the shared thread.
     *
     * <p>Thread-safe.
     *
     * @return the thread name
     */
    public String threadName() {
        return threadName;
    }

    /**
     * Whether the shared thread has been started (by the first {@link #attach}) and has not
     * finished.
     *
     * <p>Thread-safe; non-blocking.
     *
     * @return true while the thread runs
     */
    public boolean isRunning() {
        synchronized (lifecycleLock) {
            return started && !terminated;
        }
    }

    /**
     * Stops every member and the thread: asks the loop to stop, waits up to the close timeout for
     * the current {@code doWork} to finish and every member's {@link Stage#onClose()} to run (in
     * attach order), then removes the members' meters. Idempotent. Closing a runner that never
     * had a member only marks it closed. Called from the runner thread itself it only requests the
     * stop.
     *
     * <p>Thread-safe; blocks up to the close timeout (wall-clock). An interrupt does not shorten
     * the wait; it is re-asserted before returning.
     *
     * @throws IllegalStateException if the thread is still running after the close timeout: a
     *     member blocks in breach of its contract
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
            BoundedWait.join(thread, closeTimeout, () -> "runner " + threadName + " did not stop within " + closeTimeout
                    + "; a stage's doWork or onClose is blocking");
        }
        for (Member member : unclosed) {
            member.driver.closeMetrics();
            unclosed.remove(member);
        }
    }

    @Override
    public String toString() {
        return "CompositeStageRunner[" + threadName + (isRunning() ? ", running" : "") + "]";
    }

    private void run() {
        Throwable crash = null;
        try {
            loop();
        } catch (Throwable t) {
            // Not a stage's failure (those are caught per member): the clock or wait strategy broke.
            crash = t;
            LOG.error("runner {}: the shared thread failed; stopping every stage on it", threadName, t);
        } finally {
            shutdown(crash);
        }
    }

    private void loop() {
        while (!stopRequested) {
            if (!arrivals.isEmpty()) {
                adoptArrivals();
            }
            long total = 0;
            long last = clock.nanoTime();
            for (int i = 0; i < active.size(); ) {
                Member member = active.get(i);
                int work = member.stopRequested ? StageDriver.STOPPED : member.driver.doWork();
                if (work == StageDriver.STOPPED) {
                    leave(i);
                    retire(member);
                    last = clock.nanoTime();
                    continue;
                }
                // One clock read per member: it ends this member's span and starts the next one's.
                long now = clock.nanoTime();
                if (work > 0) {
                    member.driver.counters().recordWork(work, now - last);
                    total += work;
                }
                last = now;
                i++;
            }
            waitStrategy.idle((int) Math.min(total, Integer.MAX_VALUE));
        }
    }

    /** Starts the members attached since the last loop, in attach order. Runner thread. */
    private void adoptArrivals() {
        Member member;
        while ((member = arrivals.poll()) != null) {
            adopt(member);
        }
    }

    private void adopt(Member member) {
        if (member.driver.start()) {
            active.add(member);
            activeInputs = inputsOf(active);
        } else {
            retire(member);
        }
    }

    private void leave(int index) {
        active.remove(index);
        activeInputs = inputsOf(active);
    }

    /** Calls the member's onClose and releases whoever waits in its close. Runner thread. */
    private void retire(Member member) {
        member.driver.close();
        if (member.stopRequested || stopRequested) {
            member.driver.closeMetrics();
            unclosed.remove(member);
        }
        member.retired = true;
        member.retiredLatch.countDown();
    }

    private void shutdown(Throwable crash) {
        synchronized (lifecycleLock) {
            // From here on attach refuses, so no arrival is left behind.
            finished = true;
        }
        adoptArrivals();
        for (Member member : active) {
            if (crash != null) {
                member.driver.recordFailure(crash);
            }
            retire(member);
        }
        active.clear();
        activeInputs = new BoundedQueue<?>[0];
        synchronized (lifecycleLock) {
            terminated = true;
        }
    }

    private static BoundedQueue<?>[] inputsOf(List<Member> members) {
        List<BoundedQueue<?>> inputs = new ArrayList<>();
        for (Member member : members) {
            inputs.addAll(List.of(member.driver.inputs()));
        }
        return inputs.toArray(new BoundedQueue<?>[0]);
    }

    /** The {@link Parker} of the shared wait strategy. Runner thread only. */
    private void parkIdle(long maxNanos) {
        parker.park(maxNanos, this::mayPark);
    }

    private boolean mayPark() {
        return !stopRequested && arrivals.isEmpty() && IdleParker.allEmpty(activeInputs);
    }

    /** One attached stage: its handle, and its state as the runner thread sees it. */
    private final class Member implements StageHandle {
        final StageDriver driver;
        final CountDownLatch retiredLatch = new CountDownLatch(1);
        volatile boolean stopRequested;
        volatile boolean retired;

        Member(StageDriver driver) {
            this.driver = driver;
        }

        @Override
        public String name() {
            return driver.name();
        }

        @Override
        public void wake() {
            parker.wake();
        }

        @Override
        public Optional<Throwable> failure() {
            return driver.failure();
        }

        @Override
        public StageCounters counters() {
            return driver.counters();
        }

        @Override
        public boolean isRunning() {
            return !retired;
        }

        @Override
        public void close() {
            stopRequested = true;
            parker.unpark();
            if (Thread.currentThread() == thread) {
                return;
            }
            BoundedWait.await(closeTimeout, nanos -> retiredLatch.await(nanos, TimeUnit.NANOSECONDS),
                    () -> "stage " + name() + " on " + threadName + " did not stop within " + closeTimeout
                            + "; a stage's doWork or onClose on that thread is blocking");
            driver.closeMetrics();
            unclosed.remove(this);
        }

        @Override
        public String toString() {
            return "StageHandle[" + name() + " on " + threadName + (isRunning() ? ", running" : "") + "]";
        }
    }

    /** Configures a {@link CompositeStageRunner}. Not thread-safe; use from one thread, then discard. */
    public static final class Builder extends RunnerBuilder<Builder> {
        private final String threadName;

        private Builder(String threadName) {
            super(WaitStrategies.shared());
            this.threadName = Objects.requireNonNull(threadName, "threadName");
            if (threadName.isEmpty()) {
                throw new IllegalArgumentException("thread name is empty");
            }
        }

        /**
         * Builds the runner; its thread starts with the first {@link CompositeStageRunner#attach}.
         *
         * @return the new runner
         */
        public CompositeStageRunner build() {
            return new CompositeStageRunner(this);
        }
    }
}
