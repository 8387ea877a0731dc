package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/**
 * Receives what an {@link AtomicBroadcast} delivers per worker
 * ({@link AtomicBroadcast#startPerWorker}): worker i's own stream, the deterministic merge of its
 * groups and the global stream (P-SMR, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6 §6.2:
 * worker t_i subscribes to {g_i, g_all}).
 *
 * <p><b>Threads.</b> Each worker's stream is delivered by a thread of its own, one call at a time
 * per worker, in that worker's order; different workers' calls run concurrently. A call may block
 * (back-pressure, or a worker waiting for another inside a command they share); a blocked call is
 * interrupted when the broadcast closes or moves the worker's stream to an installed snapshot, and
 * then throws {@link InterruptedException}.
 */
@FunctionalInterface
public interface WorkerDeliveryListener {
    /**
     * @param worker   the worker whose stream this is, 0..k-1
     * @param sequence the worker's own delivery number: consecutive within its stream (after an
     *                 install it follows the snapshot's)
     * @param groups   the groups the value was multicast to (every worker's stream carries the
     *                 values multicast to all groups: the global stream's)
     * @param value    the decided bytes (a command batch); valid only during the call
     * @throws InterruptedException if interrupted while blocked
     */
    void deliver(int worker, long sequence, GroupSet groups, ByteBuffer value) throws InterruptedException;
}
