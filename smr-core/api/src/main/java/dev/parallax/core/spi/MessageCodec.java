package dev.parallax.core.spi;

/**
 * Encodes a protocol's messages into frame bodies and back, for a {@link Transport}. One per
 * protocol channel; stateless and thread-safe (every connection's IO thread uses it at once).
 *
 * <p>The codec sees only the project's own {@link WireWriter} and {@link WireReader}: the network
 * edge adapts them to its buffers, tests and simulations to {@link java.nio.ByteBuffer}s
 * ({@link ByteBufferWire}), so no protocol module depends on a network library.
 *
 * @param <M> message type
 */
public interface MessageCodec<M> {

    /** The frame type of {@code message}, 0..255. */
    int type(M message);

    /** Writes the body of {@code message}. */
    void encode(M message, WireWriter out);

    /**
     * Reads a body of frame type {@code type}; must consume exactly the body ({@link WireReader#end}).
     *
     * @throws MalformedMessageException if the type is unknown or the body is malformed
     */
    M decode(int type, WireReader body);
}
