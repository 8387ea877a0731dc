package dev.parallax.core.wire;

import dev.parallax.core.wire.BadFrameException;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;

/**
 * Checked reads from a frame body for codecs: each read verifies the bytes are there and a length
 * is sane, so a malformed body becomes a {@link BadFrameException}, never an out-of-bounds or a huge
 * allocation. Stateless.
 */
public final class BodyReader {
    private BodyReader() {
    }

    public static long readLong(ByteBuf b) {
        need(b, 8);
        return b.readLong();
    }

    public static int readInt(ByteBuf b) {
        need(b, 4);
        return b.readInt();
    }

    public static int readUnsignedByte(ByteBuf b) {
        need(b, 1);
        return b.readUnsignedByte();
    }

    /** A count of following items of at least {@code minItemBytes} each; checked against what remains. */
    public static int readCount(ByteBuf b, int minItemBytes) {
        int n = readInt(b);
        if (n < 0 || (long) n * minItemBytes > b.readableBytes()) {
            throw new BadFrameException("count " + n + " does not fit in the " + b.readableBytes() + " bytes left");
        }
        return n;
    }

    /** A length-prefixed byte string, copied out of the frame. */
    public static byte[] readBytes(ByteBuf b) {
        int n = readCount(b, 1);
        byte[] out = new byte[n];
        b.readBytes(out);
        return out;
    }

    /** A length-prefixed byte string as a buffer (copied: frames are released after decoding). */
    public static ByteBuffer readBuffer(ByteBuf b) {
        return ByteBuffer.wrap(readBytes(b));
    }

    /** Writes a length-prefixed byte string (position to limit; the buffer is not moved). */
    public static void writeBuffer(ByteBuf out, ByteBuffer bytes) {
        out.writeInt(bytes.remaining());
        out.writeBytes(bytes.duplicate());
    }

    /** @throws BadFrameException if bytes are left after a body was read */
    public static void end(ByteBuf b) {
        if (b.isReadable()) {
            throw new BadFrameException(b.readableBytes() + " unexpected trailing bytes");
        }
    }

    private static void need(ByteBuf b, int n) {
        if (b.readableBytes() < n) {
            throw new BadFrameException("body truncated: needed " + n + " bytes, " + b.readableBytes() + " left");
        }
    }
}
