package dev.parallax.ringpaxos;

import dev.parallax.core.spi.MalformedMessageException;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Wire form of the TCP messages, {@link RingUnicast}, on channels {@code uring} and {@code mring}
 * (frame bodies, big-endian). Types 30–31 are M-Ring's, written by {@link MRingWire}.
 * Stateless and thread-safe.
 *
 * <p>Decoding checks every read against the bytes left (a truncated body, a count or length larger
 * than what remains, trailing bytes, an unknown type or ring kind all end in
 * {@link MalformedMessageException} before anything large is allocated), then the numbers against
 * {@link RingWireBounds} (also a {@code MalformedMessageException}). Decoded byte buffers are fresh
 * read-only copies.
 *
 * <pre>
 *  1 Phase1A        round:8 from:8
 *  2 Phase1B        round:8 trimmedBelow:8 decidedBelow:8 count:4 vote×count continueFrom:8
 *  3 Heartbeat      round:8 ring decidedBelow:8 versionFloor:8      (no ring: kind 0, count 0, acceptors 0)
 *  4 Alive          round:8 decidedBelow:8 delivered:8 backlog:8 lastSeen:8 wantsRing:1
 *  5 StepDown       round:8
 *  6 CatchUpQuery   round:8 from:8 to:8
 *  7 CatchUpReply   round:8 firstAvailable:8 count:4 decision×count count:4 phase2×count
 *  8 Proposal       round:8 count:4 proposal×count
 *  9 RecoveryQuery  fence:8
 * 10 RecoveryReply  round:8 fence:8 fenced:1 highest:8
 * 11 HandOver       round:8 successor:4
 * 12 ReadConfirm    round:8 sequence:8
 * 13 ReadConfirmAck round:8 sequence:8
 * 14 ReadIndexRequest round:8 read:8
 * 15 ReadIndexReply round:8 read:8 position:8   (position -1: refused; round -1: the sender holds none)
 * 16 SkipDemand     round:8 upTo:8
 * 20 UPacket        round:8 ring count:4 phase2×count count:4 decision×count count:4 proposal×count
 * 30 Phase2B        round:8 count:4 instanceVid×count
 * 31 Phase2AUnicast round:8 ring count:4 phase2×count
 *
 * vid         = origin:2 (signed) incarnation:8 seq:8
 * value       = len:4 bytes
 * ring        = kind:1 (1 U-Ring, 2 M-Ring) count:1 acceptors:1 id:1×count
 * phase2      = instance:8 vid value
 * decision    = instance:8 vid has:1 [value]
 * proposal    = vid value
 * instanceVid = instance:8 vid
 * vote        = instance:8 round:8 vid value
 * booleans    = one byte, 0 or 1
 * </pre>
 */
public final class RingCodec implements MessageCodec<RingUnicast> {
    /** Frame type of {@link RingMessage.Phase1A}. */
    public static final int PHASE_1A = 1;
    /** Frame type of {@link RingMessage.Phase1B}. */
    public static final int PHASE_1B = 2;
    /** Frame type of {@link RingMessage.Heartbeat}. */
    public static final int HEARTBEAT = 3;
    /** Frame type of {@link RingMessage.Alive}. */
    public static final int ALIVE = 4;
    /** Frame type of {@link RingMessage.StepDown}. */
    public static final int STEP_DOWN = 5;
    /** Frame type of {@link RingMessage.CatchUpQuery}. */
    public static final int CATCH_UP_QUERY = 6;
    /** Frame type of {@link RingMessage.CatchUpReply}. */
    public static final int CATCH_UP_REPLY = 7;
    /** Frame type of {@link RingMessage.Proposal}. */
    public static final int PROPOSAL = 8;
    /** Frame type of {@link RingMessage.RecoveryQuery}. */
    public static final int RECOVERY_QUERY = 9;
    /** Frame type of {@link RingMessage.RecoveryReply}. */
    public static final int RECOVERY_REPLY = 10;
    /** Frame type of {@link RingMessage.HandOver}. */
    public static final int HAND_OVER = 11;
    /** Frame type of {@link RingMessage.ReadConfirm}. */
    public static final int READ_CONFIRM = 12;
    /** Frame type of {@link RingMessage.ReadConfirmAck}. */
    public static final int READ_CONFIRM_ACK = 13;
    /** Frame type of {@link RingMessage.ReadIndexRequest}. */
    public static final int READ_INDEX_REQUEST = 14;
    /** Frame type of {@link RingMessage.ReadIndexReply}. */
    public static final int READ_INDEX_REPLY = 15;
    /** Frame type of {@link RingMessage.SkipDemand}. */
    public static final int SKIP_DEMAND = 16;
    /** Frame type of {@link UPacket}. */
    public static final int U_PACKET = 20;
    /** Frame type of {@link MRingMessage.Phase2B}. */
    public static final int PHASE_2B = MRingWire.PHASE_2B;
    /** Frame type of {@link MRingMessage.Phase2AUnicast}. */
    public static final int PHASE_2A_UNICAST = MRingWire.PHASE_2A_UNICAST;

