package dev.parallax.core.replica;

import dev.parallax.core.protocol.SafetyViolation;

/**
 * Why a replica stopped after a safety alarm: its learner heard two different decisions for one
 * instance ({@link SafetyViolation}), so it stopped serving rather than diverge. What
 * {@link Replica#failure()} reports afterwards.
 *
 * <p>Immutable and thread-safe.
 */
public final class SafetyAlarmException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The violation; transient only for serialization's sake (never serialized in practice). */
    private final transient SafetyViolation violation;

    public SafetyAlarmException(SafetyViolation violation) {
        super("safety alarm: " + violation.describe());
        this.violation = violation;
    }

    /** The two decisions that met. */
    public SafetyViolation violation() {
        return violation;
    }
}
