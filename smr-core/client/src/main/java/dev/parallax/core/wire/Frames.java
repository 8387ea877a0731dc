package dev.parallax.core.wire;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * Constants and helpers of the frame format ({@code length:4 | version:1 | type:1 | body}).
 * Stateless and thread-safe.
 */
public final class Frames {
    /** The only wire version this build speaks. */
    public static final byte VERSION = 1;
    /** Bytes before the body: length, version, type. */
    public static final int HEADER = 6;

    private Frames() {
    }

    /**
     * A decoder that splits the stream into frames of at most {@code maxFrameBytes} (length field
     * included); one Netty decoder per connection. Oversized frames raise
     * {@link io.netty.handler.codec.TooLongFrameException} at once, before the body arrives.
     */
    public static LengthFieldBasedFrameDecoder decoder(int maxFrameBytes) {
        return new LengthFieldBasedFrameDecoder(maxFrameBytes, 0, 4, 0, 4, true);
    }

    /** Writes a header for a body of {@code bodyLength} bytes. */
    public static void writeHeader(ByteBuf out, int type, int bodyLength) {
        out.writeInt(bodyLength + 2).writeByte(VERSION).writeByte(type);
    }

    /**
     * Starts a frame whose body length is not known yet. @return the writer index of the length
     * field, for {@link #finishFrame}
     */
    public static int startFrame(ByteBuf out, int type) {
        int at = out.writerIndex();
        out.writeInt(0).writeByte(VERSION).writeByte(type);
        return at;
    }

    /** Fills in the length of a frame started at {@code at}. */
    public static void finishFrame(ByteBuf out, int at) {
        out.setInt(at, out.writerIndex() - at - 4);
    }

    /**
     * Reads and checks the version and type of a frame (as split by {@link #decoder}).
     *
     * @return the type
     * @throws BadFrameException if the frame is empty or of another version
     */
    public static int readType(ByteBuf frame) {
        if (frame.readableBytes() < 2) {
            throw new BadFrameException("frame of " + frame.readableBytes() + " bytes has no version and type");
        }
        byte version = frame.readByte();
        if (version != VERSION) {
            throw new BadFrameException("unsupported wire version " + version + " (this build speaks " + VERSION + ")");
        }
        return frame.readUnsignedByte();
    }
}