    /** Bytes of an encoded {@link Phase2Entry} without its value bytes. */
    static final int PHASE2_BYTES = 8 + ValueId.BYTES + 4;
    /** Bytes of an encoded {@link DecisionEntry} without a value. */
    static final int DECISION_BYTES = 8 + ValueId.BYTES + 1;
    /** Bytes of an encoded {@link ProposalEntry} without its value bytes. */
    static final int PROPOSAL_BYTES = ValueId.BYTES + 4;
    /** Bytes of an encoded {@link Vote} without its value bytes. */
    static final int VOTE_BYTES = 8 + 8 + ValueId.BYTES + 4;

    private final int members;

    /**
     * @param members n: origins are checked to be in {@code [-1, n)}, rings to hold members of
     *        {@code [0, n)}
     * @throws IllegalArgumentException unless {@code 1 <= members <= Ring.MAX_MEMBER + 1}
     */
    public RingCodec(int members) {
        this.members = checkMembers(members);
    }

    @Override
    public int type(RingUnicast m) {
        if (m instanceof RingMessage.Phase1A) {
            return PHASE_1A;
        } else if (m instanceof RingMessage.Phase1B) {
            return PHASE_1B;
        } else if (m instanceof RingMessage.Heartbeat) {
            return HEARTBEAT;
        } else if (m instanceof RingMessage.Alive) {
            return ALIVE;
        } else if (m instanceof RingMessage.StepDown) {
            return STEP_DOWN;
        } else if (m instanceof RingMessage.CatchUpQuery) {
            return CATCH_UP_QUERY;
        } else if (m instanceof RingMessage.CatchUpReply) {
            return CATCH_UP_REPLY;
        } else if (m instanceof RingMessage.Proposal) {
            return PROPOSAL;
        } else if (m instanceof RingMessage.RecoveryQuery) {
            return RECOVERY_QUERY;
        } else if (m instanceof RingMessage.RecoveryReply) {
            return RECOVERY_REPLY;
        } else if (m instanceof RingMessage.HandOver) {
            return HAND_OVER;
        } else if (m instanceof RingMessage.ReadConfirm) {
            return READ_CONFIRM;
        } else if (m instanceof RingMessage.ReadConfirmAck) {
            return READ_CONFIRM_ACK;
        } else if (m instanceof RingMessage.ReadIndexRequest) {
            return READ_INDEX_REQUEST;
        } else if (m instanceof RingMessage.ReadIndexReply) {
            return READ_INDEX_REPLY;
        } else if (m instanceof RingMessage.SkipDemand) {
            return SKIP_DEMAND;
        } else if (m instanceof UPacket) {
            return U_PACKET;
        } else if (m instanceof MRingMessage mm) {
            return MRingWire.type(mm);
        }
        throw new IllegalArgumentException("no frame type for " + m);
    }

