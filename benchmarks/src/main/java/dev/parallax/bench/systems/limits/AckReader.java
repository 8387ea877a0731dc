package dev.parallax.bench.systems.limits;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The leader's handler on a follower connection: reads the 8-byte acknowledgements straight from
 * the socket buffers (an acknowledgement split across two reads is reassembled in a long) and
 * hands them to the {@link FollowerLinks}. Event loop only.
 */
final class AckReader extends ChannelInboundHandlerAdapter {
    private final FollowerLinks links;
    private long partial;
    private int partialBytes;

    AckReader(FollowerLinks links) {
        this.links = links;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            while (partialBytes > 0 && in.isReadable()) {
                partial = (partial << 8) | (in.readByte() & 0xFF);
                if (++partialBytes == BatchWire.ACK_BYTES) {
                    partialBytes = 0;
                    links.onAck(partial);
                }
            }
            while (in.readableBytes() >= BatchWire.ACK_BYTES) {
                links.onAck(in.readLong());
            }
            while (in.isReadable()) {
                partial = (partial << 8) | (in.readByte() & 0xFF);
                partialBytes++;
            }
        } finally {
            in.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        links.flushClients();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        System.err.println("follower connection " + ctx.channel().remoteAddress() + " closed");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        System.err.println("follower connection failed: " + cause);
        ctx.close();
    }
}
