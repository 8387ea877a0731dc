package dev.parallax.paxos;

import dev.parallax.core.protocol.RecordCodec;

import java.nio.ByteBuffer;

/**
 * Binary form of {@link PaxosRecord}s in the durable log: a type byte, then big-endian fields.
 * Stateless and thread-safe.
 *
 * <pre>
 * Promise: 'P' view:8
 * Vote:    'V' instance:8 view:8 length:4 bytes
 * Trim:    'T' instance:8
 * Decided: 'D' instance:8 view:8
 * Decision:'C' instance:8 length:4 bytes
 * Members: 'M' length:4 bytes                  (a {@code MembershipHistory} checkpoint)
 * </pre>
 *
 * <p>A vote or decision whose value is a configuration command has the type in lower case
 * ({@code 'v'}, {@code 'c'}), so logs written before membership changes read as they did.
 *
 * <p>The log adds a CRC per record; {@link #decode} rejects an unknown type or a length that does
 * not match with {@link IllegalArgumentException}.
 */
public final class PaxosRecordCodec implements RecordCodec<PaxosRecord> {
    private static final byte PROMISE = 'P';
    private static final byte VOTE = 'V';
    private static final byte TRIM = 'T';
    private static final byte DECIDED = 'D';
    private static final byte DECISION = 'C';
    private static final byte MEMBERSHIP_VOTE = 'v';
    private static final byte MEMBERSHIP_DECISION = 'c';
    private static final byte MEMBERS = 'M';

    @Override
    public ByteBuffer encode(PaxosRecord record) {
        if (record instanceof PaxosRecord.Promise p) {
            return ByteBuffer.allocate(9).put(PROMISE).putLong(p.view()).flip();
        }
        if (record instanceof PaxosRecord.Trim t) {
            return ByteBuffer.allocate(9).put(TRIM).putLong(t.instance()).flip();
        }
        if (record instanceof PaxosRecord.Decided d) {
            return ByteBuffer.allocate(17).put(DECIDED).putLong(d.instance()).putLong(d.view()).flip();
        }
        if (record instanceof PaxosRecord.Decision d) {
            ByteBuffer value = d.value().bytes();
            return ByteBuffer.allocate(13 + value.remaining())
                    .put(d.value().isMembership() ? MEMBERSHIP_DECISION : DECISION)
                    .putLong(d.instance()).putInt(value.remaining()).put(value).flip();
        }
        if (record instanceof PaxosRecord.Members m) {
            byte[] h = m.history();
            return ByteBuffer.allocate(5 + h.length).put(MEMBERS).putInt(h.length).put(h).flip();
        }
        PaxosRecord.Vote v = (PaxosRecord.Vote) record;
        ByteBuffer value = v.value().bytes();
        return ByteBuffer.allocate(21 + value.remaining())
                .put(v.value().isMembership() ? MEMBERSHIP_VOTE : VOTE)
                .putLong(v.instance()).putLong(v.view()).putInt(value.remaining()).put(value).flip();
    }

    @Override
    public PaxosRecord decode(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate();
        try {
            byte type = b.get();
            if (type == PROMISE && b.remaining() == 8) {
                return new PaxosRecord.Promise(b.getLong());
            }
            if (type == TRIM && b.remaining() == 8) {
                return new PaxosRecord.Trim(b.getLong());
            }
            if (type == DECIDED && b.remaining() == 16) {
                return new PaxosRecord.Decided(b.getLong(), b.getLong());
            }
            if (type == DECISION || type == MEMBERSHIP_DECISION) {
                long instance = b.getLong();
                return new PaxosRecord.Decision(instance, value(b, "decision", type == MEMBERSHIP_DECISION));
            }
            if (type == VOTE || type == MEMBERSHIP_VOTE) {
                long instance = b.getLong();
                long view = b.getLong();
                return new PaxosRecord.Vote(instance, view, value(b, "vote", type == MEMBERSHIP_VOTE));
            }
            if (type == MEMBERS) {
                int len = b.getInt();
                if (len != b.remaining()) {
                    throw new IllegalArgumentException("members record length " + len + " but " + b.remaining() + " bytes follow");
                }
                byte[] h = new byte[len];
                b.get(h);
                return new PaxosRecord.Members(h);
            }
            throw new IllegalArgumentException("unknown record type " + type + " or bad length " + bytes.remaining());
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated paxos record of " + bytes.remaining() + " bytes", e);
        }
    }

    /** The rest of {@code b}: a length, then exactly that many value bytes. */
    private static Value value(ByteBuffer b, String kind, boolean membership) {
        int len = b.getInt();
        if (len != b.remaining()) {
            throw new IllegalArgumentException(kind + " record length " + len + " but " + b.remaining() + " bytes follow");
        }
        byte[] value = new byte[len];
        b.get(value);
        if (membership) {
            if (len == 0) {
                throw new IllegalArgumentException("empty membership " + kind);
            }
            return Value.membershipOf(value);
        }
        return len == 0 ? Value.NOOP : Value.of(value);
    }
}
