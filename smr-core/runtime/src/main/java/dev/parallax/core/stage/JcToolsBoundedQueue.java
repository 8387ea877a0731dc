package dev.parallax.core.stage;

import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscArrayQueue;
import org.jctools.queues.SpscArrayQueue;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * A {@link BoundedQueue} over a JCTools array queue: {@link MpscArrayQueue} for many producers
 * (a producer claims its slot with a CAS on the producer index, which is also the fence the wakeup
 * protocol needs) or {@link SpscArrayQueue} for one (release stores only, so the base class adds
 * the fence once a wakeup is installed). One consumer either way.
 */
final class JcToolsBoundedQueue<E> extends AbstractBoundedQueue<E> {

    private final MessagePassingQueue<E> queue;

    private JcToolsBoundedQueue(MessagePassingQueue<E> queue, boolean multiProducer) {
        super(multiProducer);
        this.queue = queue;
    }

    static <E> JcToolsBoundedQueue<E> mpsc(int capacity) {
        return new JcToolsBoundedQueue<>(new MpscArrayQueue<>(capacity), true);
    }

    static <E> JcToolsBoundedQueue<E> spsc(int capacity) {
        return new JcToolsBoundedQueue<>(new SpscArrayQueue<>(capacity), false);
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
