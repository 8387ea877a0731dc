package dev.parallax.bench.systems.limits;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The echo server's handler: a command's reply is the command itself, frame and all, so the whole
 * commands of each read are written back as they came (slices of the read buffer, no copy, no
 * per-command write) and flushed once per read burst. Event loop only.
 */
final class EchoHandler extends ChannelInboundHandlerAdapter implements FrameGatherer.Sink {
    private final FrameGatherer gatherer = new FrameGatherer();
    private ChannelHandlerContext ctx;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            gatherer.read(in, ctx.alloc(), this);
        } finally {
            in.release();
        }
    }

    @Override
    public void accept(ByteBuf frames, int count) {
        ctx.write(frames, ctx.voidPromise());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        gatherer.release();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
