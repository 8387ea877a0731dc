package dev.parallax.examples.kv;

import dev.parallax.core.CommandResult;
import dev.parallax.core.StateMachine;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.CommandRejectedException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Executes each command on the caller's thread and returns a completed future; a thrown exception
 * becomes a rejection as the executor reports it ({@link CommandResult#failed}).
 */
final class SynchronousInvoker implements CommandInvoker {
    private final StateMachine stateMachine;

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
}
