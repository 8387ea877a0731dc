package dev.parallax.core.protocol;

/**
 * Told when a core reported a {@link SafetyViolation}: the replica must stop serving rather than
 * diverge. The {@link EffectApplier} calls it (after which it applies nothing more), the protocol
 * stage counts and logs it, and the replica's hook stops serving clients and executing.
 *
 * <p>Called on the thread that drives the core; an implementation must not block (hand longer work
 * to another thread) and should not throw.
 */
@FunctionalInterface
public interface SafetyAlarm {

    /** Does nothing (the stage still stops its core, counts and logs). */
    SafetyAlarm NONE = violation -> { };

    /** A core observed {@code violation}. */
    void raised(SafetyViolation violation);
}
