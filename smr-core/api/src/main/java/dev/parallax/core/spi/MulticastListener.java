package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/**
 * Receives the messages an {@link AtomicMulticast} delivers to one {@link Subscription}.
 *
 * <p><b>Threads.</b> Called from one thread at a time per subscription, never concurrently for one
 * subscription; which thread is the implementation's (its own per subscription, or one shared by
 * the subscriptions of a process: then a listener that blocks also holds up the others). The call
 * may block to exert back-pressure: the implementation then stops ordering for the streams it
 * merges once its bounded buffers are full, and {@link AtomicMulticast#multicast} refuses.
 *
 * <p>The listener may call {@link Subscription#snapshotTaken}, {@link Subscription#snapshotInstalled}
 * and {@link Subscription#close} of its own subscription from inside {@code deliver}.
 */
@FunctionalInterface
public interface MulticastListener {
    /**
     * @param groups  the groups the message was multicast to; they intersect the subscription's
     * @param message the bytes, position to limit; valid only during the call
     * @param after   the subscription's position once this message is consumed: a subscription
     *                started from it (or moved to it with
     *                {@link Subscription#snapshotInstalled}) delivers next the message that
     *                follows this one
     * @throws InterruptedException if the delivery thread is interrupted while blocked (the
     *                              subscription or the multicast is closing)
     */
    void deliver(GroupSet groups, ByteBuffer message, MulticastPosition after) throws InterruptedException;
}
