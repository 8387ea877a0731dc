package dev.parallax.bench.systems.limits;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.ArrayList;
import java.util.List;

/**
 * The leader's handler on a client connection: gathers the whole commands of one read burst (every
 * read until {@code channelReadComplete}) as slices of the socket buffers ({@link FrameGatherer})
 * and relays them as one batch through the loop's {@link FollowerLinks}. Event loop only.
 */
final class CommandBatcher extends ChannelInboundHandlerAdapter implements FrameGatherer.Sink {
    private final FollowerLinks links;
    private final FrameGatherer gatherer = new FrameGatherer();
    private final List<ByteBuf> burst = new ArrayList<>();
    private ClientLink client;
    private int burstCommands;
    private int burstBytes;

    CommandBatcher(FollowerLinks links) {
        this.links = links;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        client = new ClientLink(ctx.channel());
        ctx.fireChannelActive();
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
        burst.add(frames);
        burstCommands += count;
        burstBytes += frames.readableBytes();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (burstCommands > 0) {
            links.relay(client, burst, burstCommands, burstBytes);
            burst.clear();
            burstCommands = 0;
            burstBytes = 0;
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        burst.forEach(ByteBuf::release);
        burst.clear();
        burstCommands = 0;
        burstBytes = 0;
        gatherer.release();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
