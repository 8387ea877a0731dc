package dev.parallax.examples.volery.zk;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteOrder;

/**
 * ZooKeeper's framing: a 4-byte big-endian signed length, then that many bytes. Emits each frame's
 * payload (the length stripped). A negative length raises {@link io.netty.handler.codec.CorruptedFrameException},
 * a length over the bound {@link io.netty.handler.codec.TooLongFrameException} as soon as it is read
 * (fail-fast), so the connection handler can refuse the connection without waiting for the bytes.
 *
 * <p>One instance per connection, used on its event loop only; never blocks.
 */
final class ZkFrameDecoder extends LengthFieldBasedFrameDecoder {
    ZkFrameDecoder(int maxFrameBytes) {
        super(maxFrameBytes + 4, 0, 4, 0, 4, true);
    }

    /** The length as ZooKeeper reads it, signed (Netty's default reads 4 bytes unsigned). */
    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
        return buf.getInt(offset);
    }
}
