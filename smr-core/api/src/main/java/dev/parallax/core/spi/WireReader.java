package dev.parallax.core.spi;

import java.nio.ByteBuffer;

/**
 * Checked reads of a message body for a {@link MessageCodec}: every read verifies that the bytes are
 * there and that a length or count is sane, so a malformed body becomes a
 * {@link MalformedMessageException}, never an out-of-bounds error or a huge allocation.
 *
 * <p>Not thread-safe: a reader belongs to the one thread decoding a message, for that call only.
 * The bytes are valid only during the call: whatever a message keeps is copied out
 * ({@link #getBytes}, {@link #getBuffer} copy).
 */
public interface WireReader {

    /** Bytes left in the body. */
    int remaining();

    int getUnsignedByte();

    int getInt();

    long getLong();

    /**
     * A count of following items of at least {@code minItemBytes} bytes each.
     *
     * @throws MalformedMessageException if it is negative or the items cannot fit in what is left
     */
    int getCount(int minItemBytes);

    /** A length-prefixed byte string ({@link WireWriter#putBytes}), copied out. */
    byte[] getBytes();

    /** A length-prefixed byte string as a new heap buffer (copied), positioned at 0. */
    default ByteBuffer getBuffer() {
        return ByteBuffer.wrap(getBytes());
    }

    /** @throws MalformedMessageException if bytes are left after the body was read */
    void end();
}
