package dev.parallax.examples.net;

import dev.parallax.core.client.CommandInvoker;
import io.netty.channel.EventLoop;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One connection's order between its reads, sent as queries ({@link CommandInvoker#query}:
 * read-index, outside the order), and its ordered operations: the Redis front end (Redis executes a
 * connection's pipeline in order) and Volery's ZooKeeper front end (ZooKeeper answers a session's
 * requests in FIFO order) both need a read to see every write sent before it and no write sent
 * after it.
 * <ul>
 *   <li>A read goes as a query only while nothing ordered of this connection is in flight or held;
 *       otherwise it is ordered behind the connection's operations, as a command.</li>
 *   <li>An ordered operation ({@link #write}, {@link #order}) waits (held, in order) while queries
 *       of this connection are in flight, and leaves once they are answered.</li>
 * </ul>
 * A query is answered once the state covers every write completed before it was sent, so the
 * first rule gives read-your-writes; the second keeps a later write out of an earlier read.
 *
 * <p>Threads: {@link #read}, {@link #write} and {@link #order} on the connection's event loop (a held
 * operation's call runs there too, when it leaves); completions come on any thread, and each
 * operation's outcome goes to its {@code done} on that thread; the gate's own bookkeeping is handed
 * back to the loop. Not thread-safe otherwise. Never blocks.
 */
public final class ReadWriteGate {
    private record Held(Supplier<? extends CompletableFuture<?>> call, Consumer<Object> done) {
    }

    private final EventLoop loop;
    private final CommandInvoker invoker;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private int orderedInFlight;
    private int queriesInFlight;

    /**
     * A gate for one connection served by {@code loop}, sending through {@code invoker}.
     *
     * @throws NullPointerException if either is null
     */
    public ReadWriteGate(EventLoop loop, CommandInvoker invoker) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.invoker = Objects.requireNonNull(invoker, "invoker");
    }

    /**
     * A read-only command: a query when the connection has nothing ordered in flight or held, else
     * ordered ({@link #write}). Its reply (a {@link ByteBuffer}) or failure (a {@link Throwable}) goes
     * to {@code done}.
     *
     * @return whether it went as a query
     */
    public boolean read(ByteBuffer command, Consumer<Object> done) {
        if (orderedInFlight > 0 || !held.isEmpty()) {
            write(command, done);
            return false;
        }
        queriesInFlight++;
        submit(() -> invoker.query(command), done, () -> {
            queriesInFlight--;
            release();
        });
        return true;
    }

    /** A command ({@link CommandInvoker#invoke}): sent now, or held until the connection's queries are answered. */
    public void write(ByteBuffer command, Consumer<Object> done) {
        order(() -> invoker.invoke(command), done);
    }

    /**
     * Any ordered operation of the connection other than one command (several commands, or a command
     * with work around it): {@code call} runs now, or once the connection's queries are answered;
     * until its future completes, the connection's reads are ordered. Its result (which must not be
     * null) or failure goes to {@code done}.
     */
    public void order(Supplier<? extends CompletableFuture<?>> call, Consumer<Object> done) {
        if (queriesInFlight > 0 || !held.isEmpty()) {
            held.add(new Held(call, done));
            return;
        }
        send(call, done);
    }

    private void send(Supplier<? extends CompletableFuture<?>> call, Consumer<Object> done) {
        orderedInFlight++;
        submit(call, done, () -> orderedInFlight--);
    }

    private void release() {
        while (queriesInFlight == 0 && !held.isEmpty()) {
            Held h = held.poll();
            send(h.call(), h.done());
        }
    }

    /** Runs {@code call}; its outcome goes to {@code done} at once, {@code after} runs on the loop. */
    private void submit(Supplier<? extends CompletableFuture<?>> call, Consumer<Object> done, Runnable after) {
        CompletableFuture<?> future;
        try {
            future = Objects.requireNonNull(call.get(), "the operation returned no future");
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
                } catch (RejectedExecutionException closing) {
                    // the server is shutting down, and the connection with it
                }
            }
        });
    }
}
