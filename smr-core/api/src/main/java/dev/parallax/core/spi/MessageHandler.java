package dev.parallax.core.spi;

/**
 * Receives messages from a {@link Transport}.
 *
 * <p>Called from the transport's IO threads, possibly several at once (one per peer connection);
 * messages from one peer arrive in the order the peer sent them, unless the connection broke in
 * between. Must not block for long: hand the message to a queue.
 */
@FunctionalInterface
public interface MessageHandler<M> {
    void onMessage(int from, M message);
}
