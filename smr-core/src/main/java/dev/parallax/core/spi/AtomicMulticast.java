package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/**
 * Atomic multicast: a message is addressed to a set of groups; every subscriber of a group delivers
 * the messages of its groups, and the delivery order is acyclic across groups: if two subscribers
 * both deliver messages m and m', they deliver them in the same order (seed 003 ch. 5, Multi-Ring
 * Paxos; seed 004 §3). A broadcast is a multicast to one group.
 *
 * <p>Threads: {@link #multicast} may be called from any thread and never blocks; each subscription
 * has one delivery thread.
 */
public interface AtomicMulticast extends AutoCloseable {

    /**
     * Subscribes to {@code groups}: from now on, messages multicast to any of them reach
     * {@code listener} in the merged deterministic order.
     *
     * @throws IllegalStateException if this process already subscribed or the multicast is closed
     */
    void subscribe(GroupSet groups, MulticastListener listener);

    /**
     * Offers a message for ordering in {@code groups}. Non-blocking.
     *
     * @return {@code false} when back-pressure refuses it (nothing was taken; try again)
     * @throws IllegalArgumentException if a group does not exist
     */
    boolean multicast(GroupSet groups, ByteBuffer message);

    /** Stops delivery and releases threads and resources; idempotent. */
    @Override
    void close();
}
