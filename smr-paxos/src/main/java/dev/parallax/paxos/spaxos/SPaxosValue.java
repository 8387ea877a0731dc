package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;

/**
 * What {@link SPaxosCore} takes and emits through {@code ProtocolCore}: a local client batch in
 * ({@link ClientBatch}, handed to dissemination, seed 002 (S-Paxos) §IV-A Alg. 1 l.9), an
 * {@link Executable} out (the new batches of one decided instance, in order, with their bodies,
 * l.19–22), and a {@link MembershipDecided} out for a decided configuration command (delivered to
 * no listener; the delivery side's membership history takes it).
 *
 * <p>Immutable and thread-safe as long as nobody changes the bytes.
 */
public sealed interface SPaxosValue permits SPaxosValue.ClientBatch, Executable, MembershipDecided {

    /**
     * A batch of client commands (a {@code CommandBatch}) received by this replica, position to limit.
     *
     * @param bytes the batch; the caller must not change it after proposing
     */
    record ClientBatch(ByteBuffer bytes) implements SPaxosValue {
        public ClientBatch {
            if (bytes == null) {
                throw new IllegalArgumentException("a client batch needs bytes");
            }
        }

        /** Deterministic: length and checksum. */
        @Override
        public String toString() {
            return "ClientBatch{" + Batch.describe(bytes) + "}";
        }
    }
}
