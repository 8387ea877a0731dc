package dev.parallax.examples.kv;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.net.OrderedReplies;
import dev.parallax.examples.net.ReadWriteGate;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: runs each decoded request and writes the replies in request order.
 *
 * <p><b>Pipelining and back-pressure</b>: an {@link OrderedReplies} queue. Every request takes a
 * slot at its tail; local replies fill their slot at once, data commands when the invoker's future
 * completes, on whatever thread that is, in any order; replies leave in request order, a burst of
 * completions in one flush. With {@code maxPending} slots outstanding, or the socket's outbound
 * buffer over its high-water mark, the socket is not read until the queue is down to half and the
 * socket is writable again.
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
    private final long id;
    private OrderedReplies<Object> replies;
    private ReadWriteGate gate;
    private byte[] name;

    RespConnectionHandler(CommandInvoker invoker, RespCommands commands, RespMetrics metrics, int maxPending, long id) {
        this.invoker = invoker;
        this.commands = commands;
        this.metrics = metrics;
        this.maxPending = maxPending;
        this.id = id;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.replies = new OrderedReplies<>(ctx, maxPending, this::encode);
        this.gate = new ReadWriteGate(ctx.channel().eventLoop(), invoker);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        metrics.connectionAccepted();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        replies.beginRead();
        if (replies.closing()) {
            return;
        }
        if (msg instanceof RespRequest request) {
            dispatch(request);
        } else if (msg instanceof RespProtocolError error) {
            metrics.protocolError();
            LOG.debug("connection {} from {}: protocol error: {}", id, ctx.channel().remoteAddress(), error.reason());
            OrderedReplies<Object>.Slot slot = replies.append();
            slot.complete(new RespReply.Error("ERR Protocol error: " + error.reason()));
            replies.closeAfter(slot);
        } else {
            ctx.fireChannelRead(msg);
        }
        replies.updateReading();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        replies.endRead();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        replies.updateReading();
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * The client shut down its sending side ({@code printf 'GET k\r\n' | nc host port}): answer
     * what it sent, then close.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof ChannelInputShutdownEvent) {
            replies.closeAfterLast();
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        replies.abandon();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        replies.fail(LOG, id, cause);
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
        int slotsBefore = replies.size();
        try {
            spec.action().run(request, this);
        } catch (RuntimeException e) {
            // A request this front end cannot turn into a command (over 2 GB encoded): answer it
            // rather than drop the connection, unless the command already took its reply slot.
            LOG.warn("connection {}: {} failed before reaching the invoker", id, spec.name(), e);
            if (replies.size() == slotsBefore) {
                reply(new RespReply.Error("ERR " + e.getMessage()));
            }
        }
    }

    @Override
    public void reply(RespReply reply) {
        replies.append().complete(reply);
    }

    @Override
    public void invoke(ByteBuffer kvCommand) {
        gate.write(kvCommand, replies.append()::complete);
    }

    @Override
    public void read(ByteBuffer kvCommand) {
        gate.read(kvCommand, replies.append()::complete);
    }

    @Override
    public void quit() {
        OrderedReplies<Object>.Slot slot = replies.append();
        slot.complete(RespReply.OK);
        replies.closeAfter(slot);
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
}
