package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;

/** Shared read-only buffers. Immutable; any thread. */
final class ByteBufferUtil {
    /** The empty body (a NOOP's). */
    static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    private ByteBufferUtil() {
    }
}
