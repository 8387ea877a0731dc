package dev.parallax.bench.queue;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.jctools.queues.MpscArrayQueue;
import org.jctools.queues.SpscArrayQueue;

/**
 * The queue implementations compared by the benchmarks, each able to build a bounded {@link HandoffQueue}.
 *
 * <p>Thread-safety: immutable constants; {@link #create} may be called from any thread and never blocks.
 */
public enum QueueKind {

    /** JCTools {@link SpscArrayQueue}: one producer, one consumer. */
    JCTOOLS_SPSC(false) {
        @Override
        HandoffQueue build(int capacity, int drainLimit) {
            return new JctoolsHandoffQueue(new SpscArrayQueue<>(capacity), drainLimit);
        }
    },

    /** JCTools {@link MpscArrayQueue}: many producers, one consumer. */
    JCTOOLS_MPSC(true) {
        @Override
        HandoffQueue build(int capacity, int drainLimit) {
            return new JctoolsHandoffQueue(new MpscArrayQueue<>(capacity), drainLimit);
        }
    },

    /** {@link ArrayBlockingQueue}, non-fair: the JDK baseline the others are compared against. */
    ARRAY_BLOCKING(true) {
        @Override
        HandoffQueue build(int capacity, int drainLimit) {
            return new BlockingHandoffQueue(new ArrayBlockingQueue<>(capacity), drainLimit);
        }
    },

    /** {@link LinkedBlockingQueue} bounded to the same capacity (two locks, one node allocated per item). */
    LINKED_BLOCKING(true) {
        @Override
        HandoffQueue build(int capacity, int drainLimit) {
            return new BlockingHandoffQueue(new LinkedBlockingQueue<>(capacity), drainLimit);
        }
    },

    /** Disruptor ring on a single-producer sequencer; the consumer drains everything published. */
    RING_SINGLE(false) {
        @Override
        HandoffQueue build(int capacity, int drainLimit) {
            return RingHandoffQueue.singleProducer(capacity);
        }
    },

    /** Disruptor ring on a multi-producer sequencer; the consumer drains everything published. */
    RING_MULTI(true) {
        @Override
        HandoffQueue build(int capacity, int drainLimit) {
            return RingHandoffQueue.multiProducer(capacity);
        }
    };

    private final boolean multiProducer;

    QueueKind(boolean multiProducer) {
        this.multiProducer = multiProducer;
    }

    /**
     * Tells whether more than one thread may offer to queues of this kind.
     *
     * @return {@code true} for multi-producer kinds
     */
    public boolean multiProducer() {
        return multiProducer;
    }

    /**
     * Builds an empty queue of this kind.
     *
     * @param capacity the bound; a power of two so that every kind holds exactly this many items
     * @param drainLimit the most items one drain moves (the Disruptor kinds ignore it and drain all published)
     * @return a new queue
     * @throws IllegalArgumentException if {@code capacity} is not a positive power of two or
     *         {@code drainLimit} is not positive
     */
    public HandoffQueue create(int capacity, int drainLimit) {
        if (capacity <= 0 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a positive power of two: " + capacity);
        }
        return build(capacity, drainLimit);
    }

    abstract HandoffQueue build(int capacity, int drainLimit);
}
