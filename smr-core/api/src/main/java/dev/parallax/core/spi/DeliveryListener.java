package dev.parallax.core.spi;

import java.nio.ByteBuffer;

/**
 * Receives the values an {@link AtomicBroadcast} decided, in the total order.
 *
 * <p>Called from a single delivery thread, never concurrently, with strictly increasing
 * {@code sequence} numbers without gaps (after a snapshot install the next sequence follows the
 * snapshot's). The call may block to exert back-pressure on ordering.
 */
@FunctionalInterface
public interface DeliveryListener {
    /**
     * @param sequence the position of the value in the total order (the consensus instance)
     * @param value    the decided bytes; valid only during the call
     * @throws InterruptedException if the delivery thread is interrupted while blocked
     */
    void deliver(long sequence, ByteBuffer value) throws InterruptedException;
}
