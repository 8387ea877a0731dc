package dev.parallax.core.exec;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.StateMachine;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.ResultSink;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Executes each command on the calling thread, in delivery order: the reference every parallel
 * executor must match, and the replica's default. A command that throws a
 * {@link RuntimeException} yields {@link CommandResult#failed} and execution goes on; an
 * {@link Error} is fatal (reported to {@link ResultSink#onFatal}, then every later call throws
 * {@link IllegalStateException}), as for every executor.
 *
 * <p>Threads: {@link #execute} runs the command and delivers the result before returning, on the
 * caller's thread (the ServiceManager). No threads of its own, so {@link #close} has none to join.
 */
public final class SequentialExecutor implements Executor {
    private StateMachine stateMachine;
    private ResultSink results;
    private boolean closed;
    private Error fatal;

    @Override
    public void start(StateMachine stateMachine, ResultSink results) {
        if (this.stateMachine != null || closed) {
            throw new IllegalStateException("already started or closed");
        }
        this.stateMachine = Objects.requireNonNull(stateMachine);
        this.results = Objects.requireNonNull(results);
    }

    /** Runs {@code command}; an {@link Error} is reported to the sink's {@code onFatal}, not thrown. */
    @Override
    public void execute(Command command) {
        Objects.requireNonNull(command, "command");
        checkUsable();
        CommandResult result;
        try {
            result = run(stateMachine, command);
        } catch (Error e) {
            results.onFatal(command, e);
            fatal = e;
            return;
        }
        results.onResult(command, result);
    }

    /**
     * Runs one command on {@code stateMachine}: the per-command step of every executor, so that all
     * of them give the same result for the same command and state. A {@link RuntimeException}
     * becomes {@link CommandResult#failed}, a {@code null} reply the error
     * {@code "state machine returned null"}; an {@link Error} propagates (it is fatal).
     * Thread-safe as far as the state machine is; never blocks by itself.
     */
    public static CommandResult run(StateMachine stateMachine, Command command) {
        try {
            ByteBuffer reply = stateMachine.execute(command.payload());
            if (reply == null) {
                return CommandResult.error("state machine returned null");
            }
            return CommandResult.ok(reply);
        } catch (RuntimeException e) {
            return CommandResult.failed(e);
        }
    }

    /**
     * Every command ran before {@link #execute} returned, so this only reports: a fatal error, or use
     * before {@link #start} or after {@link #close} ({@link IllegalStateException}, as the
     * {@link Executor} contract says).
     */
    @Override
    public void awaitQuiescence() {
        checkUsable();
    }

    @Override
    public void close() {
        closed = true;
    }

    private void checkUsable() {
        if (fatal != null) {
            throw new IllegalStateException("sequential executor failed", fatal);
        }
        if (stateMachine == null || closed) {
            throw new IllegalStateException("not started or closed");
        }
    }
}
