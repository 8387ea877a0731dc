package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A proposer's value on its way to the coordinator (seed 003 (Ring Paxos) Alg. 2 Task 1, Alg. 3
 * l.3–8): its id, assigned by the proposer, and its body. Wire form {@code vid value}.
 *
 * <p>Byte buffers are read-only views that no one mutates: readers use absolute reads or
 * {@code duplicate()}, never move their position or limit; the bytes are those from position to
 * limit. Immutable otherwise; thread-safe.
 *
 * @param vid the value's id
 * @param value the body
 */
public record ProposalEntry(ValueId vid, ByteBuffer value) {
    /** @throws NullPointerException if {@code vid} or {@code value} is null */
    public ProposalEntry {
        Objects.requireNonNull(vid, "vid");
        Objects.requireNonNull(value, "value");
    }
}
