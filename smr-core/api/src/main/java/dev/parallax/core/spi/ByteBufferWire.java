package dev.parallax.core.spi;

import java.nio.ByteBuffer;
import java.nio.BufferUnderflowException;
import java.util.Arrays;

/**
 * {@link WireWriter} and {@link WireReader} over plain {@link ByteBuffer}s: what tests, simulations
 * and log records use to run a {@link MessageCodec} without a network library.
 *
 * <p>Not thread-safe; a writer grows its heap buffer by doubling.
 */
public final class ByteBufferWire {
    private ByteBufferWire() {
    }

    /** Encodes {@code message} with {@code codec}: its type and a body buffer positioned at 0. */
    public static <M> Encoded encode(MessageCodec<M> codec, M message) {
        Writer w = new Writer(64);
        codec.encode(message, w);
        return new Encoded(codec.type(message), w.toBuffer());
    }

    /** Decodes a body produced by {@link #encode}; the buffer is not moved. */
    public static <M> M decode(MessageCodec<M> codec, int type, ByteBuffer body) {
        return codec.decode(type, new Reader(body.duplicate()));
    }

    /** A frame type and its body. */
    public record Encoded(int type, ByteBuffer body) {
    }

    /** A growing heap writer. */
    public static final class Writer implements WireWriter {
        private ByteBuffer buf;

        public Writer(int initialCapacity) {
            this.buf = ByteBuffer.allocate(Math.max(16, initialCapacity));
        }

        private void room(int n) {
            if (buf.remaining() < n) {
                int cap = Math.max(buf.capacity() * 2, buf.position() + n);
                buf = ByteBuffer.wrap(Arrays.copyOf(buf.array(), cap)).position(buf.position());
            }
        }

        @Override
        public WireWriter putByte(int b) {
            room(1);
            buf.put((byte) b);
            return this;
        }

        @Override
        public WireWriter putInt(int v) {
            room(4);
            buf.putInt(v);
            return this;
        }

        @Override
        public WireWriter putLong(long v) {
            room(8);
            buf.putLong(v);
            return this;
        }

        @Override
        public WireWriter putBytes(ByteBuffer bytes) {
            room(4 + bytes.remaining());
            buf.putInt(bytes.remaining());
            buf.put(bytes.duplicate());
            return this;
        }

        /** What was written, as a new buffer positioned at 0. */
        public ByteBuffer toBuffer() {
            return ByteBuffer.wrap(Arrays.copyOf(buf.array(), buf.position()));
        }
    }

    /** A checked reader over a buffer's bytes from position to limit (moves the given buffer). */
    public static final class Reader implements WireReader {
        private final ByteBuffer buf;

        public Reader(ByteBuffer buf) {
            this.buf = buf;
        }

        private void need(int n) {
            if (buf.remaining() < n) {
                throw new MalformedMessageException("body truncated: needed " + n + " bytes, " + buf.remaining() + " left");
            }
        }

        @Override
        public int remaining() {
            return buf.remaining();
        }

        @Override
        public int getUnsignedByte() {
            need(1);
            return buf.get() & 0xff;
        }

        @Override
        public int getInt() {
            need(4);
            return buf.getInt();
        }

        @Override
        public long getLong() {
            need(8);
            return buf.getLong();
        }

        @Override
        public int getCount(int minItemBytes) {
            int n = getInt();
            if (n < 0 || (long) n * minItemBytes > buf.remaining()) {
                throw new MalformedMessageException("count " + n + " does not fit in the " + buf.remaining() + " bytes left");
            }
            return n;
        }

        @Override
        public byte[] getBytes() {
            int n = getCount(1);
            byte[] out = new byte[n];
            try {
                buf.get(out);
            } catch (BufferUnderflowException e) {
                throw new MalformedMessageException("byte string truncated", e);
            }
            return out;
        }

        @Override
        public void end() {
            if (buf.hasRemaining()) {
                throw new MalformedMessageException(buf.remaining() + " unexpected trailing bytes");
            }
        }
    }
}
