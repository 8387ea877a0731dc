package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;

/**
 * A configuration command the ordering layer decided at {@code instance}, emitted by
 * {@link SPaxosCore} in execution order (after every instance before it executed), so that the
 * delivery side applies it to its copy of the membership history ({@link ExecutionMirror}) at the
 * same position of the order as the protocol thread did. Nothing is delivered to the listener.
 *
 * <p>Immutable and thread-safe as long as nobody changes the bytes.
 *
 * @param instance the ordering instance
 * @param change   the encoded {@code MembershipChange} (the decided value's bytes)
 */
public record MembershipDecided(long instance, ByteBuffer change) implements SPaxosValue {
    /** Deterministic: the instance, the change's length and checksum. */
    @Override
    public String toString() {
        return "MembershipDecided{" + instance + ": " + Batch.describe(change) + "}";
    }
}
