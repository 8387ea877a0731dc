package dev.parallax.scheduler;

import dev.parallax.core.Command;

/**
 * A bounded batch of (command, class) pairs in delivery order: a work-stealing worker's
 * {@code readyQueue}, {@code execQueue} or steal buffer (seed 001 Alg. 6). Batches are moved, not
 * copied: a transfer or a steal swaps a full batch for an empty one.
 *
 * <p>Not thread-safe: at any time one thread owns a batch, or the lock of the {@link ReadyQueue}
 * that holds it guards it.
 */
final class TaskBatch {
    private final Command[] commands;
    private final int[] classes;
    private int size;

    TaskBatch(int capacity) {
        this.commands = new Command[capacity];
        this.classes = new int[capacity];
    }

    int capacity() {
        return commands.length;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Appends; the caller checked that {@link #size()} is below {@link #capacity()}. */
    void add(Command command, int cls) {
        commands[size] = command;
        classes[size] = cls;
        size++;
    }

    Command command(int i) {
        return commands[i];
    }

    int cls(int i) {
        return classes[i];
    }

    /** Empties the batch, dropping its references. */
    void clear() {
        java.util.Arrays.fill(commands, 0, size, null);
        size = 0;
    }
}
