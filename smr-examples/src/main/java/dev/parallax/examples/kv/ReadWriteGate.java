package dev.parallax.examples.kv;

import dev.parallax.core.client.CommandInvoker;
import io.netty.channel.EventLoop;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One Redis connection's order between its reads, sent as queries ({@link CommandInvoker#query}:
 * read-index, outside the order), and its ordered commands: Redis executes a connection's pipeline
 * in order, so a read must see every write sent before it and no write sent after it.
 * <ul>
 *   <li>A read goes as a query only while nothing ordered of this connection is in flight or held;
 *       otherwise it is ordered behind the connection's commands, as a command.</li>
 *   <li>An ordered command waits (held, in order) while queries of this connection are in flight,
 *       and leaves once they are answered.</li>
 * </ul>
 * A query is answered once the state covers every write completed before it was sent, so the
 * first rule gives read-your-writes; the second keeps a later write out of an earlier read.
 *
 * <p>Threads: {@link #read} and {@link #write} on the connection's event loop; completions come on
 * any thread and are handed back to the loop. Never blocks.
 */
final class ReadWriteGate {
    private record Held(ByteBuffer command, Consumer<Object> done) {
    }

    private final EventLoop loop;
    private final CommandInvoker invoker;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private int orderedInFlight;
    private int queriesInFlight;

    ReadWriteGate(EventLoop loop, CommandInvoker invoker) {
        this.loop = loop;
        this.invoker = invoker;
    }

    /** A read-only command: a query when the connection has nothing ordered in flight, else ordered. */
    void read(ByteBuffer command, Consumer<Object> done) {
        if (orderedInFlight > 0 || !held.isEmpty()) {
            write(command, done);
            return;
        }
        queriesInFlight++;
        submit(() -> invoker.query(command), done, () -> {
            queriesInFlight--;
            release();
        });
    }

    /** An ordered command: sent now, or held until the connection's queries are answered. */
    void write(ByteBuffer command, Consumer<Object> done) {
        if (queriesInFlight > 0 || !held.isEmpty()) {
            held.add(new Held(command, done));
            return;
        }
        send(command, done);
    }

    private void send(ByteBuffer command, Consumer<Object> done) {
        orderedInFlight++;
        submit(() -> invoker.invoke(command), done, () -> orderedInFlight--);
    }

    private void release() {
        while (queriesInFlight == 0 && !held.isEmpty()) {
            Held h = held.poll();
            send(h.command(), h.done());
        }
    }

    /** Runs {@code call}; its outcome goes to {@code done} at once, {@code after} runs on the loop. */
    private void submit(java.util.function.Supplier<CompletableFuture<ByteBuffer>> call, Consumer<Object> done,
                        Runnable after) {
        CompletableFuture<ByteBuffer> future;
        try {
            future = call.get();
        } catch (RuntimeException e) {
            after.run();
            done.accept(e);
            return;
        }
        future.whenComplete((reply, failure) -> {
            done.accept(failure != null ? failure
                    : reply != null ? reply : new IllegalStateException("the invoker completed a command with a null reply"));
            if (loop.inEventLoop()) {
                after.run();
            } else {
                try {
                    loop.execute(after);
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    // the server is shutting down, and the connection with it
                }
            }
        });
    }
}
