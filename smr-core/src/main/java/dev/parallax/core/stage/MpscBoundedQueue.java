package dev.parallax.core.stage;

import java.util.Objects;
import java.util.function.Consumer;
import org.jctools.queues.MpscArrayQueue;

/**
 * Many producers, one consumer, over a JCTools {@link MpscArrayQueue}. Producers claim a slot with
 * a CAS on the producer index, which is also the fence the wakeup protocol needs.
 */
final class MpscBoundedQueue<E> extends AbstractBoundedQueue<E> {

    private final MpscArrayQueue<E> queue;

    MpscBoundedQueue(int capacity) {
        super(true);
        this.queue = new MpscArrayQueue<>(capacity);
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
            // relaxedPoll: returns null rather than spin when a producer has claimed the next slot
            // but not yet written it; isEmpty() stays false, so the runner comes back.
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
