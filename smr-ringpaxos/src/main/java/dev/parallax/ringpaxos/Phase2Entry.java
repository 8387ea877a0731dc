package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A Phase 2A proposal for one instance: the instance, the value id, and its body (seed 003 (Ring
 * Paxos) Alg. 2 l.18, Alg. 3 l.21). Wire form {@code instance:8 vid value} with
 * {@code value = len:4 bytes}.
 *
 * <p>Byte buffers are read-only views that no one mutates: readers use absolute reads or
 * {@code duplicate()}, never move their position or limit; the bytes are those from position to
 * limit. Immutable otherwise; thread-safe.
 *
 * @param instance the consensus instance
 * @param vid the value's id
 * @param value the body (empty for {@link ValueId#NOOP})
 */
public record Phase2Entry(long instance, ValueId vid, ByteBuffer value) {
    /** @throws NullPointerException if {@code vid} or {@code value} is null */
    public Phase2Entry {
        Objects.requireNonNull(vid, "vid");
        Objects.requireNonNull(value, "value");
    }
}
