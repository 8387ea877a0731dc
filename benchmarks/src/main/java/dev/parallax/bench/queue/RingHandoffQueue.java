package dev.parallax.bench.queue;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import org.jctools.queues.MessagePassingQueue;

/**
 * An LMAX Disruptor {@link RingBuffer} used as a bounded queue of references, without a
 * {@code BatchEventProcessor}: producers claim with {@link RingBuffer#tryNext()}, write the slot and
 * {@link RingBuffer#publish(long)}; the consumer takes every entry published so far and advances its
 * gating {@link Sequence} once per batch.
 *
 * <p>Thread-safety: one producer thread when built with {@link #singleProducer}, any number with
 * {@link #multiProducer}; always one consumer. Never blocks or spins.
 */
public final class RingHandoffQueue implements HandoffQueue {

    /** A preallocated ring entry holding one reference. */
    private static final class Slot {
        private Object item;
    }

    private final RingBuffer<Slot> ring;
    private final SequenceBarrier published;
    private final Sequence consumed = new Sequence();

    private RingHandoffQueue(RingBuffer<Slot> ring) {
        this.ring = ring;
        this.published = ring.newBarrier();
        ring.addGatingSequences(consumed);
    }

    /**
     * Builds a ring on a single-producer sequencer.
     *
     * @param capacity the ring size; a power of two
     * @return a queue that only one thread may {@link #offer} to
     * @throws IllegalArgumentException if {@code capacity} is not a power of two
     */
    public static RingHandoffQueue singleProducer(int capacity) {
        // BusySpin: publish() calls signalAllWhenBlocking(), which for the default BlockingWaitStrategy takes
        // a lock on every publication; nothing here ever waits on the strategy.
        return new RingHandoffQueue(RingBuffer.createSingleProducer(Slot::new, capacity, new BusySpinWaitStrategy()));
    }

    /**
     * Builds a ring on a multi-producer sequencer.
     *
     * @param capacity the ring size; a power of two
     * @return a queue that any number of threads may {@link #offer} to
     * @throws IllegalArgumentException if {@code capacity} is not a power of two
     */
    public static RingHandoffQueue multiProducer(int capacity) {
        return new RingHandoffQueue(RingBuffer.createMultiProducer(Slot::new, capacity, new BusySpinWaitStrategy()));
    }

    /** {@inheritDoc} */
    @Override
    public boolean offer(Object item) {
        long sequence;
        try {
            sequence = ring.tryNext();
        } catch (InsufficientCapacityException full) {
            return false;
        }
        ring.get(sequence).item = item;
        ring.publish(sequence);
        return true;
    }

    /**
     * {@inheritDoc} Moves every entry published so far, with no batch limit.
     *
     * @throws IllegalStateException never in practice: only if the barrier reports an alert or timeout,
     *         which this class never triggers
     */
    @Override
    public int drain(MessagePassingQueue.Consumer<Object> sink) {
        long next = consumed.get() + 1;
        // Only ask the barrier once the cursor has reached next: waitFor then returns at once instead of
        // spinning without regard for the benchmark's stop flag.
        if (published.getCursor() < next) {
            return 0;
        }
        long highest = highestPublished(next);
        for (long sequence = next; sequence <= highest; sequence++) {
            Slot slot = ring.get(sequence);
            sink.accept(slot.item);
            slot.item = null;
        }
        if (highest >= next) {
            consumed.set(highest);
        }
        return (int) (highest - next + 1);
    }

    private long highestPublished(long next) {
        try {
            return published.waitFor(next);
        } catch (AlertException | TimeoutException e) {
            throw new IllegalStateException("ring barrier alerted or timed out, which this queue never causes", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the ring cursor", e);
        }
    }
}
