package dev.parallax.core.client;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Something that executes commands on a replicated state machine and returns their replies:
 * the {@code SmrClient}, or an in-process stand-in in tests.
 *
 * <p>Thread-safe; {@link #invoke} never blocks (it may return an already failed future).
 */
@FunctionalInterface
public interface CommandInvoker {

    /**
     * Submits one command. Commands submitted by one invoker are executed in submission order
     * (each exactly once, even across retries and leader changes).
     *
     * @param command the command bytes (position to limit); copied before the call returns
     * @return the reply; completes exceptionally with {@link CommandRejectedException} if the state
     *         machine rejected the command, {@link ClusterUnavailableException} if no quorum
     *         answered in time, or {@link IllegalStateException} once the invoker is closed
     */
    CompletableFuture<ByteBuffer> invoke(ByteBuffer command);
}
