package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A client batch as {@link DisseminationCore} takes and reports it: proposed without an id
 * ({@link #unnumbered}), reported stable with its id and its body when this replica holds it (seed
 * 002 (S-Paxos) §IV-A, Alg. 1 l.9, l.14–15).
 *
 * <p>Immutable and thread-safe as long as nobody changes the body's bytes (the core hands out
 * read-only views).
 *
 * @param id the batch's id, or {@code null} for a batch not numbered yet
 * @param body the batch's bytes (position to limit), or {@code null} when stable but not held here
 */
public record Batch(BatchId id, ByteBuffer body) {

    /** A local client batch to disseminate. */
    public static Batch unnumbered(ByteBuffer body) {
        if (body == null) {
            throw new IllegalArgumentException("a proposed batch needs a body");
        }
        return new Batch(null, body);
    }

    /** Deterministic: the id, and the body's length and checksum. */
    @Override
    public String toString() {
        return "Batch{" + id + ", " + describe(body) + "}";
    }

    /** Length and CRC32C of a body, or "no body". */
    static String describe(ByteBuffer body) {
        if (body == null) {
            return "no body";
        }
        CRC32C crc = new CRC32C();
        crc.update(body.duplicate());
        return body.remaining() + "B#" + Long.toHexString(crc.getValue());
    }
}
