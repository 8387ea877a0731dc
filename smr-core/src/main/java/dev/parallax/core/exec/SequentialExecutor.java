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
 * {@link RuntimeException} yields {@link CommandResult#failed} and execution goes on.
 *
 * <p>Threads: {@link #execute} runs the command and delivers the result before returning, on the
 * caller's thread (the ServiceManager). No threads of its own, so {@link #close} has none to join.
 */
public final class SequentialExecutor implements Executor {
    private StateMachine stateMachine;
    private ResultSink results;
    private boolean closed;

    @Override
    public void start(StateMachine stateMachine, ResultSink results) {
        if (this.stateMachine != null || closed) {
            throw new IllegalStateException("already started or closed");
        }
        this.stateMachine = Objects.requireNonNull(stateMachine);
        this.results = Objects.requireNonNull(results);
    }

    @Override
    public void execute(Command command) {
        Objects.requireNonNull(command, "command");
        if (stateMachine == null || closed) {
            throw new IllegalStateException("not started or closed");
        }
        results.onResult(command, run(stateMachine, command));
    }

    /** Runs one command, turning a runtime exception into an error result. */
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

    @Override
    public void awaitQuiescence() {
        // Every command ran before execute() returned.
    }

    @Override
    public void close() {
        closed = true;
    }
}
