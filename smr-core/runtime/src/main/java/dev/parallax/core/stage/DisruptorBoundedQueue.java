package dev.parallax.core.stage;

import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.Sequencer;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A bounded queue over an LMAX Disruptor {@link RingBuffer} of preallocated mutable slots, with a
 * single consumer {@link Sequence} as the ring's only gating sequence.
 *
 * <p>Producers claim with {@code tryNext()} (refusing instead of waiting when the consumer has not
 * freed the slot), write the slot, and {@code publish}. The consumer reads every slot up to the
 * highest contiguous published sequence (bounded by the drain limit), clears each slot so the ring
 * does not keep elements reachable, and advances its sequence once per batch; that single release
 * store is what hands the slots back to the producers.
 *
 * <p>With several producers the claim is a CAS on the ring's cursor, which {@link #isEmpty()}
 * reads, so it serves as the wakeup protocol's fence; the single-producer sequencer publishes with
 * a release store and needs an explicit fence.
 */
final class DisruptorBoundedQueue<E> extends AbstractBoundedQueue<E> {

    private static final class Slot<E> {
        E value;
    }

    private final RingBuffer<Slot<E>> ring;
    private final Sequence consumed = new Sequence(Sequencer.INITIAL_CURSOR_VALUE);
    private final boolean multiProducer;

    DisruptorBoundedQueue(int capacity, boolean multiProducer) {
        super(multiProducer);
        this.multiProducer = multiProducer;
        // The ring's own wait strategy is never waited on (we use no SequenceBarrier); BusySpin is
        // chosen because its signalAllWhenBlocking(), called on every publish, is a no-op, whereas
        // the default BlockingWaitStrategy takes a lock there.
        this.ring = multiProducer
                ? RingBuffer.createMultiProducer(Slot::new, capacity, new BusySpinWaitStrategy())
                : RingBuffer.createSingleProducer(Slot::new, capacity, new BusySpinWaitStrategy());
        ring.addGatingSequences(consumed);
    }

    @Override
    boolean tryPublish(E element) {
        long sequence;
        try {
            sequence = ring.tryNext();
        } catch (InsufficientCapacityException full) {
            // A preallocated singleton without a stack trace: refusing costs no allocation.
            return false;
        }
        ring.get(sequence).value = element;
        ring.publish(sequence);
        return true;
    }

    @Override
    public int drain(Consumer<? super E> sink, int limit) {
        Objects.requireNonNull(sink, "sink");
        checkLimit(limit);
        long current = consumed.get();
        long available = highestPublished(current + 1, current + limit);
        long sequence = current;
        try {
            while (sequence < available) {
                sequence++;
                Slot<E> slot = ring.get(sequence);
                E element = slot.value;
                slot.value = null;
                sink.accept(element);
            }
        } finally {
            if (sequence != current) {
                consumed.set(sequence);
            }
        }
        return (int) (sequence - current);
    }

    @Override
    public E poll() {
        long next = consumed.get() + 1;
        if (highestPublished(next, next) < next) {
            return null;
        }
        Slot<E> slot = ring.get(next);
        E element = slot.value;
        slot.value = null;
        consumed.set(next);
        return element;
    }

    /**
     * The highest sequence in {@code [low, high]} up to which every slot is published, or
     * {@code low - 1} if {@code low} is not.
     */
    private long highestPublished(long low, long high) {
        long upTo = Math.min(high, ring.getCursor());
        if (!multiProducer) {
            // The single-producer cursor moves only on publish.
            return upTo;
        }
        // With several producers the cursor counts claims; publication is per slot.
        for (long sequence = low; sequence <= upTo; sequence++) {
            if (!ring.isAvailable(sequence)) {
                return sequence - 1;
            }
        }
        return upTo;
    }

    @Override
    public int size() {
        long consumedSequence = consumed.get();
        long size = ring.getCursor() - consumedSequence;
        return (int) Math.max(0, Math.min(size, ring.getBufferSize()));
    }

    @Override
    public int capacity() {
        return ring.getBufferSize();
    }

    @Override
    public boolean isEmpty() {
        long consumedSequence = consumed.get();
        return ring.getCursor() <= consumedSequence;
    }
}
