package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;

/**
 * The durable records of S-Paxos' dissemination layer, encoded by {@link DisseminationRecordCodec}.
 * Immutable value types; a body is a read-only view nobody modifies.
 */
public sealed interface DisseminationRecord {

    /**
     * A batch body this replica holds, persisted with sync before any message names it (seed 002
     * (S-Paxos) §VII ran without stable storage; we do not: a total crash must not lose a decided body).
     */
    record BodyRecord(BatchId id, ByteBuffer body) implements DisseminationRecord {
        @Override
        public String toString() {
            return "BodyRecord{" + id + ", " + Batch.describe(body) + "}";
        }
    }

    /** This replica's incarnation, persisted with sync before its first FORWARD. */
    record IncarnationRecord(long incarnation) implements DisseminationRecord {
    }
}
