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

    /**
     * Adds member {@code id} at {@code host:port} (or moves it there): a replica a membership
     * change brought into the group after this transport was built from the cluster file. Messages
     * to it are sent from now on, and its connections are accepted. Idempotent; called from any
     * thread, never blocks. A transport whose channels share connections applies it to all of them.
     *
     * @throws IllegalArgumentException      if {@code id} is outside {@code 0..31} or is this member
     * @throws UnsupportedOperationException if this transport has a fixed membership (the default)
     */
    default void addMember(int id, String host, int port) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has a fixed membership");
    }

    /**
     * Forgets member {@code id}, removed from the group: its connections are closed, its frames
     * refused, and {@link #send} to it returns {@code false}. Idempotent; any thread, never blocks.
     *
     * @throws UnsupportedOperationException if this transport has a fixed membership (the default)
     */
    default void removeMember(int id) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has a fixed membership");
    }

    /** Closes every connection and stops the IO threads; idempotent. */
    @Override
    void close();
}
