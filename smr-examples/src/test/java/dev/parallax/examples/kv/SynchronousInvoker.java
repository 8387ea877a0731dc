package dev.parallax.examples.kv;

import dev.parallax.core.CommandResult;
import dev.parallax.core.StateMachine;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.CommandRejectedException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Executes each command on the caller's thread and returns a completed future; a thrown exception
 * becomes a rejection as the executor reports it ({@link CommandResult#failed}). A query is answered
 * by {@link StateMachine#query} as a replica answers it (counted in {@link #queries}); one the state
 * machine does not answer that way ({@link UnsupportedOperationException}) is executed as a command,
 * as the client then orders it. Thread-safe as far as the state machine is.
 */
final class SynchronousInvoker implements CommandInvoker {
    private final StateMachine stateMachine;
    private final AtomicInteger queries = new AtomicInteger();

    SynchronousInvoker(StateMachine stateMachine) {
        this.stateMachine = stateMachine;
    }

    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        try {
            return CompletableFuture.completedFuture(stateMachine.execute(command));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new CommandRejectedException(CommandResult.failed(e).error()));
        }
    }

    @Override
    public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
        try {
            ByteBuffer reply = stateMachine.query(query.duplicate());
            queries.incrementAndGet();
            return CompletableFuture.completedFuture(reply);
        } catch (UnsupportedOperationException ordered) {
            return invoke(query);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new CommandRejectedException(CommandResult.failed(e).error()));
        }
    }

    /** How many queries the state machine answered. */
    int queries() {
        return queries.get();
    }
}
