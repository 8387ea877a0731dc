package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;

/**
 * What an S-Paxos snapshot carries besides the service state (its delivery state): the executed-id
 * record ({@link ExecutedIds}, deduplication, seed 002 (S-Paxos) footnote 5), then, when the
 * membership may change, the ordering layer's membership history as of the same position
 * ({@code MembershipHistory.encode}), so that an installing replica (a new learner, a replica far
 * behind) counts quorums and stable holders as the others do —
 * {@code executedIds [MAGIC:4 history]}. A state written before the history was added (the record
 * alone) or an empty one (no record) still reads: without a history.
 *
 * <p>Immutable and thread-safe (the bytes are copied).
 *
 * @param executed   the executed ids
 * @param membership the encoded membership history, or null if the state has none
 */
public record SPaxosDeliveryState(ExecutedIds executed, byte[] membership) {
    /** Marks the membership history after the record ("SPmh"); a record never has trailing bytes. */
    static final int MAGIC = 0x53506d68;

    /** Copies the history. */
    public SPaxosDeliveryState {
        membership = membership == null ? null : membership.clone();
    }

    @Override
    public byte[] membership() {
        return membership == null ? null : membership.clone();
    }

    /** The state's bytes: the record, then the history if there is one. */
    public byte[] toBytes() {
        int size = executed.encodedSize() + (membership == null ? 0 : 4 + membership.length);
        ByteBuffer b = ByteBuffer.allocate(size);
        executed.writeTo(b);
        if (membership != null) {
            b.putInt(MAGIC).put(membership);
        }
        return b.array();
    }

    /**
     * Reads a delivery state: empty, a record alone, or a record and a history.
     *
     * @throws IllegalArgumentException if the record is malformed, or bytes follow it without the mark
     */
    public static SPaxosDeliveryState fromBytes(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate();
        ExecutedIds executed = ExecutedIds.readFrom(b);
        if (!b.hasRemaining()) {
            return new SPaxosDeliveryState(executed, null);
        }
        if (b.remaining() < 4 || b.getInt() != MAGIC) {
            throw new IllegalArgumentException("bytes after the executed-id record that are no membership history");
        }
        byte[] history = new byte[b.remaining()];
        b.get(history);
        return new SPaxosDeliveryState(executed, history);
    }

    /** See {@link #fromBytes(ByteBuffer)}. */
    public static SPaxosDeliveryState fromBytes(byte[] bytes) {
        return fromBytes(ByteBuffer.wrap(bytes));
    }
}
