package dev.parallax.ringpaxos;

import dev.parallax.core.spi.MalformedMessageException;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;

import java.util.List;

/**
 * Wire form of M-Ring's datagram, {@link MPacket}, frame type {@value #TYPE} on the datagram group
 * {@code mring-mcast} (big-endian; seed 003 (Ring Paxos) §3.5.2 "two parts"):
 *
 * <pre>
 * 40 MPacket round:8 ring count:4 (instance:8 vid)×count count:4 (instance:8 vid value)×count
 * </pre>
 * with {@code vid}, {@code value} and {@code ring} as in {@link RingCodec}. {@link #size} is the
 * exact encoded body length, computed without encoding, so the coordinator can fill a datagram of
 * {@code mring.packet.bytes} (minus the transport's header) entry by entry: start from
 * {@link #emptySize(Ring)} and add {@link #DECISION_BYTES} per decision and
 * {@link #proposalSize(Phase2Entry)} per proposal.
 *
 * <p>Decoding refuses a truncated body, trailing bytes, a count beyond the bytes left or above
 * {@link RingWireBounds#MAX_LIST}, an unknown type or ring kind, and numbers outside
 * {@link RingWireBounds}, all with {@link MalformedMessageException}. Decoded byte buffers are fresh
 * read-only copies. Stateless and thread-safe.
 */
public final class MPacketCodec implements MessageCodec<MPacket> {
    /** The frame type of an {@link MPacket}. */
    public static final int TYPE = 40;
    /** Bytes one id-only decision adds to a packet. */
    public static final int DECISION_BYTES = InstanceVid.BYTES;

    private final int members;

    /**
     * @param members n: origins are checked to be in {@code [-1, n)}, rings to hold members of
     *        {@code [0, n)}
     * @throws IllegalArgumentException unless {@code 1 <= members <= Ring.MAX_MEMBER + 1}
     */
    public MPacketCodec(int members) {
        this.members = RingCodec.checkMembers(members);
    }

    /** The encoded body length of {@code p}: exactly what {@link #encode} writes. Pure. */
    public static int size(MPacket p) {
        return size(p.ring(), p.decisions().size(), p.proposals());
    }

    /**
     * The encoded body length of a packet with {@code ring}, {@code decisions} id-only decisions and
     * {@code proposals}. Pure.
     */
    public static int size(Ring ring, int decisions, List<Phase2Entry> proposals) {
        long size = emptySize(ring) + (long) decisions * DECISION_BYTES;
        for (Phase2Entry e : proposals) {
            size += proposalSize(e);
        }
        return Math.toIntExact(size);
    }

    /** The encoded body length of a packet with {@code ring} and no entries. Pure. */
    public static int emptySize(Ring ring) {
        return 8 + ring.wireBytes() + 4 + 4;
    }

    /** Bytes {@code e} adds to a packet. Pure. */
    public static int proposalSize(Phase2Entry e) {
        return RingCodec.PHASE2_BYTES + e.value().remaining();
    }

    @Override
    public int type(MPacket message) {
        return TYPE;
    }

    @Override
    public void encode(MPacket p, WireWriter out) {
        out.putLong(p.round());
        RingCodec.writeRing(out, p.ring());
        RingCodec.writeInstanceVids(out, p.decisions());
        RingCodec.writePhase2(out, p.proposals());
    }

    /**
     * {@inheritDoc}
     *
     * @throws MalformedMessageException if {@code type} is not {@value #TYPE}, the body is
     *         malformed, or a number breaks {@link RingWireBounds}
     */
    @Override
    public MPacket decode(int type, WireReader b) {
        if (type != TYPE) {
            throw new MalformedMessageException("unknown ring datagram type " + type);
        }
        MPacket p;
        try {
            p = new MPacket(b.getLong(), RingCodec.readRing(b), RingCodec.readInstanceVids(b), RingCodec.readPhase2(b));
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException("ring datagram: " + e.getMessage(), e);
        }
        b.end();
        String lie = RingWireBounds.violation(p, members);
        if (lie != null) {
            throw new MalformedMessageException("ring datagram: " + lie);
        }
        return p;
    }
}
