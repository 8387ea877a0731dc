package dev.parallax.core.net;

import io.netty.buffer.ByteBuf;

/**
 * Encodes a protocol's messages into frame bodies and back. One per protocol; stateless and
 * thread-safe (used by every connection's IO thread at once).
 *
 * @param <M> message type
 */
public interface MessageCodec<M> {

    /** The frame type of {@code message}, 0..255. */
    int type(M message);

    /** Writes the body of {@code message}. */
    void encode(M message, ByteBuf out);

    /**
     * Reads a body of frame type {@code type}; must consume exactly the body.
     *
     * @throws BadFrameException if the type is unknown or the body is malformed
     */
    M decode(int type, ByteBuf body);
}
