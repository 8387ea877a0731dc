package dev.parallax.ringpaxos;

import java.util.Objects;

/**
 * An instance and a value id, without the body: a Phase 2B vote of the M-Ring chain or an id-only
 * decision in an {@link MPacket} (seed 003 (Ring Paxos) Alg. 2 l.26–34). Wire form
 * {@code instance:8 vid} ({@link #BYTES}). Immutable and thread-safe.
 *
 * @param instance the instance
 * @param vid the value id
 */
public record InstanceVid(long instance, ValueId vid) {
    /** Bytes of the wire form. */
    public static final int BYTES = 8 + ValueId.BYTES;

    /** @throws NullPointerException if {@code vid} is null */
    public InstanceVid {
        Objects.requireNonNull(vid, "vid");
    }
}
