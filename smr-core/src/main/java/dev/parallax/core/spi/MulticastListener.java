package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/**
 * Receives messages an {@link AtomicMulticast} delivers to a subscriber.
 *
 * <p>Called from one delivery thread per subscriber, never concurrently for one subscriber. May
 * block to exert back-pressure.
 */
@FunctionalInterface
public interface MulticastListener {
    /**
     * @param groups  the groups the message was multicast to
     * @param message the bytes; valid only during the call
     * @throws InterruptedException if the delivery thread is interrupted while blocked
     */
    void deliver(GroupSet groups, ByteBuffer message) throws InterruptedException;
}
