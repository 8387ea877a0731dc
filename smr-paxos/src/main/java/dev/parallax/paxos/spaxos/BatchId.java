package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;

/**
 * The id of one client batch: {@code ⟨origin : sn⟩} of seed 002 (S-Paxos) §IV-C, plus the
 * origin's incarnation (not in the paper) so that a restarted origin never reuses an id. {@code sn}
 * starts at 1 in every incarnation. Ordered by (origin, incarnation, sn).
 *
 * <p>Immutable and thread-safe. On the wire and in logs it is {@link #BYTES} bytes:
 * {@code origin:4 incarnation:8 sn:8}.
 *
 * @param origin the replica that received the batch from its clients and numbered it
 * @param incarnation the origin's incarnation when it numbered the batch
 * @param sn the batch's sequence number within the origin's incarnation, from 1
 */
public record BatchId(int origin, long incarnation, long sn) implements Comparable<BatchId> {
    /** Encoded size in bytes. */
    public static final int BYTES = 4 + 8 + 8;

    @Override
    public int compareTo(BatchId o) {
        int c = Integer.compare(origin, o.origin);
        if (c == 0) {
            c = Long.compare(incarnation, o.incarnation);
        }
        return c != 0 ? c : Long.compare(sn, o.sn);
    }

    /** Writes the {@link #BYTES} bytes of this id. */
    public void writeTo(ByteBuffer out) {
        out.putInt(origin).putLong(incarnation).putLong(sn);
    }

    /**
     * Reads an id as {@link #writeTo} wrote it (no range check: the callers check their bounds).
     *
     * @throws java.nio.BufferUnderflowException if fewer than {@link #BYTES} bytes remain
     */
    public static BatchId readFrom(ByteBuffer in) {
        return new BatchId(in.getInt(), in.getLong(), in.getLong());
    }

    /** Deterministic, short: {@code origin:incarnation:sn}. */
    @Override
    public String toString() {
        return origin + ":" + incarnation + ":" + sn;
    }
}
