package dev.parallax.core.spi;

import java.nio.ByteBuffer;

/**
 * Where a {@link MessageCodec} writes a message body: big-endian primitives and length-prefixed
 * byte strings. The transport supplies it (over a Netty buffer at the network edge, over a
 * {@link ByteBuffer} in tests and simulations: {@link ByteBufferWire}), so protocol modules never
 * see a network library's types.
 *
 * <p>Not thread-safe: a writer belongs to the one thread encoding a message, for that call only.
 * Writing never blocks; the buffer grows as needed.
 */
public interface WireWriter {

    WireWriter putByte(int b);

    WireWriter putInt(int v);

    WireWriter putLong(long v);

    /** Writes {@code length:4} then the bytes from position to limit; the buffer is not moved. */
    WireWriter putBytes(ByteBuffer bytes);
}
