package dev.parallax.paxos.spaxos;

import dev.parallax.core.spi.MalformedMessageException;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;

import java.util.ArrayList;
import java.util.List;

/**
 * Wire form of {@link DisseminationMessage}s (frame bodies, big-endian) on channel
 * {@code spaxos-dissem}. Stateless and thread-safe.
 *
 * <p>Decoding checks every read against the bytes left (a truncated body, a count or length larger
 * than what remains, trailing bytes, an unknown type all end in {@link MalformedMessageException}
 * before anything large is allocated), then the numbers against {@link DisseminationWireBounds}.
 *
 * <pre>
 * 1 Forward       origin:4 incarnation:8 sn:8 length:4 body acks
 * 2 Ack           acks
 * 3 ResendForward origin:4 incarnation:8 fromSn:8 toSn:8
 * 4 BodyGone      origin:4 incarnation:8 sn:8 trimmedBelow:8
 * acks = count:4 (origin:4 incarnation:8 watermark:8){count}
 * </pre>
 */
public final class DisseminationCodec implements MessageCodec<DisseminationMessage> {
    private static final int FORWARD = 1;
    private static final int ACK = 2;
    private static final int RESEND_FORWARD = 3;
    private static final int BODY_GONE = 4;

    /** A codec whose origins are checked to be ids of the id space ({@link DisseminationWireBounds}). */
    public DisseminationCodec() {
    }

    /**
     * As {@link #DisseminationCodec()}: {@code members}, the cluster file's n, is only checked to be
     * 1..32, since a membership change may add a replica with any unused id of the id space.
     */
    public DisseminationCodec(int members) {
        if (members < 1 || members > dev.parallax.core.membership.Membership.ID_SPACE) {
            throw new IllegalArgumentException("members must be 1.." + dev.parallax.core.membership.Membership.ID_SPACE
                    + ", got " + members);
        }
    }

    @Override
    public int type(DisseminationMessage m) {
        if (m instanceof DisseminationMessage.Forward) {
            return FORWARD;
        } else if (m instanceof DisseminationMessage.Ack) {
            return ACK;
        } else if (m instanceof DisseminationMessage.ResendForward) {
            return RESEND_FORWARD;
        } else if (m instanceof DisseminationMessage.BodyGone) {
            return BODY_GONE;
        }
        throw new IllegalArgumentException("no frame type for " + m);
    }

    @Override
    public void encode(DisseminationMessage m, WireWriter out) {
        if (m instanceof DisseminationMessage.Forward f) {
            writeId(out, f.id());
            out.putBytes(f.body().duplicate());
            writeAcks(out, f.acks());
        } else if (m instanceof DisseminationMessage.Ack a) {
            writeAcks(out, a.acks());
        } else if (m instanceof DisseminationMessage.ResendForward r) {
            out.putInt(r.origin()).putLong(r.incarnation()).putLong(r.fromSn()).putLong(r.toSn());
        } else if (m instanceof DisseminationMessage.BodyGone g) {
            writeId(out, g.id());
            out.putLong(g.trimmedBelow());
        } else {
            throw new IllegalArgumentException("cannot encode " + m);
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws MalformedMessageException if {@code type} is unknown, the body is malformed, or a
     *         number breaks {@link DisseminationWireBounds}
     */
    @Override
    public DisseminationMessage decode(int type, WireReader b) {
        DisseminationMessage m = switch (type) {
            case FORWARD -> {
                BatchId id = readId(b);
                yield new DisseminationMessage.Forward(id, b.getBuffer().asReadOnlyBuffer(), readAcks(b));
            }
            case ACK -> new DisseminationMessage.Ack(readAcks(b));
            case RESEND_FORWARD -> new DisseminationMessage.ResendForward(b.getInt(), b.getLong(), b.getLong(), b.getLong());
            case BODY_GONE -> new DisseminationMessage.BodyGone(readId(b), b.getLong());
            default -> throw new MalformedMessageException("unknown dissemination message type " + type);
        };
        b.end();
        String lie = DisseminationWireBounds.violation(m);
        if (lie != null) {
            throw new MalformedMessageException("dissemination message type " + type + ": " + lie);
        }
        return m;
    }

    private static void writeId(WireWriter out, BatchId id) {
        out.putInt(id.origin()).putLong(id.incarnation()).putLong(id.sn());
    }

    private static BatchId readId(WireReader b) {
        return new BatchId(b.getInt(), b.getLong(), b.getLong());
    }

    private static void writeAcks(WireWriter out, AckVector acks) {
        out.putInt(acks.size());
        for (AckVector.Entry e : acks.entries()) {
            out.putInt(e.origin()).putLong(e.incarnation()).putLong(e.watermark());
        }
    }

    private AckVector readAcks(WireReader b) {
        int n = b.getCount(AckVector.Entry.BYTES);
        if (n > DisseminationWireBounds.MAX_ACK_ENTRIES) {
            throw new MalformedMessageException("ack vector of " + n + " entries, more than "
                    + DisseminationWireBounds.MAX_ACK_ENTRIES);
        }
        if (n == 0) {
            return AckVector.EMPTY;
        }
        List<AckVector.Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(new AckVector.Entry(b.getInt(), b.getLong(), b.getLong()));
        }
        return new AckVector(entries);
    }
}
