package dev.parallax.examples.net;

import dev.parallax.core.GroupSet;
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
 * connection's pipeline in order) and Volery's ZooKeeper front end (ZooKeeper executes a session's
 * requests in FIFO order) both need a read to see every write sent before it and no write sent
 * after it, and each ordered operation to execute after those sent before it.
 * <ul>
 *   <li>A read goes as a query only while nothing ordered of this connection is in flight or held;
 *       otherwise it is ordered behind the connection's operations, as a command.</li>
 *   <li>An ordered operation ({@link #write}, {@link #order}) waits (held, in order) while queries
 *       of this connection are in flight, and leaves once they are answered.</li>
 *   <li>An ordered operation also waits while ordered operations of this connection on another
 *       <em>stream</em> are in flight. A command's stream is a key its caller gives (equal keys, one
 *       stream): commands of one stream pipeline, since the invoker keeps them in order (under S-SMR
 *       (seed 004 §IV) a {@code PartitionedInvoker} sends the commands of one destination set through
 *       one client stream and one ring); commands of two streams may travel different rings and
 *       execute in either order, so the second leaves once the first is answered. An {@link #order}
 *       operation (several commands) is a stream of its own that nothing shares: a barrier.</li>
 * </ul>
 * A query is answered once the state covers every write completed before it was sent, so the
 * first rule gives read-your-writes; the second keeps a later write out of an earlier read; the
 * third makes an operation answered before the next one of another stream is sent, so the next one
 * executes after it (linearizability of the service).
 *
 * <p>Threads: {@link #read}, {@link #write} and {@link #order} on the connection's event loop (a held
 * operation's call runs there too, when it leaves); completions come on any thread, and each
 * operation's outcome goes to its {@code done} on that thread; the gate's own bookkeeping is handed
 * back to the loop. Not thread-safe otherwise. Never blocks.
 */
public final class ReadWriteGate {
    /** The stream of an {@link #order} operation: equal to no other, so it leaves alone. */
    private static final Object BARRIER = new Object();

    private record Held(Object stream, Supplier<? extends CompletableFuture<?>> call, Consumer<Object> done) {
    }

    private final EventLoop loop;
    private final CommandInvoker invoker;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private int orderedInFlight;
    /** The stream of the ordered operations in flight (all share it); null while none is. */
    private Object streamInFlight;
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
     * ordered on the stream its invoker sends it on ({@link #write(ByteBuffer, Consumer)}).
     *
     * @return whether it went as a query
     */
    public boolean read(ByteBuffer command, Consumer<Object> done) {
        if (orderedInFlight > 0 || !held.isEmpty()) {
            write(command, done);
            return false;
        }
        query(command, done);
        return true;
    }

    /**
     * A read-only command: a query when the connection has nothing ordered in flight or held, else
     * ordered on {@code stream} ({@link #write(ByteBuffer, Object, Consumer)}). Its reply (a
     * {@link ByteBuffer}) or failure (a {@link Throwable}) goes to {@code done}.
     *
     * @return whether it went as a query
     * @throws NullPointerException if {@code stream} is null
     */
    public boolean read(ByteBuffer command, Object stream, Consumer<Object> done) {
        Objects.requireNonNull(stream, "stream");
        if (orderedInFlight > 0 || !held.isEmpty()) {
            write(command, stream, done);
            return false;
        }
        query(command, done);
        return true;
    }

    private void query(ByteBuffer command, Consumer<Object> done) {
        queriesInFlight++;
        submit(() -> invoker.query(command), done, () -> {
            queriesInFlight--;
            release();
        });
    }

    /**
     * A command on the stream its invoker sends it on ({@link CommandInvoker#stream}; one stream for
     * an invoker of one group): {@link #write(ByteBuffer, Object, Consumer)}. So the Redis front end
     * over a store split by key keeps a connection's pipeline in order across groups.
     */
    public void write(ByteBuffer command, Consumer<Object> done) {
        GroupSet stream = invoker.stream(command);
        // routed once: the invoker sends to the groups it named (the default group: as it routes itself)
        ordered(stream, () -> stream.isDefault() ? invoker.invoke(command) : invoker.invoke(stream, command), done);
    }

    /**
     * A command ({@link CommandInvoker#invoke}) on {@code stream} (a key: equal keys, one stream):
     * sent now, or held until the connection's queries and its ordered operations of other streams
     * in flight are answered (and those held before it have left).
     *
     * @throws NullPointerException if {@code stream} is null
     */
    public void write(ByteBuffer command, Object stream, Consumer<Object> done) {
        ordered(Objects.requireNonNull(stream, "stream"), () -> invoker.invoke(command), done);
    }

    /**
     * Any ordered operation of the connection other than one command (several commands, or a command
     * with work around it), a barrier: {@code call} runs once nothing of the connection is in flight
     * or held before it, and nothing ordered leaves after it until its future completes; until
     * then, the connection's reads are ordered. Its result (which must not be null) or failure goes to
     * {@code done}.
     */
    public void order(Supplier<? extends CompletableFuture<?>> call, Consumer<Object> done) {
        ordered(BARRIER, call, done);
    }

    private void ordered(Object stream, Supplier<? extends CompletableFuture<?>> call, Consumer<Object> done) {
        if (!held.isEmpty() || !mayLeave(stream)) {
            held.add(new Held(stream, call, done));
            return;
        }
        send(stream, call, done);
    }

    /** Whether an ordered operation on {@code stream} may be sent now (held ones aside). */
    private boolean mayLeave(Object stream) {
        return queriesInFlight == 0 && (orderedInFlight == 0 || (stream != BARRIER && stream.equals(streamInFlight)));
    }

    private void send(Object stream, Supplier<? extends CompletableFuture<?>> call, Consumer<Object> done) {
        orderedInFlight++;
        streamInFlight = stream;
        submit(call, done, () -> {
            if (--orderedInFlight == 0) {
                streamInFlight = null;
            }
            release();
        });
    }

    /** Sends the held operations, in order, while the first may leave. */
    private void release() {
        while (!held.isEmpty() && mayLeave(held.peek().stream())) {
            Held h = held.poll();
            send(h.stream(), h.call(), h.done());
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
