package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A decision: the instance, the decided value id, and the body when the sender carries it ({@code
 * null} when the receiver is expected to hold it, seed 003 (Ring Paxos) Alg. 3 l.35–41). Wire form
 * {@code instance:8 vid has:1 [value]}.
 *
 * <p>Byte buffers are read-only views that no one mutates: readers use absolute reads or
 * {@code duplicate()}, never move their position or limit; the bytes are those from position to
 * limit. Immutable otherwise; thread-safe.
 *
 * @param instance the decided instance
 * @param vid the decided value's id
 * @param value the body, or {@code null}
 */
public record DecisionEntry(long instance, ValueId vid, ByteBuffer value) {
    /** @throws NullPointerException if {@code vid} is null */
    public DecisionEntry {
        Objects.requireNonNull(vid, "vid");
    }

    /** Whether the body is carried. */
    public boolean hasValue() {
        return value != null;
    }
}
