package dev.parallax.core.net;

import dev.parallax.core.wire.BodyReader;
import dev.parallax.core.wire.BadFrameException;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;

/**
 * The network edge's {@link WireWriter} and {@link WireReader}: thin, reusable views over a Netty
 * {@link ByteBuf}, so codecs write into and read from Netty's buffers without a copy and without
 * depending on Netty. Reads are checked by {@link BodyReader} ({@link BadFrameException} on
 * malformed input).
 *
 * <p>Not thread-safe: one instance per encoding or decoding thread, re-pointed at each buffer.
 */
final class ByteBufWire {
    private ByteBufWire() {
    }

    /** A writer appending to the buffer it was last {@link #on pointed at}. */
    static final class Writer implements WireWriter {
        private ByteBuf out;

        Writer on(ByteBuf buf) {
            this.out = buf;
            return this;
        }

        @Override
        public WireWriter putByte(int b) {
            out.writeByte(b);
            return this;
        }

        @Override
        public WireWriter putInt(int v) {
            out.writeInt(v);
            return this;
        }

        @Override
        public WireWriter putLong(long v) {
            out.writeLong(v);
            return this;
        }

        @Override
        public WireWriter putBytes(ByteBuffer bytes) {
            BodyReader.writeBuffer(out, bytes);
            return this;
        }
    }

    /** A checked reader of the buffer it was last {@link #on pointed at}. */
    static final class Reader implements WireReader {
        private ByteBuf in;

        Reader on(ByteBuf buf) {
            this.in = buf;
            return this;
        }

        @Override
        public int remaining() {
            return in.readableBytes();
        }

        @Override
        public int getUnsignedByte() {
            return BodyReader.readUnsignedByte(in);
        }

        @Override
        public int getInt() {
            return BodyReader.readInt(in);
        }

        @Override
        public long getLong() {
            return BodyReader.readLong(in);
        }

        @Override
        public int getCount(int minItemBytes) {
            return BodyReader.readCount(in, minItemBytes);
        }

        @Override
        public byte[] getBytes() {
            return BodyReader.readBytes(in);
        }

        @Override
        public void end() {
            BodyReader.end(in);
        }
    }
}
