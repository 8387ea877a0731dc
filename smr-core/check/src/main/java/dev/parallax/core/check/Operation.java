package dev.parallax.core.check;

import java.util.Objects;

/**
 * One client operation of a {@link History}: what was invoked, what was observed, and when.
 *
 * <p>An operation whose outcome is unknown (the client timed out or crashed before a reply) has
 * {@code returnNanos == Long.MAX_VALUE} and no output: it may or may not have taken effect, at any
 * time after its invocation. Immutable and therefore thread-safe.
 *
 * @param clientId the client (process) that issued the operation
 * @param input the operation as the model understands it, never null
 * @param output what the client observed; null when the outcome is unknown, and may be null for
 *     a known outcome when the model gives null a meaning (e.g. "absent")
 * @param invokeNanos when the client invoked the operation, in the recorder's clock
 * @param returnNanos when the client saw the reply, or {@link Long#MAX_VALUE} for an unknown outcome
 * @param <I> the model's input type
 * @param <O> the model's output type
 */
public record Operation<I, O>(int clientId, I input, O output, long invokeNanos, long returnNanos) {

    /** The return time of an operation whose outcome is unknown. */
    public static final long UNKNOWN_RETURN = Long.MAX_VALUE;

    /**
     * Validates the operation.
     *
     * @throws NullPointerException if {@code input} is null
     * @throws IllegalArgumentException if the times are out of order, the invocation time is
     *     {@link Long#MAX_VALUE}, or an unknown outcome carries an output
     */
    public Operation {
        Objects.requireNonNull(input, "input");
        if (invokeNanos == UNKNOWN_RETURN) {
            throw new IllegalArgumentException("invokeNanos must be below Long.MAX_VALUE");
        }
        if (returnNanos < invokeNanos) {
            throw new IllegalArgumentException(
                    "returnNanos " + returnNanos + " precedes invokeNanos " + invokeNanos);
        }
        if (returnNanos == UNKNOWN_RETURN && output != null) {
            throw new IllegalArgumentException("an operation with unknown outcome has no output");
        }
    }

    /**
     * Creates an operation that completed with a reply. Thread-safe, non-blocking.
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public static <I, O> Operation<I, O> completed(
            int clientId, I input, O output, long invokeNanos, long returnNanos) {
        if (returnNanos == UNKNOWN_RETURN) {
            throw new IllegalArgumentException("a completed operation needs a finite return time");
        }
        return new Operation<>(clientId, input, output, invokeNanos, returnNanos);
    }

    /**
     * Creates an operation whose outcome is unknown: it may or may not have taken effect.
     * Thread-safe, non-blocking.
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public static <I, O> Operation<I, O> unknown(int clientId, I input, long invokeNanos) {
        return new Operation<>(clientId, input, null, invokeNanos, UNKNOWN_RETURN);
    }

    /** Whether the client never learned the outcome. Thread-safe, non-blocking. */
    public boolean outcomeUnknown() {
        return returnNanos == UNKNOWN_RETURN;
    }

    /**
     * Whether this operation returned strictly before {@code other} was invoked, so that every
     * linearization must order this one first. Operations that touch at an instant are concurrent.
     * Thread-safe, non-blocking.
     */
    public boolean precedes(Operation<?, ?> other) {
        return returnNanos < other.invokeNanos;
    }
}