    @Override
    public void encode(RingUnicast m, WireWriter out) {
        if (m instanceof RingMessage.Phase1A a) {
            out.putLong(a.round()).putLong(a.from());
        } else if (m instanceof RingMessage.Phase1B b) {
            out.putLong(b.round()).putLong(b.trimmedBelow()).putLong(b.decidedBelow()).putInt(b.votes().size());
            for (Vote v : b.votes()) {
                out.putLong(v.instance()).putLong(v.round());
                writeVid(out, v.vid());
                out.putBytes(v.value());
            }
            out.putLong(b.continueFrom());
        } else if (m instanceof RingMessage.Heartbeat h) {
            out.putLong(h.round());
            if (h.ring() == null) {
                out.putByte(0).putByte(0).putByte(0);
            } else {
                writeRing(out, h.ring());
            }
            out.putLong(h.decidedBelow()).putLong(h.versionFloor());
        } else if (m instanceof RingMessage.Alive a) {
            out.putLong(a.round()).putLong(a.decidedBelow()).putLong(a.delivered()).putLong(a.backlog())
                    .putLong(a.lastSeen()).putByte(a.wantsRing() ? 1 : 0);
        } else if (m instanceof RingMessage.StepDown s) {
            out.putLong(s.round());
        } else if (m instanceof RingMessage.CatchUpQuery q) {
            out.putLong(q.round()).putLong(q.from()).putLong(q.to());
        } else if (m instanceof RingMessage.CatchUpReply r) {
            out.putLong(r.round()).putLong(r.firstAvailable());
            writeDecisions(out, r.decided());
            writePhase2(out, r.values());
        } else if (m instanceof RingMessage.Proposal p) {
            out.putLong(p.round());
            writeProposals(out, p.proposals());
        } else if (m instanceof RingMessage.RecoveryQuery q) {
            out.putLong(q.fence());
        } else if (m instanceof RingMessage.RecoveryReply r) {
            out.putLong(r.round()).putLong(r.fence()).putByte(r.fenced() ? 1 : 0).putLong(r.highest());
        } else if (m instanceof RingMessage.HandOver h) {
            out.putLong(h.round()).putInt(h.successor());
        } else if (m instanceof RingMessage.ReadConfirm c) {
            out.putLong(c.round()).putLong(c.sequence());
        } else if (m instanceof RingMessage.ReadConfirmAck a) {
            out.putLong(a.round()).putLong(a.sequence());
        } else if (m instanceof RingMessage.ReadIndexRequest r) {
            out.putLong(r.round()).putLong(r.read());
        } else if (m instanceof RingMessage.ReadIndexReply r) {
            out.putLong(r.round()).putLong(r.read()).putLong(r.position());
        } else if (m instanceof RingMessage.SkipDemand d) {
            out.putLong(d.round()).putLong(d.upTo());
        } else if (m instanceof UPacket p) {
            out.putLong(p.round());
            writeRing(out, p.ring());
            writePhase2(out, p.phase2());
            writeDecisions(out, p.decisions());
            writeProposals(out, p.proposals());
        } else if (m instanceof MRingMessage mm) {
            MRingWire.encode(mm, out);
        } else {
            throw new IllegalArgumentException("cannot encode " + m);
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws MalformedMessageException if {@code type} is unknown, the body is malformed, or a
     *         number breaks {@link RingWireBounds}
     */
    @Override
    public RingUnicast decode(int type, WireReader b) {
        RingUnicast m;
        try {
            m = switch (type) {
                case PHASE_1A -> new RingMessage.Phase1A(b.getLong(), b.getLong());
                case PHASE_1B -> {
                    long round = b.getLong();
                    long trimmedBelow = b.getLong();
                    long decidedBelow = b.getLong();
                    int n = count(b, VOTE_BYTES, "votes");
                    List<Vote> votes = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        votes.add(new Vote(b.getLong(), b.getLong(), readVid(b), readValue(b)));
                    }
                    yield new RingMessage.Phase1B(round, trimmedBelow, decidedBelow, votes, b.getLong());
                }
                case HEARTBEAT -> new RingMessage.Heartbeat(b.getLong(), readOptionalRing(b), b.getLong(), b.getLong());
                case ALIVE -> new RingMessage.Alive(b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong(),
                        readBoolean(b, "wantsRing"));
                case STEP_DOWN -> new RingMessage.StepDown(b.getLong());
                case CATCH_UP_QUERY -> new RingMessage.CatchUpQuery(b.getLong(), b.getLong(), b.getLong());
                case CATCH_UP_REPLY -> new RingMessage.CatchUpReply(b.getLong(), b.getLong(), readDecisions(b),
                        readPhase2(b));
                case PROPOSAL -> new RingMessage.Proposal(b.getLong(), readProposals(b));
                case RECOVERY_QUERY -> new RingMessage.RecoveryQuery(b.getLong());
                case RECOVERY_REPLY -> new RingMessage.RecoveryReply(b.getLong(), b.getLong(),
                        readBoolean(b, "fenced"), b.getLong());
                case HAND_OVER -> new RingMessage.HandOver(b.getLong(), b.getInt());
                case READ_CONFIRM -> new RingMessage.ReadConfirm(b.getLong(), b.getLong());
                case READ_CONFIRM_ACK -> new RingMessage.ReadConfirmAck(b.getLong(), b.getLong());
                case READ_INDEX_REQUEST -> new RingMessage.ReadIndexRequest(b.getLong(), b.getLong());
                case READ_INDEX_REPLY -> new RingMessage.ReadIndexReply(b.getLong(), b.getLong(), b.getLong());
                case SKIP_DEMAND -> new RingMessage.SkipDemand(b.getLong(), b.getLong());
                case U_PACKET -> new UPacket(b.getLong(), readRing(b), readPhase2(b), readDecisions(b),
                        readProposals(b));
                case MRingWire.PHASE_2B, MRingWire.PHASE_2A_UNICAST -> MRingWire.decode(type, b);
                default -> throw new MalformedMessageException("unknown ring message type " + type);
            };
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException("ring message type " + type + ": " + e.getMessage(), e);
        }
        b.end();
        String lie = RingWireBounds.violation(m, members);
        if (lie != null) {
            throw new MalformedMessageException("ring message type " + type + ": " + lie);
        }
        return m;
    }

    static int checkMembers(int members) {
        if (members < 1 || members > Ring.MAX_MEMBER + 1) {
            throw new IllegalArgumentException("members must be in [1, " + (Ring.MAX_MEMBER + 1) + "], got " + members);
        }
        return members;
    }

    // ---- shared pieces (MRingWire, MPacketCodec and RingRecordCodec use them) ----

    static void writeVid(WireWriter out, ValueId vid) {
        out.putByte(vid.origin() >> 8).putByte(vid.origin()).putLong(vid.incarnation()).putLong(vid.seq());
    }

    /** @throws IllegalArgumentException (from {@link ValueId}) if the numbers name no value id */
    static ValueId readVid(WireReader b) {
        int hi = b.getUnsignedByte();
        int lo = b.getUnsignedByte();
        return new ValueId((short) (hi << 8 | lo), b.getLong(), b.getLong());
    }

    /** A length-prefixed value as a fresh read-only buffer. */
    static ByteBuffer readValue(WireReader b) {
        return b.getBuffer().asReadOnlyBuffer();
    }

    static void writeRing(WireWriter out, Ring ring) {
        out.putByte(ring.kind().code()).putByte(ring.size()).putByte(ring.acceptors());
        for (int i = 0; i < ring.size(); i++) {
            out.putByte(ring.member(i));
        }
    }

    /** @throws IllegalArgumentException if the kind is unknown or the members are no ring */
    static Ring readRing(WireReader b) {
        int kind = b.getUnsignedByte();
        return readRingAfterKind(b, Ring.Kind.ofCode(kind));
    }

    private static Ring readOptionalRing(WireReader b) {
        int kind = b.getUnsignedByte();
        if (kind == 0) {
            int count = b.getUnsignedByte();
            int acceptors = b.getUnsignedByte();
            if (count != 0 || acceptors != 0) {
                throw new MalformedMessageException("no ring with count " + count + " and acceptors " + acceptors);
            }
            return null;
        }
        return readRingAfterKind(b, Ring.Kind.ofCode(kind));
    }

    private static Ring readRingAfterKind(WireReader b, Ring.Kind kind) {
        int count = b.getUnsignedByte();
        int acceptors = b.getUnsignedByte();
        if (count > b.remaining()) {
            throw new MalformedMessageException("ring of " + count + " members in " + b.remaining() + " bytes");
        }
        int[] order = new int[count];
        for (int i = 0; i < count; i++) {
            order[i] = b.getUnsignedByte();
        }
        return new Ring(kind, order, acceptors);
    }

    private static boolean readBoolean(WireReader b, String field) {
        int v = b.getUnsignedByte();
        if (v > 1) {
            throw new MalformedMessageException(field + " is " + v + ", not 0 or 1");
        }
        return v == 1;
    }

    /** A list count, refused above {@link RingWireBounds#MAX_LIST} or beyond the bytes left. */
    static int count(WireReader b, int minItemBytes, String what) {
        int n = b.getCount(minItemBytes);
        if (n > RingWireBounds.MAX_LIST) {
            throw new MalformedMessageException(what + ": " + n + " entries, more than " + RingWireBounds.MAX_LIST);
        }
        return n;
    }

    static void writePhase2(WireWriter out, List<Phase2Entry> entries) {
        out.putInt(entries.size());
        for (Phase2Entry e : entries) {
            out.putLong(e.instance());
            writeVid(out, e.vid());
            out.putBytes(e.value());
        }
    }

    static List<Phase2Entry> readPhase2(WireReader b) {
        int n = count(b, PHASE2_BYTES, "phase 2 entries");
        List<Phase2Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(new Phase2Entry(b.getLong(), readVid(b), readValue(b)));
        }
        return entries;
    }

