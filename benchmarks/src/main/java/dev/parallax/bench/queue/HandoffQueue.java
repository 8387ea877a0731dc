package dev.parallax.bench.queue;

import org.jctools.queues.MessagePassingQueue;

/**
 * The non-blocking offer / batch-drain shape that every queue under test is driven through, so that the
 * benchmarks compare data structures and not calling conventions.
 *
 * <p>Thread-safety: {@link #offer} may be called by as many producer threads as the implementation's
 * {@link QueueKind} allows; {@link #drain} must only ever be called by one consumer thread. Neither
 * method blocks or spins: they report failure (full / empty) and return at once.
 */
public interface HandoffQueue {

    /**
     * Attempts to enqueue one item without waiting.
     *
     * @param item the item to hand over; never {@code null}
     * @return {@code true} if the item was enqueued, {@code false} if the queue was full
     * @throws NullPointerException if {@code item} is {@code null} (implementations may not check)
     */
    boolean offer(Object item);

    /**
     * Moves the items available now to {@code sink}, in FIFO order, up to the implementation's batch
     * limit. Never waits for items to arrive.
     *
     * @param sink receives each dequeued item on the calling thread
     * @return how many items were passed to {@code sink}; {@code 0} when the queue was empty
     */
    int drain(MessagePassingQueue.Consumer<Object> sink);
}
