package dev.parallax.examples.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * The reply queue of one pipelining connection: replies leave in request order, however their
 * outcomes arrive, and a bounded number of requests is in flight.
 *
 * <p><b>Order.</b> Every request takes a {@link Slot} at the tail ({@link #append()}). A slot's
 * outcome is set once ({@link Slot#complete}), on any thread, in any order. Only the event loop
 * touches the queue: a completion off the loop schedules at most one drain task at a time; a
 * completion on the loop while a read batch is being handled waits for {@link #endRead()}. A drain
 * encodes every completed slot at the head into one buffer ({@link Encoder}) and flushes once, so a
 * burst of completions costs one task and one flush. A slot marked {@linkplain #closeAfter close-after}
 * is the last reply: the connection closes once it is written.
 *
 * <p><b>Back-pressure.</b> With {@code maxPending} slots outstanding, or the socket's outbound buffer
 * over its high-water mark, the connection is not read (autoRead off) until the queue is down to half
 * and the socket is writable again ({@link #updateReading()}, called after each read and drain and
 * on writability changes). Requests already read when the bound is hit are still served, so the
 * bound is soft by at most one read's worth.
 *
 * <p><b>Threads.</b> One instance per connection. Everything but {@link Slot#complete} runs on the
 * connection's event loop; {@link Slot#complete} is thread-safe. Never blocks.
 *
 * @param <R> the outcome of a request, as the connection's {@link Encoder} writes it
 */
public final class OrderedReplies<R> {
    /** Writes one outcome into the batch being flushed; called on the event loop, in request order. */
    @FunctionalInterface
    public interface Encoder<R> {
        /** Appends {@code outcome}'s bytes to {@code out}. */
        void encode(ByteBuf out, R outcome);
    }

    private final ChannelHandlerContext ctx;
    private final Encoder<R> encoder;
    private final int maxPending;
    private final int resumeAt;
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = () -> {
        drainScheduled.set(false);
        drain();
    };
    private boolean inReadBatch;
    private boolean closing;
    private boolean readPaused;

    /**
     * The queue of the connection {@code ctx} belongs to.
     *
     * @param maxPending slots outstanding past which the connection is not read (at least 1)
     * @param encoder    writes each outcome
     */
    public OrderedReplies(ChannelHandlerContext ctx, int maxPending, Encoder<R> encoder) {
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPending must be positive: " + maxPending);
        }
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.encoder = Objects.requireNonNull(encoder, "encoder");
        this.maxPending = maxPending;
        this.resumeAt = maxPending / 2;
    }

    /** A new slot at the tail. */
    public Slot append() {
        Slot slot = new Slot();
        slots.add(slot);
        return slot;
    }

    /** The slot at the tail, or null if none is waiting. */
    public Slot last() {
        return slots.peekLast();
    }

    /** Removes the slot at the tail (a request that turned out not to need one); no-op if none. */
    public void dropLast() {
        slots.pollLast();
    }

    /** Slots waiting (completed or not). */
    public int size() {
        return slots.size();
    }

    /** A read batch starts: completions on the event loop wait for {@link #endRead()}. */
    public void beginRead() {
        inReadBatch = true;
    }

    /** The read batch ended: writes what completed. */
    public void endRead() {
        inReadBatch = false;
        drain();
    }

    /** Makes {@code slot} the last reply: nothing more is read, and the connection closes once it is written. */
    public void closeAfter(Slot slot) {
        slot.closeAfter = true;
        stopReading();
    }

    /**
     * The client shut down its sending side: answer what it sent, then close (at once if nothing is
     * waiting).
     */
    public void closeAfterLast() {
        Slot last = slots.peekLast();
        if (last == null) {
            ctx.close();
        } else {
            closeAfter(last);
        }
    }

    /**
     * The connection is going away (closed, failed, refused): the waiting replies are dropped and
     * nothing more is read or written through this queue. Does not close the channel.
     */
    public void abandon() {
        closing = true;
        slots.clear();
    }

    /**
     * The connection {@code connection} failed with {@code cause} (a handler's
     * {@code exceptionCaught}): logged on {@code log}, an {@link IOException} (the peer's doing: a
     * reset, a broken pipe) at debug, anything else at warn with its stack; then the replies are
     * {@linkplain #abandon abandoned} and the channel closed.
     */
    public void fail(Logger log, long connection, Throwable cause) {
        if (cause instanceof IOException) {
            log.debug("connection {} from {}: {}", connection, ctx.channel().remoteAddress(), cause.toString());
        } else {
            log.warn("connection {} from {} failed; closing it", connection, ctx.channel().remoteAddress(), cause);
        }
        abandon();
        ctx.close();
    }

    /** Whether the connection is closing (a last reply is set, or it was abandoned): ignore further input. */
    public boolean closing() {
        return closing;
    }

    /** Stops reading for good: the connection is closing. */
    public void stopReading() {
        closing = true;
        readPaused = true;
        ctx.channel().config().setAutoRead(false);
    }

    /** Pauses or resumes reading by the bound and the socket's writability (see the class comment). */
    public void updateReading() {
        if (closing) {
            return;
        }
        boolean writable = ctx.channel().isWritable();
        if (!readPaused && (slots.size() >= maxPending || !writable)) {
            readPaused = true;
            ctx.channel().config().setAutoRead(false);
        } else if (readPaused && slots.size() <= resumeAt && writable) {
            readPaused = false;
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** Called by a slot whose outcome is set, on the completing thread. */
    private void completed() {
        EventLoop loop = ctx.channel().eventLoop();
        if (loop.inEventLoop() && inReadBatch) {
            return;
        }
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drainTask);
            } catch (RejectedExecutionException e) {
                // The server is shutting down and the connection with it: no one to reply to.
                drainScheduled.set(false);
            }
        }
    }

    /** Writes every completed slot at the head of the queue, in order, with one flush. */
    private void drain() {
        if (!ctx.channel().isActive()) {
            slots.clear();
            return;
        }
        ByteBuf batch = null;
        boolean close = false;
        Slot head;
        while ((head = slots.peek()) != null) {
            R outcome = head.outcome;
            if (outcome == null) {
                break;
            }
            slots.poll();
            if (batch == null) {
                batch = ctx.alloc().ioBuffer();
            }
            encoder.encode(batch, outcome);
            if (head.closeAfter) {
                close = true;
                slots.clear();
                break;
            }
        }
        if (batch != null) {
            if (close) {
                ctx.writeAndFlush(batch).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.writeAndFlush(batch, ctx.voidPromise());
            }
        }
        updateReading();
    }

    /**
     * One request's reply slot. The outcome is written once, by the event loop or by the thread
     * completing the request, and read by the event loop; {@code closeAfter} belongs to the event loop.
     */
    public final class Slot {
        private volatile R outcome;
        private boolean closeAfter;

        private Slot() {
        }

        /**
         * Sets the outcome (once; not null) and gets it written when its turn comes. Thread-safe.
         *
         * @throws NullPointerException if {@code outcome} is null
         */
        public void complete(R outcome) {
            this.outcome = Objects.requireNonNull(outcome, "outcome");
            completed();
        }
    }
}