    static void writeInstanceVids(WireWriter out, List<InstanceVid> entries) {
        out.putInt(entries.size());
        for (InstanceVid e : entries) {
            out.putLong(e.instance());
            writeVid(out, e.vid());
        }
    }

    static List<InstanceVid> readInstanceVids(WireReader b) {
        int n = count(b, InstanceVid.BYTES, "instance ids");
        List<InstanceVid> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(new InstanceVid(b.getLong(), readVid(b)));
        }
        return entries;
    }

    private static void writeDecisions(WireWriter out, List<DecisionEntry> entries) {
        out.putInt(entries.size());
        for (DecisionEntry d : entries) {
            out.putLong(d.instance());
            writeVid(out, d.vid());
            out.putByte(d.hasValue() ? 1 : 0);
            if (d.hasValue()) {
                out.putBytes(d.value());
            }
        }
    }

    private static List<DecisionEntry> readDecisions(WireReader b) {
        int n = count(b, DECISION_BYTES, "decisions");
        List<DecisionEntry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long instance = b.getLong();
            ValueId vid = readVid(b);
            entries.add(new DecisionEntry(instance, vid, readBoolean(b, "has") ? readValue(b) : null));
        }
        return entries;
    }

    private static void writeProposals(WireWriter out, List<ProposalEntry> entries) {
        out.putInt(entries.size());
        for (ProposalEntry p : entries) {
            writeVid(out, p.vid());
            out.putBytes(p.value());
        }
    }

    private static List<ProposalEntry> readProposals(WireReader b) {
        int n = count(b, PROPOSAL_BYTES, "proposals");
        List<ProposalEntry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(new ProposalEntry(readVid(b), readValue(b)));
        }
        return entries;
    }
}
