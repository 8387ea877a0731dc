package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.RecordCodec;
import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.core.spi.MalformedMessageException;
import dev.parallax.core.spi.WireReader;

import java.nio.ByteBuffer;

/**
 * Binary form of {@link RingRecord}s in the durable log (logs {@code uring} and {@code mring}): a
 * tag byte, then big-endian fields, with {@code vid} and {@code value} as in {@link RingCodec}.
 * Stateless and thread-safe.
 *
 * <pre>
 * 1 Promise     round:8
 * 2 VoteRecord  instance:8 round:8 vid value
 * 3 Decided     instance:8 vid
 * 4 Decision    instance:8 vid value
 * 5 Trim        instance:8
 * 6 Incarnation incarnation:8
 * </pre>
 *
 * <p>The log adds a CRC per record; {@link #decode} refuses an unknown tag, a truncated record,
 * trailing bytes, a round, instance or incarnation outside {@code [0, 2^62-1]}
 * ({@link RingWireBounds#MAX_NUMBER}) and a malformed value id with
 * {@link IllegalArgumentException}. Decoded values are fresh read-only copies.
 */
public final class RingRecordCodec implements RecordCodec<RingRecord> {
    /** Tag of a {@link RingRecord.Promise}. */
    public static final byte PROMISE = 1;
    /** Tag of a {@link RingRecord.VoteRecord}. */
    public static final byte VOTE = 2;
    /** Tag of a {@link RingRecord.Decided}. */
    public static final byte DECIDED = 3;
    /** Tag of a {@link RingRecord.Decision}. */
    public static final byte DECISION = 4;
    /** Tag of a {@link RingRecord.Trim}. */
    public static final byte TRIM = 5;
    /** Tag of a {@link RingRecord.Incarnation}. */
    public static final byte INCARNATION = 6;
    /** Tag of a {@link RingRecord.Members} (a log written before membership changes has none). */
    public static final byte MEMBERS = 7;

    @Override
    public ByteBuffer encode(RingRecord record) {
        ByteBufferWire.Writer w = new ByteBufferWire.Writer(capacity(record));
        if (record instanceof RingRecord.Promise p) {
            w.putByte(PROMISE).putLong(p.round());
        } else if (record instanceof RingRecord.VoteRecord v) {
            w.putByte(VOTE).putLong(v.instance()).putLong(v.round());
            RingCodec.writeVid(w, v.vid());
            w.putBytes(v.value());
        } else if (record instanceof RingRecord.Decided d) {
            w.putByte(DECIDED).putLong(d.instance());
            RingCodec.writeVid(w, d.vid());
        } else if (record instanceof RingRecord.Decision d) {
            w.putByte(DECISION).putLong(d.instance());
            RingCodec.writeVid(w, d.vid());
            w.putBytes(d.value());
        } else if (record instanceof RingRecord.Trim t) {
            w.putByte(TRIM).putLong(t.instance());
        } else if (record instanceof RingRecord.Members m) {
            w.putByte(MEMBERS).putBytes(java.nio.ByteBuffer.wrap(m.history()));
        } else {
            w.putByte(INCARNATION).putLong(((RingRecord.Incarnation) record).incarnation());
        }
        return w.toBuffer();
    }

    private static int capacity(RingRecord record) {
        if (record instanceof RingRecord.VoteRecord v) {
            return 1 + 16 + ValueId.BYTES + 4 + v.value().remaining();
        } else if (record instanceof RingRecord.Decision d) {
            return 1 + 8 + ValueId.BYTES + 4 + d.value().remaining();
        } else if (record instanceof RingRecord.Members m) {
            return 1 + 4 + m.history().length;
        }
        return 1 + 8 + ValueId.BYTES;
    }

    @Override
    public RingRecord decode(ByteBuffer bytes) {
        WireReader r = new ByteBufferWire.Reader(bytes.duplicate());
        try {
            int tag = r.getUnsignedByte();
            RingRecord record = switch (tag) {
                case PROMISE -> new RingRecord.Promise(number("round", r.getLong()));
                case VOTE -> new RingRecord.VoteRecord(number("instance", r.getLong()), number("round", r.getLong()),
                        vid(r), RingCodec.readValue(r));
                case DECIDED -> new RingRecord.Decided(number("instance", r.getLong()), vid(r));
                case DECISION -> new RingRecord.Decision(number("instance", r.getLong()), vid(r), RingCodec.readValue(r));
                case TRIM -> new RingRecord.Trim(number("instance", r.getLong()));
                case INCARNATION -> new RingRecord.Incarnation(number("incarnation", r.getLong()));
                case MEMBERS -> members(RingCodec.readValue(r));
                default -> throw new IllegalArgumentException("no ring record with tag " + tag);
            };
            r.end();
            return record;
        } catch (MalformedMessageException e) {
            throw new IllegalArgumentException("malformed ring record of " + bytes.remaining() + " bytes: "
                    + e.getMessage(), e);
        }
    }

    /** A {@link RingRecord.Members} whose history parses ({@code MembershipHistory#restore}'s checks). */
    private static RingRecord.Members members(ByteBuffer bytes) {
        byte[] h = new byte[bytes.remaining()];
        bytes.duplicate().get(h);
        new dev.parallax.core.membership.MembershipHistory(dev.parallax.core.membership.Membership.initial(1), 1)
                .restore(ByteBuffer.wrap(h));
        return new RingRecord.Members(h);
    }

    private static ValueId vid(WireReader r) {
        ValueId vid = RingCodec.readVid(r);
        number("incarnation", vid.incarnation());
        number("seq", vid.seq());
        return vid;
    }

    private static long number(String field, long value) {
        if (value < 0 || value > RingWireBounds.MAX_NUMBER) {
            throw new IllegalArgumentException(field + " " + value + " outside [0, " + RingWireBounds.MAX_NUMBER + "]");
        }
        return value;
    }
}
