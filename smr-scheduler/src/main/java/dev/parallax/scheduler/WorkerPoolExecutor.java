package dev.parallax.scheduler;

import dev.parallax.core.exec.Joins;
import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.StateMachine;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.ResultSink;
import dev.parallax.core.stage.StageThreads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What every multi-threaded executor shares: the life cycle (start, close joining every worker),
 * the per-command run with error results (the sequential executor's {@link SequentialExecutor#run}),
 * the error result of an unclassifiable command, quiescence, the fatal-error path and the blocking
 * of the scheduling thread on a full queue.
 *
 * <p>Threads: {@link #execute} and {@link #awaitQuiescence} from one scheduling thread, as the
 * {@link Executor} contract says; {@link #close} from any thread. Subclasses run their workers'
 * loops in {@link #workerLoop(int)}.
 */
abstract class WorkerPoolExecutor implements Executor {
    private static final VarHandle SUBMITTED_VIEW;
    private static final long PRODUCER_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    static {
        try {
            SUBMITTED_VIEW = MethodHandles.lookup().findVarHandle(WorkerPoolExecutor.class, "submittedView", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    final int threadCount;
    final Sleeper[] sleepers;
    final CompletionCounter[] completed;
    private volatile Thread[] threads;
    private StateMachine stateMachine;
    private ResultSink sink;

    private volatile boolean running;
    private volatile boolean closed;
    private volatile Throwable fatal;
    private final AtomicBoolean failing = new AtomicBoolean();
    private volatile Thread quiescenceWaiter;
    private volatile Thread blockedProducer;
    private long submitted;
    @SuppressWarnings("unused")
    private volatile long submittedView;

    WorkerPoolExecutor(String name, int threadCount) {
        if (threadCount < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threadCount);
        }
        this.name = name;
        this.threadCount = threadCount;
        this.sleepers = new Sleeper[threadCount];
        this.completed = new CompletionCounter[threadCount];
        for (int i = 0; i < threadCount; i++) {
            sleepers[i] = new Sleeper();
            completed[i] = new CompletionCounter();
        }
    }

    @Override
    public final synchronized void start(StateMachine stateMachine, ResultSink results) {
        Objects.requireNonNull(stateMachine, "stateMachine");
        Objects.requireNonNull(results, "results");
        if (threads != null || closed) {
            throw new IllegalStateException(name + " executor already started");
        }
        this.stateMachine = stateMachine;
        this.sink = results;
        this.running = true;
        Thread[] ts = new Thread[threadCount];
        for (int i = 0; i < threadCount; i++) {
            int id = i;
            ts[i] = StageThreads.newThread("parallax-" + name + "-" + i, true, () -> runWorker(id));
            sleepers[i].bind(ts[i]);
        }
        this.threads = ts;
        for (Thread t : ts) {
            t.start();
        }
    }

    /**
     * Hands {@code command} to the workers, or, if the application's classifier or conflict relation
     * cannot handle it, delivers its error result to {@link ResultSink#onUnclassifiable} on this
     * thread and goes on.
     */
    @Override
    public final void execute(Command command) throws InterruptedException {
        Objects.requireNonNull(command, "command");
        checkUsable();
        try {
            submit(command);
        } catch (UnclassifiableCommandException e) {
            sink.onUnclassifiable(command, e.result());
            return;
        }
        submitted++;
        SUBMITTED_VIEW.setRelease(this, submitted);
    }

    /**
     * Hands {@code command} to the workers; may block (through {@link #awaitSpace}) while a target
     * queue is full, but must not take the command partially when interrupted.
     *
     * @throws UnclassifiableCommandException if the command cannot be scheduled; it was not taken
     */
    abstract void submit(Command command) throws InterruptedException;

    /** The loop of worker {@code id}; returns or throws {@link StoppedSignal} when stopped. */
    abstract void workerLoop(int id) throws Exception;

    @Override
    public final void awaitQuiescence() throws InterruptedException {
        checkUsable();
        if (completedTotal() >= submitted) {
            return;
        }
        quiescenceWaiter = Thread.currentThread();
        try {
            while (completedTotal() < submitted) {
                checkUsable();
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            quiescenceWaiter = null;
        }
    }

    @Override
    public final void close() {
        Thread[] ts;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            running = false;
            ts = threads;
        }
        if (ts == null) {
            return;
        }
        for (Thread t : ts) {
            LockSupport.unpark(t);
            t.interrupt();
        }
        Joins.joinAllUninterruptibly(ts);
    }

    final boolean running() {
        return running;
    }

    /** Throws {@link StoppedSignal} if the executor stopped; for workers' wait loops. */
    final void checkRunning() {
        if (!running) {
            throw StoppedSignal.INSTANCE;
        }
    }

    /**
     * Runs one command on the state machine and delivers its result, exactly as the sequential
     * executor does ({@link SequentialExecutor#run}: a {@link RuntimeException} or a {@code null}
     * reply becomes an error result). An {@link Error} stops the executor ({@link #fail}) and
     * unwinds the worker with {@link StoppedSignal}. Called by worker {@code worker}.
     */
    final void runCommand(int worker, Command command) {
        CommandResult result;
        try {
            result = SequentialExecutor.run(stateMachine, command);
        } catch (Error e) {
            fail(command, e);
            throw StoppedSignal.INSTANCE;
        }
        sink.onResult(command, result);
        completed[worker].increment();
    }

    /**
     * Publishes worker {@code worker}'s completions and wakes the thread waiting for quiescence.
     * Workers call it when they run out of work, before they idle.
     */
    final void publishCompletions(int worker) {
        if (completed[worker].publish()) {
            Thread w = quiescenceWaiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
        }
    }

    /** Commands handed over so far, as last published by the scheduling thread. */
    final long submittedView() {
        return (long) SUBMITTED_VIEW.getAcquire(this);
    }

    final long completedTotal() {
        long sum = 0;
        for (CompletionCounter c : completed) {
            sum += c.published();
        }
        return sum;
    }

    /**
     * Blocks the scheduling thread until {@code space.holds()}: spins, yields, then parks in
     * short slices; workers that free space call {@link #wakeProducer()} (a lost wake-up costs at
     * most one slice, never progress).
     *
     * @throws InterruptedException if interrupted while waiting
     */
    final void awaitSpace(WaitCheck space) throws InterruptedException {
        int round = 0;
        while (!space.holds()) {
            checkUsable();
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (!Idle.spinOrYield(round++, Idle.SPINS)) {
                blockedProducer = Thread.currentThread();
                if (!space.holds()) {
                    LockSupport.parkNanos(this, PRODUCER_PARK_NANOS);
                }
                blockedProducer = null;
            }
        }
    }

    /** Wakes the scheduling thread if it is blocked on a full queue. Called by workers. */
    final void wakeProducer() {
        Thread p = blockedProducer;
        if (p != null) {
            LockSupport.unpark(p);
        }
    }

    /** Parks worker {@code id} until woken, unless {@code stillIdle} is false after announcing. */
    final void park(int id, WaitCheck stillIdle) {
        Sleeper s = sleepers[id];
        s.announce();
        VarHandle.fullFence();
        try {
            if (stillIdle.holds() && running) {
                LockSupport.park(this);
            }
        } finally {
            s.clear();
        }
        Thread.interrupted();
        checkRunning();
    }

    private void runWorker(int id) {
        try {
            workerLoop(id);
        } catch (StoppedSignal | InterruptedException e) {
            // close() stops the workers: nothing left to do
        } catch (Exception e) {
            if (running) {
                fail(null, e);
            }
        } catch (Throwable t) {
            fail(null, t);
        }
    }

    /**
     * Stops the executor after an {@link Error} from the state machine (while running
     * {@code command}) or a failure of the result sink ({@code command} is {@code null}): the
     * replica can no longer guarantee equal states. Tells the sink once ({@link ResultSink#onFatal}),
     * then {@link #execute} and {@link #awaitQuiescence} report it.
     */
    private void fail(Command command, Throwable t) {
        if (!failing.compareAndSet(false, true)) {
            return;
        }
        try {
            sink.onFatal(command, t);
        } catch (RuntimeException | Error e) {
            t.addSuppressed(e);
        }
        fatal = t;
        running = false;
        Thread[] ts = threads;
        for (Thread x : ts) {
            if (x != Thread.currentThread()) {
                LockSupport.unpark(x);
                x.interrupt();
            }
        }
        Thread w = quiescenceWaiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        wakeProducer();
    }

    private void checkUsable() {
        Throwable f = fatal;
        if (f != null) {
            throw new IllegalStateException(name + " executor failed", f);
        }
        if (closed) {
            throw new IllegalStateException(name + " executor closed");
        }
        if (threads == null) {
            throw new IllegalStateException(name + " executor not started");
        }
    }

    /** A condition that a waiting loop re-checks. */
    @FunctionalInterface
    interface WaitCheck {
        boolean holds();
    }
}
