package dev.parallax.core.check;

/** The answer of a {@link LinearizabilityChecker}. */
public enum Verdict {
    /** Every partition has a linearization. */
    LINEARIZABLE,
    /** Some partition has none. */
    NOT_LINEARIZABLE,
    /** The budget ran out before the answer was known; no partition checked so far failed. */
    UNKNOWN
}
