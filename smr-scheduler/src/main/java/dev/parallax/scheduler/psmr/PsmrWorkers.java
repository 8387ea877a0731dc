package dev.parallax.scheduler.psmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import dev.parallax.core.StateMachine;
import dev.parallax.core.spi.CommandRouter;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.spi.ResultSink;
import dev.parallax.core.spi.WorkerExecutor;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * P-SMR's k workers and their signal protocol (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6,
 * Alg. 1 l.7-26), with no threads of their own: each worker is driven by its own delivery thread
 * through {@link Worker#deliver}, and runs every command on that thread.
 *
 * <p><b>Mapping.</b> Group g belongs to worker {@code g mod k}. A command's destination γ
 * ({@link Command#groups()}, computed by the service's C-G function) gives its worker set
 * W(γ) = {g mod k : g ∈ γ} ({@link #workersOf}). A {@link GroupSet} is never empty and every group
 * maps to a worker, so every command has at least one worker; a command that names no group
 * travels as {@link GroupSet#DEFAULT}, {0}, and goes to worker 0.
 *
 * <p><b>Protocol.</b> Worker i delivering command C:
 * <ul>
 *   <li>W = {i}: parallel mode, i executes C and delivers the result (Alg. 1 l.10-13);</li>
 *   <li>|W| &gt; 1: synchronous mode (l.15-26). The executor is e = {@link #executorOf}(W) = min W
 *       (l.16). If i = e, it waits for a signal from every other member of W (l.18-19), executes C,
 *       delivers the result (l.20-21), then signals them all (l.22-23). Otherwise i signals e
 *       (l.25) and waits for e's signal (l.26).</li>
 * </ul>
 * "This command" is identified by per-pair sequence numbers: every two workers deliver the
 * commands they share in the same relative order (the multicast's merge), so the n-th command
 * in which member j signals executor e is the same command on both sides. Member j counts its
 * signals to e and publishes the count; e counts the signals it expects from j and releases j by
 * publishing the same count. Each counter has one writer. A waiting worker spins briefly, then
 * parks; whoever publishes a count unparks it.
 *
 * <p><b>Why it is correct and cannot deadlock.</b> A multi-worker command executes while every
 * member of W is inside it, so two commands with a common worker execute in that worker's
 * delivery order, which is the total order restricted to it; when the C-G gives every two dependent
 * commands a common group, every dependent pair executes in delivery order. Every worker meets
 * the multi-worker commands in one acyclic order, so the earliest unfinished command in that
 * order always has all its members arriving at it.
 *
 * <p><b>Threads and blocking.</b> {@link Worker#deliver} of worker i is called by one thread at a
 * time (that worker's delivery thread), in worker i's delivery order; different workers' threads
 * run concurrently. The state machine runs on those threads, concurrently for commands with
 * disjoint worker sets, and the results reach the {@link ResultSink} from them. {@code deliver}
 * blocks in synchronous mode until the command's other workers arrive. {@link #awaitCompleted} is
 * for one waiting thread at a time; {@link #close} and the queries are thread-safe.
 *
 * <p><b>Errors.</b> A {@link RuntimeException} from the state machine becomes an error result and
 * the workers go on ({@link SequentialExecutor#run}). An {@link Error} from the state machine (or a
 * failure of the sink) is fatal: it is reported once to {@link ResultSink#onFatal}, every waiting
 * worker is released, and every later or pending {@code deliver} and {@code awaitCompleted} throws
 * {@link IllegalStateException} with the error as its cause. Nobody hangs after a failure or a
 * {@link #close}.
 */
public final class PsmrWorkers implements AutoCloseable {
    /** The largest number of workers: one bit of a worker set per worker, as {@link GroupSet}. */
    public static final int MAX_WORKERS = 64;
    /** Condition checks before a waiting worker parks (short: 2 cores may host 64 workers). */
    private static final int SPINS = 64;

    private final int k;
    private final StateMachine stateMachine;
    private final ResultSink sink;
    private final ExecutorChoice choice;
    private final WorkerExecutor.Admission admission;
    /** The service's C-G function, to check each command's groups against, or null (trusted). */
    private final CommandRouter groupsOf;
    private final Worker[] workers;
    /** Index e * k + j: how many times member j signalled executor e (written by j only). */
    private final AtomicLongArray signals;
    /** Index j * k + e: how many times executor e released member j (written by e only). */
    private final AtomicLongArray releases;
    private final AtomicBoolean failing = new AtomicBoolean();
    private volatile Throwable fatal;
    private volatile boolean closed;
    private volatile Thread completionWaiter;

    /**
     * @param workers      k, the number of workers, 1..{@link #MAX_WORKERS}
     * @param stateMachine the service; must tolerate concurrent execution of commands with disjoint
     *                     worker sets
     * @param results      receives every result, from the workers' delivery threads
     * @throws IllegalArgumentException if {@code workers} is out of range
     */
    public PsmrWorkers(int workers, StateMachine stateMachine, ResultSink results) {
        this(workers, stateMachine, results, (WorkerExecutor.Admission) command -> true);
    }

    /**
     * As {@link #PsmrWorkers(int, StateMachine, ResultSink)}, with the replica's gate in front of
     * execution: the executing worker of every command calls {@code admission} first (with the
     * command's other workers waiting for it) and runs the command only if it returns
     * {@code true}; a command it refuses counts as completed. A {@link RuntimeException} from it
     * is fatal, like a failure of the sink.
     */
    public PsmrWorkers(int workers, StateMachine stateMachine, ResultSink results, WorkerExecutor.Admission admission) {
        this(workers, stateMachine, results, admission, null, PsmrWorkers::executorOf);
    }

    /**
     * As {@link #PsmrWorkers(int, StateMachine, ResultSink, WorkerExecutor.Admission)}, checking
     * every admitted command against the service's C-G function {@code groupsOf} before it runs:
     * a command whose groups γ do not cover the workers of the groups {@code groupsOf} gives it
     * (a client that did not route it, or routed it wrongly) would run while a worker it touches
     * runs something else. It is not executed: it gets an error result through
     * {@link ResultSink#onUnclassifiable}, the same on every replica (the check is a function of
     * the command). {@code null}: commands' groups are trusted.
     */
    public PsmrWorkers(int workers, StateMachine stateMachine, ResultSink results, WorkerExecutor.Admission admission,
                       CommandRouter groupsOf) {
        this(workers, stateMachine, results, admission, groupsOf, PsmrWorkers::executorOf);
    }

    /** With a pluggable choice of the executing worker: for tests of the rule only. */
    PsmrWorkers(int workers, StateMachine stateMachine, ResultSink results, ExecutorChoice choice) {
        this(workers, stateMachine, results, (WorkerExecutor.Admission) command -> true, null, choice);
    }

    private PsmrWorkers(int workers, StateMachine stateMachine, ResultSink results, WorkerExecutor.Admission admission,
                        CommandRouter groupsOf, ExecutorChoice choice) {
        checkWorkerCount(workers);
        this.admission = Objects.requireNonNull(admission, "admission");
        this.groupsOf = groupsOf;
        this.k = workers;
        this.stateMachine = Objects.requireNonNull(stateMachine, "stateMachine");
        this.sink = Objects.requireNonNull(results, "results");
        this.choice = Objects.requireNonNull(choice, "choice");
        this.signals = new AtomicLongArray(workers * workers);
        this.releases = new AtomicLongArray(workers * workers);
        this.workers = new Worker[workers];
        for (int i = 0; i < workers; i++) {
            this.workers[i] = new Worker(i);
        }
    }

    /**
     * The worker set W(γ) of a command to {@code groups} among {@code workers} workers, as a bit
     * mask: bit {@code g mod workers} for every group g of γ. Never 0. Thread-safe.
     *
     * @throws IllegalArgumentException if {@code workers} is out of 1..{@link #MAX_WORKERS}
     */
    public static long workersOf(GroupSet groups, int workers) {
        checkWorkerCount(workers);
        if (workers == MAX_WORKERS) {
            return groups.bits();
        }
        long mask = 0;
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            mask |= 1L << (g % workers);
        }
        return mask;
    }

    /**
     * THE rule that picks the worker executing a multi-worker command: e = min W, the lowest worker
     * of the set (seed 003 ch. 6, Alg. 1 l.16, "pick a thread deterministically"). Every member
     * computes it alone from the command, so all agree without a message. For a single worker it
     * is that worker.
     *
     * @param workerMask W as a bit mask ({@link #workersOf})
     * @throws IllegalArgumentException if {@code workerMask} is 0
     */
    public static int executorOf(long workerMask) {
        if (workerMask == 0) {
            throw new IllegalArgumentException("an empty worker set has no executor");
        }
        return Long.numberOfTrailingZeros(workerMask);
    }

    /**
     * Why {@code command} may not run with its groups (they do not cover the workers of the groups
     * the C-G function gives it), or null if it may (or no C-G function was given).
     */
    String misrouted(Command command) {
        if (groupsOf == null) {
            return null;
        }
        GroupSet needed;
        try {
            needed = Objects.requireNonNull(groupsOf.route(command.payload().duplicate()), "the C-G function returned null");
        } catch (RuntimeException e) {
            return "p-smr: the service's C-G function cannot route " + command.id() + ": " + e.getMessage();
        }
        long have = workersOf(command.groups(), k);
        if ((workersOf(needed, k) & ~have) != 0) {
            return "p-smr: " + command.id() + " was addressed to groups " + command.groups() + " but touches groups "
                    + needed + "; send it with the service's C-G function (for the KV store: routing by key, KvRouting)";
        }
        return null;
    }

    /** k, the number of workers. */
    public int size() {
        return k;
    }

    /**
     * The handle of worker {@code i}, for its delivery thread.
     *
     * @throws IndexOutOfBoundsException if {@code i} is not in 0..k-1
     */
    public Worker worker(int i) {
        Objects.checkIndex(i, k);
        return workers[i];
    }

    /**
     * Commands executed so far whose result the sink accepted, over all workers (a multi-worker
     * command counts once, for its executor). Thread-safe.
     */
    public long completed() {
        long sum = 0;
        for (Worker w : workers) {
            sum += w.completed;
        }
        return sum;
    }

    /**
     * Blocks until {@link #completed()} reaches {@code count}. One waiting thread at a time.
     *
     * @throws InterruptedException  if interrupted while waiting
     * @throws IllegalStateException if the workers are closed or failed (the error is the cause)
     */
    public void awaitCompleted(long count) throws InterruptedException {
        checkUsable();
        if (completed() >= count) {
            return;
        }
        completionWaiter = Thread.currentThread();
        try {
            while (completed() < count) {
                checkUsable();
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while awaiting " + count + " completions");
                }
            }
        } finally {
            completionWaiter = null;
        }
    }

    /** The fatal error that stopped the workers, or {@code null}. Thread-safe. */
    public Throwable failure() {
        return fatal;
    }

    /**
     * What every worker waits for, one line per worker: a diagnostic for dumps (a watchdog's, a
     * stuck replica's); the fields are read without a common snapshot. Thread-safe.
     */
    public String waitReport() {
        StringBuilder b = new StringBuilder();
        for (Worker w : workers) {
            b.append("worker ").append(w.index).append(": completed ").append(w.completed);
            int partner = w.waitPartner;
            if (partner >= 0) {
                b.append(", in ").append(w.waitCommand).append(" waits for ")
                        .append(w.waitRelease ? "the release by executor " : "the signal of member ")
                        .append(partner).append(" #").append(w.waitSeq).append(" (has ")
                        .append(w.waitRelease ? releases.get(w.index * k + partner)
                                : signals.get(w.index * k + partner))
                        .append(')');
            } else {
                b.append(", not waiting");
            }
            b.append('\n');
        }
        return b.toString();
    }

    /**
     * Stops the group: every waiting worker is released and throws {@link IllegalStateException},
     * as does every later {@code deliver} and {@code awaitCompleted}. Idempotent; never blocks.
     */
    @Override
    public void close() {
        closed = true;
        wakeAll();
    }

    /**
     * Stops the group for good after an {@link Error} from the state machine while executing
     * {@code command}, or a failure of the sink ({@code command} {@code null}); tells the sink once.
     */
    void fail(Command command, Throwable error) {
        if (!failing.compareAndSet(false, true)) {
            return;
        }
        try {
            sink.onFatal(command, error);
        } catch (RuntimeException | Error e) {
            error.addSuppressed(e);
        }
        fatal = error;
        wakeAll();
    }

    private void wakeAll() {
        for (Worker w : workers) {
            unpark(w);
        }
        Thread t = completionWaiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private static void unpark(Worker w) {
        Thread t = w.waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void checkUsable() {
        if (fatal != null || closed) {
            throw stopped();
        }
    }

    private IllegalStateException stopped() {
        Throwable f = fatal;
        if (f != null) {
            return new IllegalStateException("p-smr workers failed", f);
        }
        return new IllegalStateException(failing.get() ? "p-smr workers failed" : "p-smr workers closed");
    }

    private static void checkWorkerCount(int workers) {
        if (workers < 1 || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("workers must be 1.." + MAX_WORKERS + ", got " + workers);
        }
    }

    /**
     * One worker, t_i of Alg. 1: the entry point of its delivery thread. Not thread-safe by
     * design: one thread delivers to it, in its delivery order.
     */
    public final class Worker {
        private final int index;
        private final long self;
        /** Member side: signals this worker sent to executor e (index e); its own copy of signals. */
        private final long[] signalled;
        /** Executor side: signals expected from member j so far (index j); = releases it gave j. */
        private final long[] expected;
        private volatile Thread waiter;
        private volatile long completed;
        private volatile int waitPartner = -1;
        private volatile boolean waitRelease;
        private volatile long waitSeq;
        private volatile CommandId waitCommand;

        private Worker(int index) {
            this.index = index;
            this.self = 1L << index;
            this.signalled = new long[k];
            this.expected = new long[k];
        }

        /** i, this worker's index. */
        public int index() {
            return index;
        }

        /**
         * Delivers the next command of this worker's stream and runs its part of Alg. 1 on the
         * calling thread: executes it (alone, or as the executor after every other member
         * signalled), or signals the executor and waits for its release. Returns when this
         * worker's part is done. An error result of the state machine is delivered like any result.
         *
         * @throws IllegalArgumentException if the command's worker set does not contain this worker
         *                                  (nothing changes; the stream may go on)
         * @throws InterruptedException     if interrupted while waiting for another worker; the group
         *                                  is then closed (its members can no longer meet)
         * @throws IllegalStateException    if the group is closed or failed, including when this call
         *                                  hit the fatal error (reported to the sink first)
         */
        public void deliver(Command command) throws InterruptedException {
            Objects.requireNonNull(command, "command");
            checkUsable();
            long w = workersOf(command.groups(), k);
            if ((w & self) == 0) {
                throw new IllegalArgumentException("worker " + index + " is not a destination of " + command.id()
                        + " (groups " + command.groups() + " over " + k + " workers)");
            }
            if (w == self) {
                run(command);                                        // l.10-13
                return;
            }
            int e = choice.executorOf(w);                            // l.16
            if (e < 0 || e >= k || (w & (1L << e)) == 0) {
                throw new IllegalStateException("executor " + e + " is not a destination of " + command.id());
            }
            if (e == index) {
                for (long rest = w & ~self; rest != 0; rest &= rest - 1) {   // l.18-19
                    int j = Long.numberOfTrailingZeros(rest);
                    await(signals, index * k + j, ++expected[j], j, false, command);
                }
                run(command);                                        // l.20-21
                for (long rest = w & ~self; rest != 0; rest &= rest - 1) {   // l.22-23
                    int j = Long.numberOfTrailingZeros(rest);
                    releases.set(j * k + index, expected[j]);
                    unpark(workers[j]);
                }
            } else {
                long n = ++signalled[e];
                signals.set(e * k + index, n);                       // l.25
                unpark(workers[e]);
                await(releases, index * k + e, n, e, true, command); // l.26
            }
        }

        private void run(Command command) {
            boolean admitted;
            try {
                admitted = admission.admit(command);
            } catch (RuntimeException e) {
                fail(command, e);
                throw stopped();
            }
            if (!admitted) {
                countCompleted(); // consumed by the admission: done
                return;
            }
            String misrouted = misrouted(command);
            if (misrouted != null) {
                try {
                    sink.onUnclassifiable(command, CommandResult.error(misrouted));
                } catch (RuntimeException e) {
                    fail(null, e);
                    throw stopped();
                }
                countCompleted();
                return;
            }
            CommandResult result;
            try {
                result = SequentialExecutor.run(stateMachine, command);
            } catch (Error e) {
                fail(command, e);
                throw stopped();
            }
            try {
                sink.onResult(command, result);
            } catch (RuntimeException e) {
                fail(null, e);
                throw stopped();
            }
            countCompleted();
        }

        private void countCompleted() {
            completed = completed + 1; // one writer: this worker's delivery thread
            Thread t = completionWaiter;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }

        /** Waits until {@code counts[slot] >= n}: spins briefly, then parks until unparked. */
        private void await(AtomicLongArray counts, int slot, long n, int partner, boolean release, Command command)
                throws InterruptedException {
            for (int s = 0; s < SPINS; s++) {
                if (counts.get(slot) >= n) {
                    return;
                }
                Thread.onSpinWait();
            }
            waitCommand = command.id();
            waitSeq = n;
            waitRelease = release;
            waitPartner = partner;
            // Publish the waiter before re-checking: a publisher writes the count, then reads the
            // waiter (all volatile), so one of the two sees the other and no wake-up is lost.
            waiter = Thread.currentThread();
            try {
                while (counts.get(slot) < n) {
                    checkUsable();
                    LockSupport.park(this);
                    if (Thread.interrupted()) {
                        close();
                        throw new InterruptedException("worker " + index + " interrupted in " + command.id());
                    }
                }
            } finally {
                waiter = null;
                waitPartner = -1;
            }
        }
    }
}
