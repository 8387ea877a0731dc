package dev.parallax.paxos.spaxos;

import dev.parallax.paxos.WireBounds;
import dev.parallax.core.membership.Membership;

/**
 * The ranges a correct replica's dissemination numbers stay in, and the check that a
 * {@link DisseminationMessage} respects them (as {@link WireBounds} for Paxos: wire
 * input that lies). {@link DisseminationCodec} refuses a message that breaks it
 * ({@code MalformedMessageException}); {@link DisseminationCore} ignores one (transports that hand
 * messages over without a codec) and counts it.
 *
 * <p>Origins are replica ids {@code [0, }{@link Membership#ID_SPACE}{@code )} (a membership change
 * may add a replica with any unused id, so the cluster file's {@code n} bounds nothing); incarnations, sns, watermarks and instances are in
 * {@code [0, 2^62 - 1]}; a batch id's sn is at least 1; a RESENDFORWARD asks {@code fromSn <=
 * toSn} and fewer than {@value #MAX_RESEND_SPAN} sns; an ack vector has at most
 * {@value #MAX_ACK_ENTRIES} entries ({@value #INCARNATIONS_PER_ORIGIN} per id); a body is present. Nothing else is checked:
 * a peer is trusted to run the protocol.
 *
 * <p>Stateless and thread-safe.
 */
public final class DisseminationWireBounds {
    /** The highest incarnation, sn, watermark or instance a message may carry: {@code 2^62 - 1}. */
    public static final long MAX_NUMBER = (1L << 62) - 1;
    /** A RESENDFORWARD covers fewer sns than this. */
    public static final int MAX_RESEND_SPAN = 1024;
    /** An ack vector carries at most this many incarnations per origin. */
    public static final int INCARNATIONS_PER_ORIGIN = 4;

    /** The most entries an ack vector may carry: {@value #INCARNATIONS_PER_ORIGIN} per id of the id space. */
    public static final int MAX_ACK_ENTRIES = INCARNATIONS_PER_ORIGIN * Membership.ID_SPACE;

    private DisseminationWireBounds() {
    }

    /** What is wrong with {@code m}'s numbers, or {@code null} if they are all in range. */
    public static String violation(DisseminationMessage m) {
        int members = Membership.ID_SPACE;
        if (m instanceof DisseminationMessage.Forward f) {
            if (f.body() == null) {
                return "forward without a body";
            }
            String bad = id(f.id(), members);
            return bad != null ? bad : acks(f.acks(), members);
        } else if (m instanceof DisseminationMessage.Ack a) {
            return acks(a.acks(), members);
        } else if (m instanceof DisseminationMessage.ResendForward r) {
            String bad = origin(r.origin(), members);
            if (bad == null) {
                bad = number("incarnation", r.incarnation());
            }
            if (bad == null) {
                bad = number("fromSn", r.fromSn());
            }
            if (bad == null) {
                bad = number("toSn", r.toSn());
            }
            if (bad == null && r.fromSn() > r.toSn()) {
                bad = "resend range [" + r.fromSn() + ", " + r.toSn() + "] is reversed";
            }
            if (bad == null && r.toSn() - r.fromSn() >= MAX_RESEND_SPAN) {
                bad = "resend range [" + r.fromSn() + ", " + r.toSn() + "] spans " + MAX_RESEND_SPAN + " sns or more";
            }
            return bad;
        } else if (m instanceof DisseminationMessage.BodyGone g) {
            String bad = id(g.id(), members);
            return bad != null ? bad : number("trimmedBelow", g.trimmedBelow());
        }
        return "unknown message " + m;
    }

    private static String id(BatchId id, int members) {
        if (id == null) {
            return "no batch id";
        }
        String bad = origin(id.origin(), members);
        if (bad == null) {
            bad = number("incarnation", id.incarnation());
        }
        if (bad == null) {
            bad = number("sn", id.sn());
        }
        return bad == null && id.sn() < 1 ? "batch id " + id + " has sn 0" : bad;
    }

    private static String acks(AckVector acks, int members) {
        if (acks == null) {
            return "no ack vector";
        }
        if (acks.size() > MAX_ACK_ENTRIES) {
            return "ack vector of " + acks.size() + " entries, more than " + MAX_ACK_ENTRIES;
        }
        for (AckVector.Entry e : acks.entries()) {
            String bad = origin(e.origin(), members);
            if (bad == null) {
                bad = number("ack incarnation", e.incarnation());
            }
            if (bad == null) {
                bad = number("watermark", e.watermark());
            }
            if (bad != null) {
                return bad;
            }
        }
        return null;
    }

    private static String origin(int origin, int members) {
        return origin >= 0 && origin < members ? null : "origin " + origin + " outside [0, " + members + ")";
    }

    private static String number(String field, long value) {
        return value >= 0 && value <= MAX_NUMBER ? null : field + " " + value + " outside [0, " + MAX_NUMBER + "]";
    }
}
