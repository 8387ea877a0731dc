package dev.parallax.core.stage;

import java.util.function.IntFunction;

/** Every {@link BoundedQueue} implementation, for parameterized tests. */
enum QueueKind {
    MPSC(true, Queues::mpsc),
    SPSC(false, Queues::spsc),
    DISRUPTOR_SINGLE_PRODUCER(false, capacity -> Queues.disruptor(capacity, false)),
    DISRUPTOR_MULTI_PRODUCER(true, capacity -> Queues.disruptor(capacity, true));

    private final boolean multiProducer;
    private final IntFunction<BoundedQueue<?>> factory;

    QueueKind(boolean multiProducer, IntFunction<BoundedQueue<?>> factory) {
        this.multiProducer = multiProducer;
        this.factory = factory;
    }

    boolean multiProducer() {
        return multiProducer;
    }

    @SuppressWarnings("unchecked")
    <E> BoundedQueue<E> create(int capacity) {
        return (BoundedQueue<E>) factory.apply(capacity);
    }
}
