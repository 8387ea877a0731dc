package dev.parallax.bench.queue;

import org.jctools.queues.MessagePassingQueue;

/**
 * The consumer stage's per-item work in the queue benchmarks: it keeps a reference to the last item it
 * was given, a heap write the JIT cannot discard, so that dequeuing is not optimised away.
 *
 * <p>Thread-safety: confined to the single consumer thread; not safe for concurrent use. Never blocks.
 */
public final class ItemSink implements MessagePassingQueue.Consumer<Object> {

    private Object lastItem;

    /**
     * Takes one dequeued item.
     *
     * @param item the dequeued item
     */
    @Override
    public void accept(Object item) {
        lastItem = item;
    }

    /**
     * Returns the item most recently passed to {@link #accept}.
     *
     * @return the last item, or {@code null} before the first one
     */
    public Object lastItem() {
        return lastItem;
    }
}
