package dev.parallax.scheduler;

import dev.parallax.core.Command;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded single-producer single-consumer ring of (command, class) pairs: the input queue of one
 * early-scheduling worker (seed 001 §4.2.1: "each worker thread has a separate input FIFO queue").
 * Two parallel arrays avoid allocating a wrapper per command.
 *
 * <p>Threads: {@link #hasSpace()} and {@link #put} by the one producer (the scheduling thread);
 * {@link #isEmpty()}, {@link #peekCommand()}, {@link #peekClass()} and {@link #remove()} by the one
 * consumer (the worker). Never blocks. The producer's release store of its index publishes the
 * slot it filled; the consumer's release store of its index hands the slot back.
 */
final class TaskRing extends TaskRingConsumerIndex {
    private final Command[] commands;
    private final int[] classes;
    private final int mask;
    private final int capacity;

    /** @param capacity rounded up to a power of two */
    TaskRing(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        int cap = 1;
        while (cap < capacity) {
            cap <<= 1;
        }
        this.capacity = cap;
        this.mask = cap - 1;
        this.commands = new Command[cap];
        this.classes = new int[cap];
    }

    int capacity() {
        return capacity;
    }

    /** Producer: whether {@link #put} would succeed. Space only grows until the next put. */
    boolean hasSpace() {
        return producerIndex - (long) CONSUMER_INDEX.getAcquire(this) < capacity;
    }

    /** Producer: appends; the caller checked {@link #hasSpace()}. */
    void put(Command command, int cls) {
        long p = producerIndex;
        int i = (int) p & mask;
        commands[i] = command;
        classes[i] = cls;
        PRODUCER_INDEX.setRelease(this, p + 1);
    }

    /** Consumer: whether there is nothing to take. */
    boolean isEmpty() {
        return consumerIndex == (long) PRODUCER_INDEX.getAcquire(this);
    }

    /** Consumer: the oldest command; only after {@link #isEmpty()} returned false. */
    Command peekCommand() {
        return commands[(int) consumerIndex & mask];
    }

    /** Consumer: the oldest command's class. */
    int peekClass() {
        return classes[(int) consumerIndex & mask];
    }

    /** Consumer: drops the oldest entry, handing its slot back to the producer. */
    void remove() {
        long c = consumerIndex;
        commands[(int) c & mask] = null;
        CONSUMER_INDEX.setRelease(this, c + 1);
    }
}

@SuppressWarnings("unused")
abstract class TaskRingPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

abstract class TaskRingProducerIndex extends TaskRingPad0 {
    static final VarHandle PRODUCER_INDEX;

    static {
        try {
            PRODUCER_INDEX = MethodHandles.lookup().findVarHandle(TaskRingProducerIndex.class, "producerIndex", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Written by the producer (release), read by the consumer (acquire). */
    long producerIndex;
}

@SuppressWarnings("unused")
abstract class TaskRingPad1 extends TaskRingProducerIndex {
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

abstract class TaskRingConsumerIndex extends TaskRingPad1 {
    static final VarHandle CONSUMER_INDEX;

    static {
        try {
            CONSUMER_INDEX = MethodHandles.lookup().findVarHandle(TaskRingConsumerIndex.class, "consumerIndex", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Written by the consumer (release), read by the producer (acquire). */
    long consumerIndex;
    @SuppressWarnings("unused")
    long p20, p21, p22, p23, p24, p25, p26, p27;
}
