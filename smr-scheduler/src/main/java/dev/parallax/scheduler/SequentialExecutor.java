package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.StateMachine;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.ResultSink;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The reference executor: runs each command on the calling thread, in delivery order, before
 * {@link #execute} returns (classic SMR, seed 001 §1). Every other executor must produce the same
 * results and final state.
 *
 * <p>Threads: no threads of its own; {@link #execute} runs the state machine and calls the sink on
 * the caller's thread and never blocks otherwise. {@link #awaitQuiescence} returns at once.
 */
final class SequentialExecutor implements Executor {
    private StateMachine stateMachine;
    private ResultSink sink;
    private volatile boolean closed;

    @Override
    public synchronized void start(StateMachine stateMachine, ResultSink results) {
        Objects.requireNonNull(stateMachine, "stateMachine");
        Objects.requireNonNull(results, "results");
        if (this.stateMachine != null || closed) {
            throw new IllegalStateException("sequential executor already started");
        }
        this.sink = results;
        this.stateMachine = stateMachine;
    }

    @Override
    public void execute(Command command) {
        Objects.requireNonNull(command, "command");
        check();
        CommandResult result;
        try {
            ByteBuffer reply = stateMachine.execute(command.payload());
            result = CommandResult.ok(reply);
        } catch (RuntimeException e) {
            result = CommandResult.failed(e);
        }
        sink.onResult(command, result);
    }

    @Override
    public void awaitQuiescence() {
        check();
    }

    @Override
    public void close() {
        closed = true;
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("sequential executor closed");
        }
        if (stateMachine == null) {
            throw new IllegalStateException("sequential executor not started");
        }
    }
}
