package dev.parallax.bench.load;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.kv.KvStateMachine;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A key-value store in this JVM behind a {@link CommandInvoker}: commands are copied and executed
 * on one thread, as a replica's state machine would; the test stand-in for a system. Close it to
 * stop the thread (blocks up to 5 s; an interrupt ends the wait and stays set).
 */
public final class InProcessKv implements AutoCloseable {
    private final KvStateMachine store = new KvStateMachine();
    private final ExecutorService exec = Executors.newSingleThreadExecutor();

    /** An invoker executing on this store; thread-safe, never blocks. */
    public CommandInvoker invoker() {
        return cmd -> {
            ByteBuffer copy = ByteBuffer.allocate(cmd.remaining()).put(cmd.duplicate()).flip();
            return CompletableFuture.supplyAsync(() -> store.execute(copy), exec);
        };
    }

    @Override
    public void close() {
        exec.shutdownNow();
        try {
            exec.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
