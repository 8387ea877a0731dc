package dev.parallax.core.spi;

import dev.parallax.core.Command;
import dev.parallax.core.StateMachine;

/**
 * Runs decided commands on the {@link StateMachine}, sequentially or in parallel, so that the
 * results and the final state equal those of executing the commands one at a time in delivery
 * order (at least for every pair of conflicting commands).
 *
 * <p>Threads: {@link #execute} and {@link #awaitQuiescence} are called by one thread (the
 * ServiceManager), in delivery order. Results reach the {@link ResultSink} from the executor's
 * worker threads. An exception thrown by the state machine becomes an error result
 * ({@link dev.parallax.core.CommandResult#failed}) and the executor goes on. An {@link Error}
 * thrown by the state machine is fatal: the executor reports it once to
 * {@link ResultSink#onFatal}, executes nothing more, and every later {@link #execute} or
 * {@link #awaitQuiescence} throws {@link IllegalStateException} with the error as its cause.
 */
public interface Executor extends AutoCloseable {

    /**
     * Starts worker threads, if any.
     *
     * @throws IllegalStateException if already started
     */
    void start(StateMachine stateMachine, ResultSink results);

    /**
     * Hands over the next command in delivery order. Blocks while the executor's bounded input is
     * full.
     *
     * @throws InterruptedException  if interrupted while blocked; the command was not taken
     * @throws IllegalStateException if not started, closed or failed (see {@link ResultSink#onFatal})
     */
    void execute(Command command) throws InterruptedException;

    /**
     * Blocks until every command handed over so far has executed and its result was delivered:
     * a point where a snapshot of the state machine is consistent.
     *
     * @throws InterruptedException  if interrupted while waiting
     * @throws IllegalStateException if not started, closed or failed
     */
    void awaitQuiescence() throws InterruptedException;

    /** Stops the workers (commands not yet executed are dropped) and joins them; idempotent. */
    @Override
    void close();
}
