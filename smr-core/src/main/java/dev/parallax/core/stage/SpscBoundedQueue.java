package dev.parallax.core.stage;

import java.util.Objects;
import java.util.function.Consumer;
import org.jctools.queues.SpscArrayQueue;

/**
 * One producer, one consumer, over a JCTools {@link SpscArrayQueue}. The producer publishes with
 * release stores only, so a wakeup costs it a full fence (see the package documentation).
 */
final class SpscBoundedQueue<E> extends AbstractBoundedQueue<E> {

    private final SpscArrayQueue<E> queue;

    SpscBoundedQueue(int capacity) {
        super(false);
        this.queue = new SpscArrayQueue<>(capacity);
    }

    @Override
    boolean tryPublish(E element) {
        return queue.offer(element);
    }

    @Override
    public int drain(Consumer<? super E> sink, int limit) {
        Objects.requireNonNull(sink, "sink");
        checkLimit(limit);
        int drained = 0;
        while (drained < limit) {
            E element = queue.relaxedPoll();
            if (element == null) {
                break;
            }
            drained++;
            sink.accept(element);
        }
        return drained;
    }

    @Override
    public E poll() {
        return queue.relaxedPoll();
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public int capacity() {
        return queue.capacity();
    }

    @Override
    public boolean isEmpty() {
        return queue.isEmpty();
    }
}
