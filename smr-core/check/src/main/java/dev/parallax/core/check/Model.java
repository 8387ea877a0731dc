package dev.parallax.core.check;

import java.util.List;

/**
 * The sequential specification a history is checked against.
 *
 * <p>States must be immutable values with {@link Object#equals} and {@link Object#hashCode}: the
 * checker memoizes visited (linearized set, state) pairs and keeps states of abandoned search
 * branches. Models must be deterministic: one state and input lead to at most one next state.
 * Implementations must be thread-safe (the built-in ones are stateless); none of the methods may
 * block.
 *
 * @param <S> the state type, an immutable value
 * @param <I> the input (operation with arguments) type
 * @param <O> the output (observed reply) type
 */
public interface Model<S, I, O> {

    /** The state before any operation. Never null. */
    S initialState();

    /**
     * Applies an operation whose reply was observed.
     *
     * @param state the current state, never null
     * @param input the operation, never null
     * @param output the observed reply, possibly null where the model gives null a meaning
     * @return the next state, or null if the sequential object could not have replied
     *     {@code output} in {@code state}
     */
    S step(S state, I input, O output);

    /**
     * Applies an operation whose reply was never observed (the client timed out or crashed): any
     * reply is acceptable, so the effect of the input alone decides the next state.
     *
     * @param state the current state, never null
     * @param input the operation, never null
     * @return the next state, never null
     */
    S stepUnknownOutcome(S state, I input);

    /**
     * Whether {@code input} never changes the state, whatever the state and output: {@link #step}
     * returns either an equal state or null. The checker relies on it: such operations with an
     * unknown outcome are dropped, since they constrain nothing, and the search linearizes a
     * fitting read-only operation without trying alternatives. Answering true for an operation
     * that can change the state makes the verdict wrong; false is always safe. Defaults to false.
     */
    default boolean isReadOnly(I input) {
        return false;
    }

    /**
     * Splits a history into independently checkable partitions (P-compositionality). The default
     * is the whole history as one partition. A model whose state covers only part of the object
     * (e.g. one key of a map) must partition accordingly.
     */
    default List<Partition<I, O>> partition(History<I, O> history) {
        return Partition.whole(history);
    }

    /** A short rendering of an input for reports, e.g. {@code put(k, v)}. */
    default String describeInput(I input) {
        return String.valueOf(input);
    }

    /** A short rendering of an observed output for reports. */
    default String describeOutput(I input, O output) {
        return String.valueOf(output);
    }

    /** A short rendering of a state for reports. */
    default String describeState(S state) {
        return String.valueOf(state);
    }
}
