package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.RecordCodec;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Binary form of {@link DisseminationRecord}s in the durable log: a tag byte, then big-endian
 * fields. The tags are those of the composite S-Paxos record codec ({@code SPaxosRecordCodec}: 0
 * is a Paxos record), so it can hand tags 1 and 2 to this codec unchanged. Stateless and
 * thread-safe.
 *
 * <pre>
 * 1 BodyRecord        origin:4 incarnation:8 sn:8 length:4 body
 * 2 IncarnationRecord incarnation:8
 * </pre>
 *
 * <p>The log adds a CRC per record; {@link #decode} refuses an unknown tag, a length that does not
 * match, or a negative field with {@link IllegalArgumentException}.
 */
public final class DisseminationRecordCodec implements RecordCodec<DisseminationRecord> {
    /** Tag of a {@link DisseminationRecord.BodyRecord}. */
    public static final byte BODY = 1;
    /** Tag of a {@link DisseminationRecord.IncarnationRecord}. */
    public static final byte INCARNATION = 2;

    @Override
    public ByteBuffer encode(DisseminationRecord record) {
        if (record instanceof DisseminationRecord.BodyRecord b) {
            ByteBuffer body = b.body().duplicate();
            ByteBuffer out = ByteBuffer.allocate(1 + BatchId.BYTES + 4 + body.remaining()).put(BODY);
            b.id().writeTo(out);
            return out.putInt(body.remaining()).put(body).flip();
        }
        DisseminationRecord.IncarnationRecord i = (DisseminationRecord.IncarnationRecord) record;
        return ByteBuffer.allocate(9).put(INCARNATION).putLong(i.incarnation()).flip();
    }

    @Override
    public DisseminationRecord decode(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate();
        try {
            byte tag = b.get();
            if (tag == INCARNATION && b.remaining() == 8) {
                long incarnation = b.getLong();
                if (incarnation < 0) {
                    throw new IllegalArgumentException("negative incarnation " + incarnation);
                }
                return new DisseminationRecord.IncarnationRecord(incarnation);
            }
            if (tag == BODY) {
                BatchId id = BatchId.readFrom(b);
                int length = b.getInt();
                if (id.origin() < 0 || id.incarnation() < 0 || id.sn() < 1 || length < 0 || length != b.remaining()) {
                    throw new IllegalArgumentException("malformed body record " + id + " of length " + length + " with " + b.remaining() + " bytes");
                }
                ByteBuffer body = ByteBuffer.allocate(length).put(b).flip().asReadOnlyBuffer();
                return new DisseminationRecord.BodyRecord(id, body);
            }
            throw new IllegalArgumentException("no dissemination record with tag " + tag + " and " + b.remaining() + " more bytes");
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated dissemination record", e);
        }
    }
}
