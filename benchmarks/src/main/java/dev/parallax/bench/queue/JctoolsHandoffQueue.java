package dev.parallax.bench.queue;

import org.jctools.queues.MessagePassingQueue;

/**
 * A JCTools {@link MessagePassingQueue} (e.g. {@code MpscArrayQueue}, {@code SpscArrayQueue}) driven
 * through {@link MessagePassingQueue#offer} and {@link MessagePassingQueue#drain(MessagePassingQueue.Consumer, int)}.
 *
 * <p>Thread-safety: as many producers as the wrapped queue supports; one consumer. Never blocks.
 */
public final class JctoolsHandoffQueue implements HandoffQueue {

    private final MessagePassingQueue<Object> queue;
    private final int drainLimit;

    /**
     * Wraps a JCTools queue.
     *
     * @param queue the queue; its producer/consumer arity decides who may call {@link #offer}
     * @param drainLimit the most items one {@link #drain} call moves; positive
     * @throws IllegalArgumentException if {@code drainLimit} is not positive
     */
    public JctoolsHandoffQueue(MessagePassingQueue<Object> queue, int drainLimit) {
        if (drainLimit <= 0) {
            throw new IllegalArgumentException("drainLimit must be positive: " + drainLimit);
        }
        this.queue = queue;
        this.drainLimit = drainLimit;
    }

    /** {@inheritDoc} */
    @Override
    public boolean offer(Object item) {
        return queue.offer(item);
    }

    /** {@inheritDoc} Moves at most the {@code drainLimit} given at construction. */
    @Override
    public int drain(MessagePassingQueue.Consumer<Object> sink) {
        return queue.drain(sink, drainLimit);
    }
}
