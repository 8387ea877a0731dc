package dev.parallax.bench.queue;

import java.util.ArrayList;
import java.util.concurrent.BlockingQueue;
import org.jctools.queues.MessagePassingQueue;

/**
 * A {@code java.util.concurrent} {@link BlockingQueue} used without its blocking methods: producers call
 * {@link BlockingQueue#offer(Object)}, the consumer {@link BlockingQueue#drainTo(java.util.Collection, int)}
 * into a reused list.
 *
 * <p>Thread-safety: any number of producers; one consumer, because the drain list is reused without
 * synchronisation. Never waits for space or items (the queue's internal lock may still be contended).
 */
public final class BlockingHandoffQueue implements HandoffQueue {

    private final BlockingQueue<Object> queue;
    private final int drainLimit;
    private final ArrayList<Object> batch;

    /**
     * Wraps a blocking queue.
     *
     * @param queue the queue, bounded by the caller
     * @param drainLimit the most items one {@link #drain} call moves; positive
     * @throws IllegalArgumentException if {@code drainLimit} is not positive
     */
    public BlockingHandoffQueue(BlockingQueue<Object> queue, int drainLimit) {
        if (drainLimit <= 0) {
            throw new IllegalArgumentException("drainLimit must be positive: " + drainLimit);
        }
        this.queue = queue;
        this.drainLimit = drainLimit;
        this.batch = new ArrayList<>(drainLimit);
    }

    /** {@inheritDoc} */
    @Override
    public boolean offer(Object item) {
        return queue.offer(item);
    }

    /** {@inheritDoc} Moves at most the {@code drainLimit} given at construction. */
    @Override
    public int drain(MessagePassingQueue.Consumer<Object> sink) {
        int count = queue.drainTo(batch, drainLimit);
        for (int i = 0; i < count; i++) {
            sink.accept(batch.get(i));
        }
        batch.clear();
        return count;
    }
}
