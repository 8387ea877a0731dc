package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The values of Ring Paxos' {@code ProtocolCore}: what the runtime proposes
 * ({@link ClientBatch}) and what it delivers ({@link Chosen}). Consensus is on value ids
 * (seed 003 (Ring Paxos) §3.3.2 ¶3); the core assigns the id when it accepts a proposal.
 *
 * <p>Byte buffers are read-only views that no one mutates: readers use absolute reads or
 * {@code duplicate()}, never move their position or limit; the bytes are those from position to
 * limit. Immutable otherwise; thread-safe.
 */
public sealed interface RingValue {

    /**
     * A batch of client requests the runtime hands the core to propose.
     *
     * @param bytes the batch
     */
    record ClientBatch(ByteBuffer bytes) implements RingValue {
        /** @throws NullPointerException if {@code bytes} is null */
        public ClientBatch {
            Objects.requireNonNull(bytes, "bytes");
        }
    }

    /**
     * A decided value: its id and its body. The value adapter delivers {@code bytes}, and
     * {@code null} for {@link ValueId#NOOP}; a skip ({@link ValueId#isSkip()}) is delivered only as
     * {@code RingPaxosBroadcast.Builder#skipDelivery} encodes it.
     *
     * @param vid the decided id
     * @param bytes the body; empty for {@link ValueId#NOOP} and skips (a {@code null} is stored as empty)
     */
    record Chosen(ValueId vid, ByteBuffer bytes) implements RingValue {
        private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

        /** @throws NullPointerException if {@code vid} is null, or {@code bytes} is null for a real value */
        public Chosen {
            Objects.requireNonNull(vid, "vid");
            if (bytes == null) {
                if (!vid.isBodiless()) {
                    throw new NullPointerException("bytes of " + vid);
                }
                bytes = EMPTY;
            }
        }
    }
}
