package dev.parallax.scheduler.psmr;

import dev.parallax.core.exec.Joins;
import dev.parallax.core.Command;
import dev.parallax.core.StateMachine;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.CommandRouter;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.ResultSink;
import dev.parallax.core.spi.WorkerExecutor;
import dev.parallax.core.stage.StageThreads;

import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * P-SMR's workers ({@link PsmrWorkers}, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6, Alg. 1)
 * as a {@link WorkerExecutor}, in one of two modes chosen by how the replica starts it.
 *
 * <p><b>Per worker</b> ({@link #startPerWorker}): the replica's ordering protocol delivers each
 * worker's own stream on a thread of its own (Multi-Ring Paxos: one subscription per worker), and
 * {@link #deliver} runs the worker's part of Alg. 1 on that thread. This is P-SMR as the paper
 * has it: no thread between ordering and execution, no scheduler, no dependency graph.
 *
 * <p><b>One total order</b> ({@link #start}, the {@link Executor} SPI), for a replica whose ordering
 * protocol delivers one sequence: k worker
 * threads, each with a bounded input queue that stands in for its own multicast subscription.
 * {@link #execute} hands each command to the queue of every worker in its worker set
 * W(γ) = {g mod k : g ∈ γ} ({@link PsmrWorkers#workersOf}); each worker thread takes from its
 * queue, in order, and calls its {@link PsmrWorkers.Worker#deliver}. A command that names no
 * group carries {@link dev.parallax.core.GroupSet#DEFAULT}, {0}, and runs on worker 0; there are no
 * unknown groups, since every group 0..63 maps to worker {@code g mod k}.
 *
 * <p><b>Why the blocking hand-over cannot deadlock.</b> {@link #execute} first waits until every
 * queue of W has room, then puts the command in all of them, in increasing worker order, before
 * it returns; it is the only producer, so room it saw stays. Hence each command is fully enqueued
 * before the next one, every queue holds the multi-worker commands in one order (the delivery
 * order), and no queue ever holds a partly handed command. The earliest command not yet executed
 * is then in the queue of each of its workers behind only commands that executed, so all its
 * workers reach it and it executes; by induction every queued command executes, the queues drain
 * and the blocked {@code execute} proceeds. An interrupted {@code execute} has put the command in
 * no queue.
 *
 * <p><b>Threads.</b> Per worker: {@link #deliver} for worker i on worker i's delivery thread,
 * results reach the sink from those threads, {@link #releaseWorkers} and {@link #restartWorkers}
 * from the replica (see {@link WorkerExecutor}); {@link #execute} and {@link #awaitQuiescence}
 * then throw. One total order: {@link #execute} and {@link #awaitQuiescence} are called by one
 * thread (the ServiceManager), as the {@link Executor} contract says; results reach the sink from
 * the worker threads (daemons named {@code parallax-psmr-<i>}). Either way {@link #close} from any
 * thread stops the group, and in the one-order mode interrupts and joins the workers (queued
 * commands are dropped). State machine exceptions
 * become error results; an {@link Error} is reported once to {@link ResultSink#onFatal}, every
 * waiting worker is released, and later calls throw {@link IllegalStateException}.
 */
public final class PsmrExecutor implements WorkerExecutor {
    /** How long the scheduling thread parks at most per check while a queue is full. */
    private static final long SPACE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final int k;
    private final int queueCapacity;
    private final CommandRouter groupsOf;
    private final ArrayBlockingQueue<Command>[] queues;
    private volatile PsmrWorkers workers;
    private volatile Thread[] threads;
    private volatile boolean closed;
    /** Per-worker mode: what a restart builds the next group from. */
    private StateMachine perWorkerMachine;
    private ResultSink perWorkerResults;
    private Admission perWorkerAdmission;
    private volatile Thread blockedProducer;
    private long submitted;

    /**
     * @param workers       k, the number of worker threads, 1..{@link PsmrWorkers#MAX_WORKERS}
     * @param queueCapacity the bound of each worker's input queue, {@code >= 1}
     * @throws IllegalArgumentException if an argument is out of range
     */
    public PsmrExecutor(int workers, int queueCapacity) {
        this(workers, queueCapacity, null);
    }

    /**
     * As {@link #PsmrExecutor(int, int)}, checking each command's groups against the service's C-G
     * function {@code groupsOf} before it runs (see {@link PsmrWorkers#PsmrWorkers(int,
     * StateMachine, ResultSink, WorkerExecutor.Admission, CommandRouter)}); null trusts them.
     */
    @SuppressWarnings("unchecked")
    public PsmrExecutor(int workers, int queueCapacity, CommandRouter groupsOf) {
        if (workers < 1 || workers > PsmrWorkers.MAX_WORKERS) {
            throw new IllegalArgumentException("workers must be 1.." + PsmrWorkers.MAX_WORKERS + ", got " + workers);
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be >= 1, got " + queueCapacity);
        }
        this.k = workers;
        this.queueCapacity = queueCapacity;
        this.groupsOf = groupsOf;
        this.queues = new ArrayBlockingQueue[workers];
        for (int i = 0; i < workers; i++) {
            queues[i] = new ArrayBlockingQueue<>(queueCapacity);
        }
    }

    /** k, the number of workers. */
    @Override
    public int workers() {
        return k;
    }

    /** W(γ) = {g mod k : g ∈ γ} ({@link PsmrWorkers#workersOf}). */
    @Override
    public long workersOf(GroupSet groups) {
        return PsmrWorkers.workersOf(groups, k);
    }

    /** e = min W(γ) ({@link PsmrWorkers#executorOf}). */
    @Override
    public int executorOf(GroupSet groups) {
        return PsmrWorkers.executorOf(workersOf(groups));
    }

    @Override
    public synchronized void startPerWorker(StateMachine stateMachine, ResultSink results, Admission admission) {
        Objects.requireNonNull(stateMachine, "stateMachine");
        Objects.requireNonNull(results, "results");
        Objects.requireNonNull(admission, "admission");
        if (workers != null || closed) {
            throw new IllegalStateException("p-smr executor already started");
        }
        perWorkerMachine = stateMachine;
        perWorkerResults = results;
        perWorkerAdmission = admission;
        workers = new PsmrWorkers(k, stateMachine, results, admission, groupsOf);
    }

    @Override
    public void deliver(int worker, Command command) throws InterruptedException {
        PsmrWorkers group = workers;
        if (group == null || threads != null) {
            throw new IllegalStateException("p-smr executor not started per worker");
        }
        group.worker(worker).deliver(command);
    }

    @Override
    public void releaseWorkers() {
        PsmrWorkers group = workers;
        if (group != null) {
            group.close();
        }
    }

    @Override
    public synchronized void restartWorkers() {
        if (perWorkerMachine == null) {
            throw new IllegalStateException("p-smr executor not started per worker");
        }
        if (closed) {
            throw new IllegalStateException("p-smr executor closed");
        }
        PsmrWorkers old = workers;
        if (old.failure() != null) {
            throw new IllegalStateException("p-smr executor failed", old.failure());
        }
        workers = new PsmrWorkers(k, perWorkerMachine, perWorkerResults, perWorkerAdmission, groupsOf);
    }

    /** The bound of each worker's input queue. */
    public int queueCapacity() {
        return queueCapacity;
    }

    @Override
    public synchronized void start(StateMachine stateMachine, ResultSink results) {
        Objects.requireNonNull(stateMachine, "stateMachine");
        Objects.requireNonNull(results, "results");
        if (workers != null || closed) {
            throw new IllegalStateException("p-smr executor already started");
        }
        PsmrWorkers group = new PsmrWorkers(k, stateMachine, results, command -> true, groupsOf);
        Thread[] ts = new Thread[k];
        for (int i = 0; i < k; i++) {
            PsmrWorkers.Worker w = group.worker(i);
            ArrayBlockingQueue<Command> q = queues[i];
            ts[i] = StageThreads.newThread("parallax-psmr-" + i, true, () -> runWorker(group, w, q));
        }
        this.workers = group;
        this.threads = ts;
        for (Thread t : ts) {
            t.start();
        }
    }

    /**
     * Puts {@code command} in the queue of every worker of its worker set, in increasing worker
     * order, after waiting until all of them have room.
     */
    @Override
    public void execute(Command command) throws InterruptedException {
        Objects.requireNonNull(command, "command");
        checkUsable();
        if (threads == null) {
            throw new IllegalStateException("p-smr executor runs per worker: commands arrive through deliver");
        }
        long w = PsmrWorkers.workersOf(command.groups(), k);
        for (long rest = w; rest != 0; rest &= rest - 1) {
            awaitSpace(queues[Long.numberOfTrailingZeros(rest)]);
        }
        for (long rest = w; rest != 0; rest &= rest - 1) {
            if (!queues[Long.numberOfTrailingZeros(rest)].offer(command)) {
                throw new IllegalStateException("a worker queue lost its room: a second producer?");
            }
        }
        submitted++;
    }

    @Override
    public void awaitQuiescence() throws InterruptedException {
        checkUsable();
        if (threads == null) {
            throw new IllegalStateException("p-smr executor runs per worker: it is quiescent at barriers, not on demand");
        }
        workers.awaitCompleted(submitted);
    }

    @Override
    public void close() {
        Thread[] ts;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            ts = threads;
        }
        PsmrWorkers group = workers;
        if (group != null) {
            group.close();
        }
        if (ts == null) {
            return;
        }
        for (Thread t : ts) {
            t.interrupt();
        }
        Joins.joinAllUninterruptibly(ts);
    }

    private void runWorker(PsmrWorkers group, PsmrWorkers.Worker worker, ArrayBlockingQueue<Command> queue) {
        try {
            while (true) {
                Command c = queue.take();
                Thread p = blockedProducer;
                if (p != null) {
                    LockSupport.unpark(p);
                }
                worker.deliver(c);
            }
        } catch (InterruptedException | IllegalStateException e) {
            // closed (close interrupts the workers) or failed (the sink was told): nothing left to do
        } catch (RuntimeException e) {
            group.fail(null, e); // a bug of this adapter (deliver rejects no command it routes)
        }
    }

    /** Blocks until {@code queue} has room; only this thread adds, so the room stays. */
    private void awaitSpace(ArrayBlockingQueue<Command> queue) throws InterruptedException {
        while (queue.remainingCapacity() == 0) {
            checkUsable();
            blockedProducer = Thread.currentThread();
            try {
                if (queue.remainingCapacity() == 0) {
                    LockSupport.parkNanos(this, SPACE_PARK_NANOS);
                }
            } finally {
                blockedProducer = null;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while a p-smr worker queue is full");
            }
        }
    }

    private void checkUsable() {
        PsmrWorkers group = workers;
        Throwable f = group == null ? null : group.failure();
        if (f != null) {
            throw new IllegalStateException("p-smr executor failed", f);
        }
        if (closed) {
            throw new IllegalStateException("p-smr executor closed");
        }
        if (group == null) {
            throw new IllegalStateException("p-smr executor not started");
        }
    }
}
