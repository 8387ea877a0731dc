package dev.parallax.bench.systems.limits;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * A follower's handler on the leader connection: reads each batch's length and id, skips its body
 * without copying it, and acknowledges each whole batch with its 8-byte id. The acknowledgements of
 * one read burst go out in one buffer and one flush. Event loop only.
 */
final class BatchAcker extends ChannelInboundHandlerAdapter {
    private final byte[] prefix = new byte[BatchWire.FOLLOWER_PREFIX_BYTES];
    private int prefixBytes;
    private long skip;
    private long batchId;
    private ByteBuf acks;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            while (in.isReadable()) {
                if (skip > 0) {
                    int n = (int) Math.min(skip, in.readableBytes());
                    in.skipBytes(n);
                    skip -= n;
                    if (skip == 0) {
                        ack(ctx, batchId);
                    }
                } else if (prefixBytes == 0 && in.readableBytes() >= BatchWire.FOLLOWER_PREFIX_BYTES) {
                    startBatch(ctx, in.readInt(), in.readLong());
                } else {
                    int n = Math.min(prefix.length - prefixBytes, in.readableBytes());
                    in.readBytes(prefix, prefixBytes, n);
                    prefixBytes += n;
                    if (prefixBytes == prefix.length) {
                        prefixBytes = 0;
                        startBatch(ctx, readInt(prefix), readLong(prefix));
                    }
                }
            }
        } finally {
            in.release();
        }
    }

    private void startBatch(ChannelHandlerContext ctx, int length, long id) {
        batchId = id;
        skip = length - (long) Long.BYTES;
        if (skip <= 0) {
            skip = 0;
            ack(ctx, id);
        }
    }

    private void ack(ChannelHandlerContext ctx, long id) {
        if (acks == null) {
            acks = ctx.alloc().buffer(64 * BatchWire.ACK_BYTES);
        }
        acks.writeLong(id);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (acks != null) {
            ctx.writeAndFlush(acks, ctx.voidPromise());
            acks = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (acks != null) {
            acks.release();
            acks = null;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private static int readInt(byte[] b) {
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    private static long readLong(byte[] b) {
        long v = 0;
        for (int i = Integer.BYTES; i < Integer.BYTES + Long.BYTES; i++) {
            v = (v << 8) | (b[i] & 0xFF);
        }
        return v;
    }
}
