package dev.parallax.core.stage;

/**
 * Factories of {@link BoundedQueue}s. Which to use where: MPSC where
 * several threads feed one stage, SPSC between two stages, the Disruptor ring where its batch
 * hand-back pays; decide by the JMH queue benchmarks.
 *
 * <p>Every queue has a single consumer and a capacity rounded up to a power of two, and to at
 * least 4. Thread-safe; each call returns a new, empty queue.
 */
public final class Queues {

    /** The largest capacity accepted: 2^30. */
    public static final int MAX_CAPACITY = 1 << 30;

    private static final int MIN_CAPACITY = 4;

    private Queues() {
    }

    /**
     * A multi-producer single-consumer queue over a JCTools {@code MpscArrayQueue}.
     *
     * @param capacity the least capacity wanted, 1 to {@link #MAX_CAPACITY}
     * @param <E> the element type
     * @return a new queue: any number of producer threads, one consumer thread at a time
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    public static <E> BoundedQueue<E> mpsc(int capacity) {
        return JcToolsBoundedQueue.mpsc(actualCapacity(capacity));
    }

    /**
     * A single-producer single-consumer queue over a JCTools {@code SpscArrayQueue}. Its producer
     * publishes with release stores only, so once a consumer wakeup is installed each successful
     * offer also pays a full fence (see the package documentation).
     *
     * @param capacity the least capacity wanted, 1 to {@link #MAX_CAPACITY}
     * @param <E> the element type
     * @return a new queue: one producer thread at a time, one consumer thread at a time
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    public static <E> BoundedQueue<E> spsc(int capacity) {
        return JcToolsBoundedQueue.spsc(actualCapacity(capacity));
    }

    /**
     * A queue over an LMAX Disruptor ring buffer with a single consumer sequence. As for
     * {@link #spsc}, the single-producer variant pays a full fence per offer once a consumer wakeup
     * is installed; the multi-producer variant's claim CAS already is one.
     *
     * @param capacity the least capacity wanted, 1 to {@link #MAX_CAPACITY}
     * @param multiProducer true for a multi-producer sequencer (any number of producer threads),
     *     false for the single-producer one (one producer thread at a time)
     * @param <E> the element type
     * @return a new queue with one consumer thread at a time
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    public static <E> BoundedQueue<E> disruptor(int capacity, boolean multiProducer) {
        return new DisruptorBoundedQueue<>(actualCapacity(capacity), multiProducer);
    }

    static int actualCapacity(int requested) {
        if (requested < 1 || requested > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be in [1, " + MAX_CAPACITY + "]: " + requested);
        }
        int powerOfTwo = requested == 1 ? 1 : Integer.highestOneBit(requested - 1) << 1;
        return Math.max(MIN_CAPACITY, powerOfTwo);
    }
}
