package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;

/**
 * The messages of S-Paxos' dissemination layer (seed 002 (S-Paxos) §IV-A, Alg. 1; §IV-C), sent on
 * channel {@code spaxos-dissem} and encoded by {@link DisseminationCodec}; one half of
 * {@link SPaxosWire}. Immutable value types; a body is a read-only view nobody modifies.
 */
public sealed interface DisseminationMessage extends SPaxosWire {

    /**
     * A batch body: from its origin to every peer (Alg. 1 l.10), or from a holder to a replica that
     * asked for it (l.30–31). Carries the sender's ack vector (piggy-backed acks, §IV-C); the
     * origin's own entry covers {@code id}, so a FORWARD from the origin is its ack.
     */
    record Forward(BatchId id, ByteBuffer body, AckVector acks) implements DisseminationMessage {
        @Override
        public String toString() {
            return "Forward{" + id + ", " + Batch.describe(body) + ", acks=" + acks + "}";
        }
    }

    /** An explicit ack vector, sent only when nothing else went to the peer for a while (Alg. 1 l.23–25). */
    record Ack(AckVector acks) implements DisseminationMessage {
    }

    /**
     * Asks one holder for the bodies of sn {@code [fromSn, toSn]} of {@code (origin, incarnation)}
     * (Alg. 1 l.26–29); answered by {@link Forward}s or {@link BodyGone}.
     */
    record ResendForward(int origin, long incarnation, long fromSn, long toSn) implements DisseminationMessage {
    }

    /**
     * Not in the paper: the holder executed {@code id} and dropped its body below its snapshot
     * point; the asker needs a snapshot from the holder covering instances below {@code trimmedBelow}.
     */
    record BodyGone(BatchId id, long trimmedBelow) implements DisseminationMessage {
    }
}
