package dev.parallax.core.spi;

import dev.parallax.core.Command;
import dev.parallax.core.GroupSet;
import dev.parallax.core.StateMachine;

/**
 * An {@link Executor} whose workers can be driven directly by per-worker delivery streams, with
 * no scheduling thread between ordering and execution: P-SMR (seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 6, Alg. 1). When the replica's ordering protocol delivers per worker
 * ({@link AtomicBroadcast#deliversPerWorker()}), the replica starts it with
 * {@link #startPerWorker} instead of {@link #start}, subscribes worker i to the groups
 * {@link #workersOf} maps to it, and hands each worker every command of its stream whose worker
 * set contains it ({@link #deliver}). Over a protocol with one total order it runs as a plain
 * {@link Executor}.
 *
 * <p><b>Contract.</b>
 * <ul>
 *   <li><em>Mapping.</em> {@link #workersOf}{@code (γ)} is a pure function of the group set: the
 *       workers that take part in a command to γ, never none. {@link #executorOf} names the one
 *       of them that admits, executes and answers it; every command of one stream (one γ) is thus
 *       executed by one worker, in that worker's delivery order.</li>
 *   <li><em>Admission.</em> The executing worker calls {@link Admission#admit} with the command
 *       before running it, at the point where it would run (with every other worker of the
 *       command waiting); {@code false} means "do not run it" (a duplicate, a gap, or a command
 *       the replica consumes itself, such as a snapshot barrier). Results reach the
 *       {@link ResultSink} from the executing worker's thread.</li>
 *   <li><em>Order.</em> Two commands with a common worker execute in that worker's delivery order;
 *       a command with several workers executes once all of them reached it.</li>
 *   <li><em>Release and restart</em> (snapshot installs): {@link #releaseWorkers} makes every
 *       worker blocked in {@link #deliver} return by throwing {@link IllegalStateException}, and
 *       every later {@code deliver} throw it too, until {@link #restartWorkers}, called with no
 *       {@code deliver} in progress, starts a fresh protocol state (the installed snapshot was
 *       taken where no shared command was half done).</li>
 *   <li><em>Errors</em> as {@link Executor}: an {@link Error} from the state machine is reported
 *       once to {@link ResultSink#onFatal} and every later call throws
 *       {@link IllegalStateException}.</li>
 * </ul>
 *
 * <p><b>Threads.</b> {@link #deliver} for worker i is called by worker i's delivery thread only;
 * {@link #startPerWorker}, {@link #releaseWorkers} and {@link #restartWorkers} by the replica
 * (not concurrently with each other); {@link #workersOf} and {@link #executorOf} from any thread.
 */
public interface WorkerExecutor extends Executor {

    /** k, the number of workers; constant. */
    int workers();

    /**
     * The workers of a command to {@code groups}, bit i for worker i; never 0. Pure and
     * thread-safe.
     */
    long workersOf(GroupSet groups);

    /** The worker that admits, executes and answers a command to {@code groups}: one of {@link #workersOf}. */
    int executorOf(GroupSet groups);

    /**
     * Starts per-worker execution (instead of {@link #start}): no threads of its own.
     *
     * @throws IllegalStateException if already started
     */
    void startPerWorker(StateMachine stateMachine, ResultSink results, Admission admission);

    /**
     * Worker {@code worker}'s next command (one whose {@link #workersOf} contains it); runs the
     * worker's part of it on the calling thread and returns when that part is done.
     *
     * @throws InterruptedException  if interrupted while waiting for another worker
     * @throws IllegalStateException if not started per worker, released, closed or failed
     */
    void deliver(int worker, Command command) throws InterruptedException;

    /** Releases every worker blocked in {@link #deliver} (see the contract); idempotent. */
    void releaseWorkers();

    /** A fresh protocol state after {@link #releaseWorkers}, with no {@link #deliver} in progress. */
    void restartWorkers();

    /**
     * The replica's gate in front of execution, called by the executing worker (see the contract).
     * Must not block for long.
     */
    @FunctionalInterface
    interface Admission {
        /** Whether to run {@code command} now; {@code false}: the admission consumed it. */
        boolean admit(Command command);
    }
}
