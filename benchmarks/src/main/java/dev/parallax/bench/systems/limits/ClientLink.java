package dev.parallax.bench.systems.limits;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * The leader's side of one client connection as the relay sees it: where replies go and whether
 * some are written but not yet flushed. Confined to the connection's event loop.
 */
final class ClientLink {
    private final Channel channel;
    private boolean unflushed;

    ClientLink(Channel channel) {
        this.channel = channel;
    }

    /**
     * Writes {@code commands} replies for batch {@code batchId} as one buffer without flushing.
     *
     * @return true if this call left the link with unflushed replies it did not have before
     */
    boolean writeReplies(long batchId, int commands) {
        if (!channel.isActive()) {
            return false;
        }
        ByteBuf out = channel.alloc().buffer(commands * BatchWire.FRAMED_REPLY_BYTES);
        for (int i = 0; i < commands; i++) {
            out.writeInt(BatchWire.REPLY_BYTES).writeLong(batchId);
        }
        channel.write(out, channel.voidPromise());
        boolean first = !unflushed;
        unflushed = true;
        return first;
    }

    void flush() {
        unflushed = false;
        channel.flush();
    }
}
