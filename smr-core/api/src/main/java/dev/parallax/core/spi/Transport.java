package dev.parallax.core.spi;

/**
 * Point-to-point messaging between the replicas of a cluster. Messages are typed; encoding to
 * bytes happens inside the implementation (the Netty edge), never in protocol code.
 *
 * <p>Delivery is best effort: FIFO per connection, but a message may be lost when a connection
 * breaks or a peer's bounded send queue is full, so protocols retransmit what progress depends on.
 *
 * <p>Threads: {@link #send} and {@link #sendDatagram} may be called from any thread and never block.
 */
public interface Transport<M> extends AutoCloseable {

    /** This process's member id. */
    int localId();

    /**
     * Starts listening and connecting; received messages go to {@code handler}.
     *
     * @throws IllegalStateException if already started
     */
    void start(MessageHandler<M> handler);

    /**
     * Starts like {@link #start(MessageHandler)}, and stamps {@code stamps} with the sender of
     * everything received, on the receiving IO thread, before the handler sees it. The default
     * stamps each delivered message; a transport with frames of its own stamps every frame.
     *
     * @throws IllegalStateException if already started
     */
    default void start(MessageHandler<M> handler, ArrivalStamps stamps) {
        start((from, m) -> {
            stamps.heard(from);
            handler.onMessage(from, m);
        });
    }

    /**
     * Queues {@code message} for {@code to}. Non-blocking.
     *
     * @return {@code false} if it was not queued (the peer's send queue is full, or the transport
     *         is closed); the message is then lost and the caller relies on retransmission
     * @throws IllegalArgumentException if {@code to} is not a member
     */
    boolean send(int to, M message);

    /**
     * Sends {@code message} as one unreliable datagram to every member of datagram group
     * {@code group} except this member: it may be lost, duplicated or reordered. Non-blocking.
     *
     * @return {@code false} if it was refused (too large for a datagram, or the transport is closed)
     * @throws UnsupportedOperationException if this transport has no datagram groups (the default)
     */
    default boolean sendDatagram(int group, M message) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no datagram groups");
    }

    /** Closes every connection and stops the IO threads; idempotent. */
    @Override
    void close();
}
