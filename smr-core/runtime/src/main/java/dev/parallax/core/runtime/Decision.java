package dev.parallax.core.runtime;

/**
 * A decided value waiting for the {@link DeliveryStage}; or, with {@code kind} {@link #TENTATIVE}, a
 * tentative one, or with {@link #REVOKED} a revocation from {@code instance} on (speculative
 * execution, seed 003 (Marandi thesis) §4.2.1; {@link dev.parallax.core.protocol.Effects#tentative}).
 * Immutable; handed from the protocol stage's thread to the delivery stage's through a queue.
 */
record Decision<V>(long instance, V value, byte kind) {
    static final byte DECIDED = 0;
    static final byte TENTATIVE = 1;
    static final byte REVOKED = 2;

    Decision(long instance, V value) {
        this(instance, value, DECIDED);
    }
}
