package dev.parallax.scheduler;

import dev.parallax.core.spi.Executor;
import dev.parallax.scheduler.classmap.ClassMap;
import dev.parallax.scheduler.psmr.PsmrExecutor;

import java.util.Objects;

/**
 * Factories for every {@link Executor} of this module; each call returns a new, unstarted
 * executor. A replica runs its decided commands through the one it is given.
 *
 * <pre>{@code
 * ShardedClasses classes = new ShardedClasses(2);
 * Executor ex = Execution.earlyScheduling(classes.classMap(), myClassifier, SyncMode.BUSY_WAIT);
 * ex.start(stateMachine, sink);
 * ex.execute(command);           // delivery order, one thread
 * ex.awaitQuiescence();          // e.g. before a snapshot
 * ex.close();                    // joins the workers
 * }</pre>
 *
 * <p>Every executor follows the {@link Executor} contract: {@code execute} and
 * {@code awaitQuiescence} from one thread; results reach the sink from worker threads (the caller's
 * thread for {@link #sequential()}); a command whose execution throws a {@link RuntimeException}
 * gets {@link dev.parallax.core.CommandResult#failed} and execution goes on, as does one the
 * classifier or conflict relation throws on (it gets an "unclassifiable command" error result); an
 * {@link Error} is fatal ({@link dev.parallax.core.spi.ResultSink#onFatal}); {@code close} stops and
 * joins every worker. Workers are daemon threads named {@code parallax-<kind>-<id>}. Stateless
 * and thread-safe.
 */
public final class Execution {
    /** Default bound of each worker's input (ready) queue under early scheduling. */
    public static final int DEFAULT_QUEUE_CAPACITY = 1024;
    /** Default bound of the late-scheduling dependency graph. */
    public static final int DEFAULT_GRAPH_CAPACITY = 256;

    private Execution() {
    }

    /** Runs each command on the caller's thread, in delivery order: the reference. */
    public static Executor sequential() {
        return new dev.parallax.core.exec.SequentialExecutor();
    }

    /**
     * Late scheduling with a CBASE dependency graph of at most {@link #DEFAULT_GRAPH_CAPACITY}
     * commands.
     *
     * @param conflicts which commands must keep their delivery order; use
     *                  {@link ConflictRelation#byClass} to reuse a class map's conflict graph
     * @param threads   worker threads, {@code >= 1}
     * @throws IllegalArgumentException if {@code threads < 1}
     */
    public static Executor lateScheduling(ConflictRelation conflicts, int threads) {
        return lateScheduling(conflicts, threads, DEFAULT_GRAPH_CAPACITY);
    }

    /**
     * Late scheduling with a dependency graph of at most {@code capacity} commands;
     * {@code execute} blocks while it is full.
     *
     * @throws IllegalArgumentException if {@code threads < 1} or {@code capacity < 1}
     */
    public static Executor lateScheduling(ConflictRelation conflicts, int threads, int capacity) {
        return new LateSchedulingExecutor(Objects.requireNonNull(conflicts, "conflicts"), threads, capacity);
    }

    /**
     * Early scheduling over {@code classMap.threadCount()} workers with input queues of
     * {@link #DEFAULT_QUEUE_CAPACITY} commands.
     *
     * @param classMap   the class-to-threads map (validated when built)
     * @param classifier the class of each command, an index into {@code classMap}
     * @param mode       how workers synchronize on SEQ requests and whether they steal
     */
    public static Executor earlyScheduling(ClassMap classMap, CommandClassifier classifier, SyncMode mode) {
        return earlyScheduling(classMap, classifier, mode, DEFAULT_QUEUE_CAPACITY);
    }

    /**
     * Early scheduling with input (ready) queues of {@code queueCapacity} commands per worker;
     * {@code execute} blocks while a queue it must use is full.
     *
     * @throws IllegalArgumentException if {@code queueCapacity < 1}
     */
    public static Executor earlyScheduling(ClassMap classMap, CommandClassifier classifier, SyncMode mode,
                                           int queueCapacity) {
        Objects.requireNonNull(classMap, "classMap");
        Objects.requireNonNull(classifier, "classifier");
        Objects.requireNonNull(mode, "mode");
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be >= 1, got " + queueCapacity);
        }
        return mode.steals()
                ? new WorkStealingExecutor(classMap, classifier, mode, queueCapacity)
                : new EarlySchedulingExecutor(classMap, classifier, mode, queueCapacity);
    }

    /**
     * P-SMR (seed 003 ch. 6, Alg. 1) with {@code workers} workers: group g belongs to worker
     * {@code g mod workers}, a command runs alone on its worker if its groups
     * ({@link dev.parallax.core.Command#groups()}) map to one worker, else its workers meet and the
     * lowest executes it. Correct when the commands' groups give every two dependent commands a
     * common group (the service's C-G). Over an ordering protocol that delivers per worker (an
     * atomic multicast: {@code MultiRing}, {@code MulticastOrdering}) the replica feeds each worker
     * from its own subscription; over one total order, worker threads with input queues of
     * {@link #DEFAULT_QUEUE_CAPACITY} commands stand in for the subscriptions
     * ({@link PsmrExecutor}). Commands' groups are trusted: prefer {@link #psmr(int,
     * dev.parallax.core.spi.CommandRouter)}, which checks them against the service's C-G.
     *
     * @throws IllegalArgumentException if {@code workers} is not in 1..64
     */
    public static Executor psmr(int workers) {
        return psmr(workers, DEFAULT_QUEUE_CAPACITY);
    }

    /**
     * P-SMR with input queues of {@code queueCapacity} commands per worker; {@code execute} blocks
     * while a queue it must use is full.
     *
     * @throws IllegalArgumentException if {@code workers} is not in 1..64 or {@code queueCapacity < 1}
     */
    public static Executor psmr(int workers, int queueCapacity) {
        return new PsmrExecutor(workers, queueCapacity);
    }

    /**
     * P-SMR that checks every command's groups against the service's C-G function {@code groupsOf}
     * before running it: a command whose groups do not cover what it touches (a client that did not
     * route it) gets an error reply, the same on every replica, instead of racing another worker.
     *
     * @throws IllegalArgumentException if {@code workers} is not in 1..64
     */
    public static Executor psmr(int workers, dev.parallax.core.spi.CommandRouter groupsOf) {
        return new PsmrExecutor(workers, DEFAULT_QUEUE_CAPACITY, java.util.Objects.requireNonNull(groupsOf, "groupsOf"));
    }
}
