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

    /**
     * Position {@code sequence} was decided with a value that delivers nothing (a no-op): it is not
     * passed to {@link #deliver}. Default: ignored.
     */
    default void skipped(long sequence) {
    }

    /**
     * Speculative execution (seed 003 (Marandi thesis) §4.2.1): {@code value} is expected, not yet
     * decided, at {@code sequence} ({@code null}: a value that delivers nothing). Only a hint, given
     * by protocols that speculate (M-Ring with {@code mring.speculation=on}), between and in order
     * with the deliveries; it may never come, come twice or change. A listener that executes it must
     * answer only once {@link #deliver} confirms the same bytes there. Default: ignored.
     *
     * @param value valid only during the call
     * @throws InterruptedException if the delivery thread is interrupted while blocked
     */
    default void tentative(long sequence, ByteBuffer value) throws InterruptedException {
    }

    /**
     * Speculative execution: tentative values at or past {@code fromSequence} may be decided
     * otherwise (the coordinator changed). Default: ignored.
     *
     * @throws InterruptedException if the delivery thread is interrupted while blocked
     */
    default void revoked(long fromSequence) throws InterruptedException {
    }
}
