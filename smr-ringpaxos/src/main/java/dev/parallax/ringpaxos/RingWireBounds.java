package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The ranges a correct member's numbers stay in, and the check that a Ring Paxos message respects
 * them: the one validation rule for numbers that come from the wire (wire input that lies; the
 * rule Multi-Paxos' {@code WireBounds} follows). {@link RingCodec} and
 * {@link MPacketCodec} refuse a message that breaks it ({@code MalformedMessageException}, so the
 * transport drops the frame or datagram and counts it); the core ignores one (transports that hand
 * messages over without a codec) and counts {@code event=malformed}.
 *
 * <ul>
 *   <li>rounds and instances are in {@code [0, 2^62-1]} ({@link #MAX_NUMBER}), so {@code r + n},
 *       {@code instance + window} never overflow; {@code -1} only where a field says so:
 *       {@code Phase1B.continueFrom} ({@code COMPLETE}), {@code Alive.lastSeen},
 *       {@code RecoveryReply.highest};</li>
 *   <li>counters and versions ({@code decidedBelow}, {@code delivered}, {@code backlog},
 *       {@code versionFloor}, {@code trimmedBelow}, {@code firstAvailable}, a fence) likewise;</li>
 *   <li>a value id's origin is a member, {@code [0, n)}, {@code -1} for {@link ValueId#NOOP} or
 *       {@code -2} for a skip; its incarnation and seq (a skip's target) are in range; a NOOP or a
 *       skip carries no bytes and is never a proposal;</li>
 *   <li>a ring holds 1..n distinct members of {@code [0, n)} (the {@link Ring} constructor checks
 *       the rest);</li>
 *   <li>a list holds at most {@value #MAX_LIST} entries, a value at most {@value #MAX_VALUE_BYTES}
 *       bytes, a catch-up range has {@code from <= to}.</li>
 * </ul>
 * Nothing else is checked: these are the numbers loops, arithmetic and allocations depend on, not
 * the protocol's invariants (a peer is trusted to run the protocol).
 *
 * <p>One more rule needs the receiver's state, so the core applies it ({@link #beyondReach}): a
 * round more than {@link #MAX_ROUND_JUMP} above the highest round the receiver knows is refused
 * before anything is promised or stored, and counted ({@code event=round.beyond.reach}). Every
 * number up to {@link #MAX_NUMBER} is well formed, but a member that promised a round near it
 * could never be outbid again: one such message would stop the ring for good, also across
 * restarts. A correct member starts its next round at most {@code n} above the highest it knows,
 * so refusing a jump of 2^32 costs nothing in practice (a member would have to miss that many
 * rounds, billions of re-formations), while exhausting the 2^62 rounds then takes 2^30 such
 * jumps, each a full re-formation.
 *
 * <p>Stateless and thread-safe.
 */
public final class RingWireBounds {
    /** The highest round, instance or counter a message may carry: {@code 2^62 - 1}. */
    public static final long MAX_NUMBER = (1L << 62) - 1;
    /** The most entries a list in a message may hold. */
    public static final int MAX_LIST = 4096;
    /** The most bytes one value may have: 16 MiB. */
    public static final int MAX_VALUE_BYTES = 16 << 20;

    private RingWireBounds() {
    }

    /** The farthest a peer's round may lie above the highest round the receiver knows: {@code 2^32}. */
    public static final long MAX_ROUND_JUMP = 1L << 32;

    /**
     * Whether {@code round} lies beyond reach of a member whose highest known round is
     * {@code known} (in {@code [-1, MAX_NUMBER]}): more than {@link #MAX_ROUND_JUMP} above it.
     */
    public static boolean beyondReach(long round, long known) {
        return round > Math.max(known, 0) + MAX_ROUND_JUMP;
    }

    /** The round {@code m} was sent in, or -1 for a message that names none (a recovery query). */
    public static long roundOf(RingWire m) {
        if (m instanceof MPacket p) {
            return p.round();
        } else if (m instanceof UPacket p) {
            return p.round();
        } else if (m instanceof MRingMessage.Phase2B b) {
            return b.round();
        } else if (m instanceof MRingMessage.Phase2AUnicast a) {
            return a.round();
        } else if (m instanceof RingMessage.Phase1A a) {
            return a.round();
        } else if (m instanceof RingMessage.Phase1B b) {
            return b.round();
        } else if (m instanceof RingMessage.Heartbeat h) {
            return h.round();
        } else if (m instanceof RingMessage.Alive a) {
            return a.round();
        } else if (m instanceof RingMessage.StepDown d) {
            return d.round();
        } else if (m instanceof RingMessage.HandOver h) {
            return h.round();
        } else if (m instanceof RingMessage.ReadConfirm c) {
            return c.round();
        } else if (m instanceof RingMessage.ReadConfirmAck a) {
            return a.round();
        } else if (m instanceof RingMessage.ReadIndexRequest r) {
            return r.round();
        } else if (m instanceof RingMessage.ReadIndexReply r) {
            return r.round();
        } else if (m instanceof RingMessage.SkipDemand d) {
            return d.round();
        } else if (m instanceof RingMessage.CatchUpQuery q) {
            return q.round();
        } else if (m instanceof RingMessage.CatchUpReply r) {
            return r.round();
        } else if (m instanceof RingMessage.Proposal p) {
            return p.round();
        } else if (m instanceof RingMessage.RecoveryReply r) {
            return r.round();
        }
        return -1;
    }

    /** Whether {@code round} is in {@code [0, MAX_NUMBER]}. */
    public static boolean isRound(long round) {
        return round >= 0 && round <= MAX_NUMBER;
    }

    /** Whether {@code instance} is in {@code [0, MAX_NUMBER]}. */
    public static boolean isInstance(long instance) {
        return instance >= 0 && instance <= MAX_NUMBER;
    }

    /**
     * What is wrong with {@code m}'s numbers among {@code members} members, or {@code null} if they
     * are all in range.
     *
     * @return a short description naming the field and its value, for the error or log line
     */
    public static String violation(RingUnicast m, int members) {
        if (m instanceof RingMessage rm) {
            return message(rm, members);
        } else if (m instanceof UPacket p) {
            return first(number("round", p.round()), ring(p.ring(), members),
                    phase2(p.phase2(), members), decisions(p.decisions(), members),
                    proposals(p.proposals(), members));
        } else if (m instanceof MRingMessage.Phase2B b) {
            return first(number("round", b.round()), instanceVids(b.votes(), members));
        } else if (m instanceof MRingMessage.Phase2AUnicast a) {
            return first(number("round", a.round()), ring(a.ring(), members), phase2(a.values(), members));
        }
        return "unknown message " + m;
    }

    /** What is wrong with the datagram {@code m}'s numbers among {@code members} members, or {@code null}. */
    public static String violation(MPacket m, int members) {
        return first(number("round", m.round()), ring(m.ring(), members),
                instanceVids(m.decisions(), members), phase2(m.proposals(), members));
    }

    /** What is wrong with {@code ring} among {@code members} members, or {@code null}. */
    public static String ring(Ring ring, int members) {
        if (ring == null) {
            return "no ring";
        }
        if (ring.size() > members) {
            return "ring of " + ring.size() + " members among " + members;
        }
        for (int i = 0; i < ring.size(); i++) {
            if (ring.member(i) >= members) {
                return "ring member " + ring.member(i) + " outside [0, " + members + ")";
            }
        }
        return null;
    }

    /** What is wrong with {@code vid} among {@code members} members, or {@code null}. */
    public static String vid(ValueId vid, int members) {
        if (vid == null) {
            return "no value id";
        }
        if (vid.origin() < ValueId.CONFIG_ORIGIN || vid.origin() >= members) {
            return "origin " + vid.origin() + " outside [-1, " + members + ") and not a skip's " + ValueId.SKIP_ORIGIN
                    + " or a configuration command's " + ValueId.CONFIG_ORIGIN;
        }
        return first(number("incarnation", vid.incarnation()), number("seq", vid.seq()));
    }

    private static String message(RingMessage m, int members) {
        if (m instanceof RingMessage.Phase1A a) {
            return first(number("round", a.round()), number("from", a.from()));
        } else if (m instanceof RingMessage.Phase1B b) {
            String bad = first(number("round", b.round()), number("trimmedBelow", b.trimmedBelow()),
                    number("decidedBelow", b.decidedBelow()), list("votes", b.votes()));
            if (bad == null && !b.isComplete()) {
                bad = number("continueFrom", b.continueFrom());
            }
            for (int i = 0; bad == null && i < b.votes().size(); i++) {
                Vote v = b.votes().get(i);
                bad = first(number("vote instance", v.instance()), number("vote round", v.round()),
                        value(v.vid(), v.value(), members));
            }
            return bad;
        } else if (m instanceof RingMessage.Heartbeat h) {
            return first(number("round", h.round()), h.ring() == null ? null : ring(h.ring(), members),
                    number("decidedBelow", h.decidedBelow()), number("versionFloor", h.versionFloor()));
        } else if (m instanceof RingMessage.Alive a) {
            return first(number("round", a.round()), number("decidedBelow", a.decidedBelow()),
                    number("delivered", a.delivered()), number("backlog", a.backlog()),
                    a.lastSeen() == -1 ? null : number("lastSeen", a.lastSeen()));
        } else if (m instanceof RingMessage.StepDown s) {
            return number("round", s.round());
        } else if (m instanceof RingMessage.HandOver h) {
            return first(number("round", h.round()), h.successor() < 0 || h.successor() >= members
                    ? "successor " + h.successor() + " outside [0, " + members + ")" : null);
        } else if (m instanceof RingMessage.CatchUpQuery q) {
            String bad = first(number("round", q.round()), number("from", q.from()), number("to", q.to()));
            return bad == null && q.from() > q.to() ? "catch-up range [" + q.from() + ", " + q.to() + ") is reversed" : bad;
        } else if (m instanceof RingMessage.CatchUpReply r) {
            return first(number("round", r.round()), number("firstAvailable", r.firstAvailable()),
                    decisions(r.decided(), members), phase2(r.values(), members));
        } else if (m instanceof RingMessage.Proposal p) {
            return first(number("round", p.round()), proposals(p.proposals(), members));
        } else if (m instanceof RingMessage.RecoveryQuery q) {
            return number("fence", q.fence());
        } else if (m instanceof RingMessage.ReadConfirm c) {
            return first(number("round", c.round()), number("sequence", c.sequence()));
        } else if (m instanceof RingMessage.ReadConfirmAck a) {
            return first(number("round", a.round()), number("sequence", a.sequence()));
        } else if (m instanceof RingMessage.ReadIndexRequest r) {
            return number("round", r.round());
        } else if (m instanceof RingMessage.ReadIndexReply r) {
            // A refusal may come from a member that holds no round yet (-1).
            return first(r.round() == -1 ? null : number("round", r.round()),
                    r.position() == -1 ? null : number("position", r.position()));
        } else if (m instanceof RingMessage.SkipDemand d) {
            return first(number("round", d.round()), number("upTo", d.upTo()));
        } else if (m instanceof RingMessage.RecoveryReply r) {
            return first(number("round", r.round()), number("fence", r.fence()),
                    r.highest() == -1 ? null : number("highest", r.highest()));
        }
        return "unknown message " + m;
    }

    private static String phase2(List<Phase2Entry> entries, int members) {
        String bad = list("phase 2 entries", entries);
        for (int i = 0; bad == null && i < entries.size(); i++) {
            Phase2Entry e = entries.get(i);
            bad = first(number("instance", e.instance()), value(e.vid(), e.value(), members));
        }
        return bad;
    }

    private static String decisions(List<DecisionEntry> entries, int members) {
        String bad = list("decisions", entries);
        for (int i = 0; bad == null && i < entries.size(); i++) {
            DecisionEntry d = entries.get(i);
            bad = first(number("decided instance", d.instance()),
                    d.hasValue() ? value(d.vid(), d.value(), members) : vid(d.vid(), members));
        }
        return bad;
    }

    private static String proposals(List<ProposalEntry> entries, int members) {
        String bad = list("proposals", entries);
        for (int i = 0; bad == null && i < entries.size(); i++) {
            ProposalEntry p = entries.get(i);
            bad = value(p.vid(), p.value(), members);
            if (bad == null && (p.vid().isBodiless() || p.vid().isConfig())) {
                bad = "a proposal of " + p.vid();
            }
        }
        return bad;
    }

    private static String instanceVids(List<InstanceVid> entries, int members) {
        String bad = list("instance ids", entries);
        for (int i = 0; bad == null && i < entries.size(); i++) {
            InstanceVid e = entries.get(i);
            bad = first(number("instance", e.instance()), vid(e.vid(), members));
        }
        return bad;
    }

    private static String value(ValueId vid, ByteBuffer value, int members) {
        String bad = vid(vid, members);
        if (bad == null && value == null) {
            bad = "no value for " + vid;
        }
        if (bad == null && value.remaining() > MAX_VALUE_BYTES) {
            bad = "value of " + value.remaining() + " bytes, more than " + MAX_VALUE_BYTES;
        }
        if (bad == null && vid.isBodiless() && value.hasRemaining()) {
            bad = vid + " with " + value.remaining() + " bytes";
        }
        return bad;
    }

    private static String list(String field, List<?> list) {
        return list.size() <= MAX_LIST ? null : field + ": " + list.size() + " entries, more than " + MAX_LIST;
    }

    private static String number(String field, long value) {
        return value >= 0 && value <= MAX_NUMBER ? null : field + " " + value + " outside [0, " + MAX_NUMBER + "]";
    }

    private static String first(String... problems) {
        for (String p : problems) {
            if (p != null) {
                return p;
            }
        }
        return null;
    }
}
