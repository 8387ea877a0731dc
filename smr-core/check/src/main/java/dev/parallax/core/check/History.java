package dev.parallax.core.check;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * An immutable, ordered collection of {@link Operation}s observed by the clients of one object.
 * The order is informational (usually invocation order); the checker uses only the times.
 * Immutable and therefore thread-safe.
 *
 * @param <I> the model's input type
 * @param <O> the model's output type
 */
public final class History<I, O> implements Iterable<Operation<I, O>> {

    private static final History<?, ?> EMPTY = new History<>(List.of());

    private final List<Operation<I, O>> operations;

    private History(List<Operation<I, O>> operations) {
        this.operations = operations;
    }

    /**
     * A history of the given operations, in the given order. Thread-safe, non-blocking.
     *
     * @throws NullPointerException if the collection or one of its elements is null
     */
    public static <I, O> History<I, O> of(Collection<Operation<I, O>> operations) {
        return new History<>(List.copyOf(operations));
    }

    /** The history without operations. Thread-safe, non-blocking. */
    @SuppressWarnings("unchecked")
    public static <I, O> History<I, O> empty() {
        return (History<I, O>) EMPTY;
    }

    /** A builder for hand-made histories. The builder is not thread-safe. */
    public static <I, O> Builder<I, O> builder() {
        return new Builder<>();
    }

    /** The operations, unmodifiable. Thread-safe, non-blocking. */
    public List<Operation<I, O>> operations() {
        return operations;
    }

    /** The number of operations. Thread-safe, non-blocking. */
    public int size() {
        return operations.size();
    }

    /** Whether there are no operations. Thread-safe, non-blocking. */
    public boolean isEmpty() {
        return operations.isEmpty();
    }

    /** The operations in order, unmodifiable. Thread-safe, non-blocking. */
    @Override
    public Iterator<Operation<I, O>> iterator() {
        return operations.iterator();
    }

    /**
     * The operations that satisfy {@code keep}, in the same order. Thread-safe, non-blocking.
     *
     * @throws NullPointerException if {@code keep} is null
     */
    public History<I, O> filter(Predicate<? super Operation<I, O>> keep) {
        List<Operation<I, O>> kept = new ArrayList<>(operations.size());
        for (Operation<I, O> op : operations) {
            if (keep.test(op)) {
                kept.add(op);
            }
        }
        return kept.size() == operations.size() ? this : new History<>(List.copyOf(kept));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof History<?, ?> other && operations.equals(other.operations);
    }

    @Override
    public int hashCode() {
        return operations.hashCode();
    }

    @Override
    public String toString() {
        return "History" + operations;
    }

    /**
     * Collects operations in order into a {@link History}. Not thread-safe: one builder per
     * thread; {@link HistoryRecorder} is the thread-safe way to record live clients.
     *
     * @param <I> the model's input type
     * @param <O> the model's output type
     */
    public static final class Builder<I, O> {
        private final List<Operation<I, O>> operations = new ArrayList<>();

        private Builder() {
        }

        /**
         * Adds an operation that completed with {@code output}. Non-blocking.
         *
         * @throws IllegalArgumentException if {@code returnNanos < invokeNanos} or is
         *     {@link Long#MAX_VALUE}
         * @throws NullPointerException if {@code input} is null
         */
        public Builder<I, O> ok(int clientId, I input, O output, long invokeNanos, long returnNanos) {
            operations.add(Operation.completed(clientId, input, output, invokeNanos, returnNanos));
            return this;
        }

        /**
         * Adds an operation whose outcome is unknown. Non-blocking.
         *
         * @throws IllegalArgumentException if {@code invokeNanos} is {@link Long#MAX_VALUE}
         * @throws NullPointerException if {@code input} is null
         */
        public Builder<I, O> unknown(int clientId, I input, long invokeNanos) {
            operations.add(Operation.unknown(clientId, input, invokeNanos));
            return this;
        }

        /**
         * Adds an operation. Non-blocking.
         *
         * @throws NullPointerException if {@code operation} is null
         */
        public Builder<I, O> add(Operation<I, O> operation) {
            operations.add(Objects.requireNonNull(operation, "operation"));
            return this;
        }

        /** The history of the operations added so far. Non-blocking. */
        public History<I, O> build() {
            return History.of(operations);
        }
    }
}
