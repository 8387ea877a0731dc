package dev.parallax.examples.kv;

import dev.parallax.core.client.CommandInvoker;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: runs each decoded request and writes the replies in request order.
 *
 * <p><b>Pipelining.</b> Every request takes a slot at the tail of a queue. Local replies fill their
 * slot at once; data commands fill it when the invoker's future completes, on whatever thread that
 * is, in any order. Only the event loop touches the queue: a completion publishes its outcome in
 * the slot and schedules at most one drain task at a time, which writes every completed slot at the
 * head into one buffer and flushes once. So a burst of completions costs one task and one flush.
 *
 * <p><b>Back-pressure.</b> With {@code maxPending} slots outstanding, or the socket's outbound
 * buffer over its high-water mark, the handler stops reading the socket (autoRead off) and resumes
 * once the queue is down to half and the socket is writable again. Requests already read when the
 * limit is hit are still served, so the bound is soft by at most one read's worth.
 *
 * <p>When the client shuts down its sending side, the replies to what it sent are still written,
 * then the connection is closed (the server channel allows half-closure for this).
 *
 * <p>One instance per connection; all methods except the completion callback run on the
 * connection's event loop. Never blocks.
 */
final class RespConnectionHandler extends ChannelInboundHandlerAdapter implements RespSession {
    private static final Logger LOG = LoggerFactory.getLogger(RespConnectionHandler.class);

    private final CommandInvoker invoker;
    private final RespCommands commands;
    private final RespMetrics metrics;
    private final int maxPending;
    private final int resumeAt;
    private final long id;
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = () -> {
        drainScheduled.set(false);
        drain();
    };
    private ChannelHandlerContext ctx;
    private boolean inReadBatch;
    private boolean closing;
    private boolean readPaused;
    private byte[] name;

    RespConnectionHandler(CommandInvoker invoker, RespCommands commands, RespMetrics metrics, int maxPending, long id) {
        this.invoker = invoker;
        this.commands = commands;
        this.metrics = metrics;
        this.maxPending = maxPending;
        this.resumeAt = maxPending / 2;
        this.id = id;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        metrics.connectionAccepted();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        inReadBatch = true;
        if (closing) {
            return;
        }
        if (msg instanceof RespRequest request) {
            dispatch(request);
        } else if (msg instanceof RespProtocolError error) {
            metrics.protocolError();
            LOG.debug("connection {} from {}: protocol error: {}", id, ctx.channel().remoteAddress(), error.reason());
            Slot slot = append();
            slot.closeAfter = true;
            slot.outcome = new RespReply.Error("ERR Protocol error: " + error.reason());
            stopReading();
        } else {
            ctx.fireChannelRead(msg);
        }
        updateReading();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        inReadBatch = false;
        drain();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        updateReading();
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * The client shut down its sending side ({@code printf 'GET k\r\n' | nc host port}): answer
     * what it sent, then close.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof ChannelInputShutdownEvent) {
            Slot last = slots.peekLast();
            if (last == null) {
                ctx.close();
            } else {
                last.closeAfter = true;
                stopReading();
            }
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        slots.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            LOG.debug("connection {} from {}: {}", id, ctx.channel().remoteAddress(), cause.toString());
        } else {
            LOG.warn("connection {} from {} failed; closing it", id, ctx.channel().remoteAddress(), cause);
        }
        closing = true;
        slots.clear();
        ctx.close();
    }

    private void dispatch(RespRequest request) {
        RespCommands.Spec spec = commands.lookup(request.arg(0));
        if (spec == null) {
            metrics.command(RespMetrics.UNKNOWN);
            reply(new RespReply.Error(RespErrors.unknownCommand(request)));
            return;
        }
        metrics.command(spec.name());
        if (!spec.acceptsArgc(request.argc())) {
            reply(new RespReply.Error(RespErrors.wrongArity(spec.name())));
            return;
        }
        int slotsBefore = slots.size();
        try {
            spec.action().run(request, this);
        } catch (RuntimeException e) {
            // A request this front end cannot turn into a command (over 2 GB encoded): answer it
            // rather than drop the connection, unless the command already took its reply slot.
            LOG.warn("connection {}: {} failed before reaching the invoker", id, spec.name(), e);
            if (slots.size() == slotsBefore) {
                reply(new RespReply.Error("ERR " + e.getMessage()));
            }
        }
    }

    @Override
    public void reply(RespReply reply) {
        append().outcome = reply;
    }

    @Override
    public void invoke(ByteBuffer kvCommand) {
        Slot slot = append();
        CompletableFuture<ByteBuffer> future;
        try {
            future = invoker.invoke(kvCommand);
        } catch (RuntimeException e) {
            slot.outcome = e;
            return;
        }
        future.whenComplete(slot);
    }

    @Override
    public void quit() {
        Slot slot = append();
        slot.closeAfter = true;
        slot.outcome = RespReply.OK;
        stopReading();
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public byte[] name() {
        return name;
    }

    @Override
    public void name(byte[] newName) {
        name = newName;
    }

    private Slot append() {
        Slot slot = new Slot();
        slots.add(slot);
        return slot;
    }

    /** Called by a slot whose future completed, on the completing thread. */
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
            Object outcome = head.outcome;
            if (outcome == null) {
                break;
            }
            slots.poll();
            if (batch == null) {
                batch = ctx.alloc().ioBuffer();
            }
            encode(batch, outcome);
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

    private void encode(ByteBuf out, Object outcome) {
        if (outcome instanceof ByteBuffer kvReply) {
            try {
                RespEncoding.writeKvReply(out, kvReply);
            } catch (IllegalArgumentException e) {
                metrics.failure(RespErrors.Kind.INTERNAL);
                LOG.warn("connection {}: the state machine's reply is malformed", id, e);
                RespEncoding.writeError(out, "ERR internal error");
            }
        } else if (outcome instanceof RespReply reply) {
            RespEncoding.writeLocal(out, reply);
        } else {
            Throwable failure = (Throwable) outcome;
            RespErrors.Kind kind = RespErrors.kindOf(failure);
            metrics.failure(kind);
            if (kind == RespErrors.Kind.INTERNAL) {
                LOG.warn("connection {}: command failed unexpectedly", id, failure);
            }
            RespEncoding.writeError(out, RespErrors.forFailure(failure));
        }
    }

    private void stopReading() {
        closing = true;
        readPaused = true;
        ctx.channel().config().setAutoRead(false);
    }

    private void updateReading() {
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

    /**
     * One reply slot. {@code outcome} is a {@link RespReply}, a state machine reply ({@link
     * ByteBuffer}) or the invoker's failure ({@link Throwable}); it is written once, by the event
     * loop or by the thread completing the future, and read by the event loop.
     */
    private final class Slot implements BiConsumer<ByteBuffer, Throwable> {
        volatile Object outcome;
        boolean closeAfter;

        @Override
        public void accept(ByteBuffer reply, Throwable failure) {
            if (failure != null) {
                outcome = failure;
            } else if (reply != null) {
                outcome = reply;
            } else {
                outcome = new IllegalStateException("the invoker completed a command with a null reply");
            }
            completed();
        }
    }
}
