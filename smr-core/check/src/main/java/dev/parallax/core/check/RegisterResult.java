package dev.parallax.core.check;

/**
 * The reply to a {@link RegisterOp}, the output type of {@link RegisterModel}: the value a read
 * returned, or whether a write or compare-and-set succeeded. Immutable and therefore thread-safe.
 *
 * @param success false only for a compare-and-set that found another value
 * @param value the value read; 0 for writes and compare-and-sets
 */
public record RegisterResult(boolean success, long value) {

    private static final RegisterResult OK = new RegisterResult(true, 0);
    private static final RegisterResult FAILED = new RegisterResult(false, 0);

    /** The reply to a read that returned {@code value}. Non-blocking. */
    public static RegisterResult read(long value) {
        return new RegisterResult(true, value);
    }

    /** The reply to a write or a successful compare-and-set. Non-blocking. */
    public static RegisterResult ok() {
        return OK;
    }

    /** The reply to a compare-and-set that did not apply. Non-blocking. */
    public static RegisterResult failed() {
        return FAILED;
    }
}
