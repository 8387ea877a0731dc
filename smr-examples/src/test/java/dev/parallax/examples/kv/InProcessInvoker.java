package dev.parallax.examples.kv;

import dev.parallax.core.CommandResult;
import dev.parallax.core.StateMachine;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.CommandRejectedException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in for the replicated client: executes commands in submission order on a state machine
 * on its own thread, turns a thrown exception into a rejection the way the executor does ({@link
 * CommandResult#failed}), and completes each future after a random delay on one of several
 * threads, so futures complete out of submission order.
 */
final class InProcessInvoker implements CommandInvoker, AutoCloseable {
    private final StateMachine stateMachine;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "kv-state-machine"));
    private final ScheduledExecutorService completers;
    private final long maxDelayMicros;
    private final SplittableRandom random;
    private volatile boolean closed;

    /** Completes each future up to {@code maxDelayMicros} after execution; 0 completes at once. */
    InProcessInvoker(StateMachine stateMachine, long maxDelayMicros, long seed) {
        this.stateMachine = stateMachine;
        this.maxDelayMicros = maxDelayMicros;
        this.random = new SplittableRandom(seed);
        this.completers = maxDelayMicros == 0 ? null : Executors.newScheduledThreadPool(3, r -> {
            Thread t = new Thread(r, "kv-completer");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("invoker closed"));
        }
        ByteBuffer copy = ByteBuffer.allocate(command.remaining()).put(command.duplicate()).flip();
        CompletableFuture<ByteBuffer> reply = new CompletableFuture<>();
        executor.execute(() -> {
            CommandResult result;
            try {
                result = CommandResult.ok(stateMachine.execute(copy));
            } catch (RuntimeException e) {
                result = CommandResult.failed(e);
            }
            CommandResult outcome = result;
            Runnable complete = () -> {
                if (outcome.isError()) {
                    reply.completeExceptionally(new CommandRejectedException(outcome.error()));
                } else {
                    reply.complete(outcome.reply());
                }
            };
            if (completers == null) {
                complete.run();
            } else {
                completers.schedule(complete, random.nextLong(maxDelayMicros + 1), TimeUnit.MICROSECONDS);
            }
        });
        return reply;
    }

    @Override
    public void close() {
        closed = true;
        executor.shutdown();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
            if (completers != null) {
                completers.shutdown();
                completers.awaitTermination(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
