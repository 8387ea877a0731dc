package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * An acceptor's highest vote in one instance, reported in Phase 1B (seed 003 (Ring Paxos) Alg. 2/3
 * Task 2): the instance, the round it voted in, the value id and its body. Wire form
 * {@code instance:8 round:8 vid value}.
 *
 * <p>Byte buffers are read-only views that no one mutates: readers use absolute reads or
 * {@code duplicate()}, never move their position or limit; the bytes are those from position to
 * limit. Immutable otherwise; thread-safe.
 *
 * @param instance the instance
 * @param round the round of the vote
 * @param vid the voted value's id
 * @param value the voted body
 */
public record Vote(long instance, long round, ValueId vid, ByteBuffer value) {
    /** @throws NullPointerException if {@code vid} or {@code value} is null */
    public Vote {
        Objects.requireNonNull(vid, "vid");
        Objects.requireNonNull(value, "value");
    }
}
