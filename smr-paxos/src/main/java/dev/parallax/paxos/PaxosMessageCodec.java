package dev.parallax.paxos;

import dev.parallax.core.spi.MalformedMessageException;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;


import java.util.ArrayList;
import java.util.List;

/**
 * Wire form of {@link PaxosMessage}s (frame bodies; big-endian). Values are {@code kind:1 length:4 bytes}:
 * kind 0 for commands (length 0 being the no-op), kind 1 for a configuration command
 * ({@link Value#membership}). Stateless and thread-safe.
 *
 * <p>Decoding checks every read against the bytes left, so malformed input (an unknown type, a
 * truncated body, a count or length larger than what remains, trailing bytes) always ends in a
 * {@link MalformedMessageException} before anything large is allocated, never in a partial message.
 * So does a message whose views or instance numbers are out of range ({@link WireBounds}: negative,
 * above {@code 2^62 - 1}, a reversed catch-up range).
 *
 * <pre>
 * 1 Prepare      view:8 fromInstance:8
 * 2 PrepareOk    view:8 trimmedBelow:8 continueFrom:8 count:4 (instance:8 view:8 value)*   (continueFrom -1: complete)
 * 3 Propose      view:8 instance:8 value
 * 4 Accept       view:8 instance:8
 * 5 Heartbeat    view:8 firstUndecided:8
 * 6 CatchUpQuery view:8 from:8 to:8
 * 7 CatchUpReply view:8 firstAvailable:8 count:4 (instance:8 value)*
 * 8 RecoveryQuery view:8
 * 9 RecoveryReply view:8 fence:8 fenced:1 (0 or 1) highest:8
 * 10 HeartbeatAck view:8 firstUndecided:8
 * 11 PreVote      view:8 firstUndecided:8
 * 12 PreVoteReply view:8 candidateView:8 granted:1 (0 or 1)
 * 13 StepDown     view:8
 * 14 TimeoutNow   view:8 firstUndecided:8
 * 15 ReadConfirm      view:8 round:8
 * 16 ReadConfirmAck   view:8 round:8
 * 17 ReadIndexRequest view:8 read:8
 * 18 ReadIndexReply   view:8 read:8 position:8   (position -1: refused)
 * </pre>
 */
public final class PaxosMessageCodec implements MessageCodec<PaxosMessage> {
    private static final int PREPARE = 1;
    private static final int PREPARE_OK = 2;
    private static final int PROPOSE = 3;
    private static final int ACCEPT = 4;
    private static final int HEARTBEAT = 5;
    private static final int CATCH_UP_QUERY = 6;
    private static final int CATCH_UP_REPLY = 7;
    private static final int RECOVERY_QUERY = 8;
    private static final int RECOVERY_REPLY = 9;
    private static final int HEARTBEAT_ACK = 10;
    private static final int PRE_VOTE = 11;
    private static final int PRE_VOTE_REPLY = 12;
    private static final int STEP_DOWN = 13;
    private static final int TIMEOUT_NOW = 14;
    private static final int READ_CONFIRM = 15;
    private static final int READ_CONFIRM_ACK = 16;
    private static final int READ_INDEX_REQUEST = 17;
    private static final int READ_INDEX_REPLY = 18;
    private static final int KIND_COMMANDS = 0;
    private static final int KIND_MEMBERSHIP = 1;

    /** @throws IllegalArgumentException for a message type this codec does not know */
    @Override
    public int type(PaxosMessage m) {
        if (m instanceof PaxosMessage.Propose) {
            return PROPOSE;
        } else if (m instanceof PaxosMessage.Accept) {
            return ACCEPT;
        } else if (m instanceof PaxosMessage.Heartbeat) {
            return HEARTBEAT;
        } else if (m instanceof PaxosMessage.Prepare) {
            return PREPARE;
        } else if (m instanceof PaxosMessage.PrepareOk) {
            return PREPARE_OK;
        } else if (m instanceof PaxosMessage.CatchUpQuery) {
            return CATCH_UP_QUERY;
        } else if (m instanceof PaxosMessage.CatchUpReply) {
            return CATCH_UP_REPLY;
        } else if (m instanceof PaxosMessage.RecoveryQuery) {
            return RECOVERY_QUERY;
        } else if (m instanceof PaxosMessage.RecoveryReply) {
            return RECOVERY_REPLY;
        } else if (m instanceof PaxosMessage.HeartbeatAck) {
            return HEARTBEAT_ACK;
        } else if (m instanceof PaxosMessage.PreVote) {
            return PRE_VOTE;
        } else if (m instanceof PaxosMessage.PreVoteReply) {
            return PRE_VOTE_REPLY;
        } else if (m instanceof PaxosMessage.StepDown) {
            return STEP_DOWN;
        } else if (m instanceof PaxosMessage.TimeoutNow) {
            return TIMEOUT_NOW;
        } else if (m instanceof PaxosMessage.ReadConfirm) {
            return READ_CONFIRM;
        } else if (m instanceof PaxosMessage.ReadConfirmAck) {
            return READ_CONFIRM_ACK;
        } else if (m instanceof PaxosMessage.ReadIndexRequest) {
            return READ_INDEX_REQUEST;
        } else if (m instanceof PaxosMessage.ReadIndexReply) {
            return READ_INDEX_REPLY;
        }
        throw new IllegalArgumentException("no frame type for " + m.getClass().getSimpleName());
    }

    @Override
    public void encode(PaxosMessage m, WireWriter out) {
        out.putLong(m.view());
        if (m instanceof PaxosMessage.Propose p) {
            out.putLong(p.instance());
            writeValue(out, p.value());
        } else if (m instanceof PaxosMessage.Accept a) {
            out.putLong(a.instance());
        } else if (m instanceof PaxosMessage.Heartbeat h) {
            out.putLong(h.firstUndecided());
        } else if (m instanceof PaxosMessage.Prepare p) {
            out.putLong(p.fromInstance());
        } else if (m instanceof PaxosMessage.PrepareOk ok) {
            out.putLong(ok.trimmedBelow()).putLong(ok.continueFrom()).putInt(ok.accepted().size());
            for (PaxosMessage.Accepted a : ok.accepted()) {
                out.putLong(a.instance()).putLong(a.view());
                writeValue(out, a.value());
            }
        } else if (m instanceof PaxosMessage.CatchUpQuery q) {
            out.putLong(q.from()).putLong(q.to());
        } else if (m instanceof PaxosMessage.CatchUpReply r) {
            out.putLong(r.firstAvailable()).putInt(r.decided().size());
            for (PaxosMessage.Decided d : r.decided()) {
                out.putLong(d.instance());
                writeValue(out, d.value());
            }
        } else if (m instanceof PaxosMessage.RecoveryReply r) {
            out.putLong(r.fence()).putByte(r.fenced() ? 1 : 0).putLong(r.highest());
        } else if (m instanceof PaxosMessage.TimeoutNow t) {
            out.putLong(t.firstUndecided());
        } else if (m instanceof PaxosMessage.HeartbeatAck a) {
            out.putLong(a.firstUndecided());
        } else if (m instanceof PaxosMessage.PreVote pv) {
            out.putLong(pv.firstUndecided());
        } else if (m instanceof PaxosMessage.PreVoteReply r) {
            out.putLong(r.candidateView()).putByte(r.granted() ? 1 : 0);
        } else if (m instanceof PaxosMessage.ReadConfirm c) {
            out.putLong(c.round());
        } else if (m instanceof PaxosMessage.ReadConfirmAck a) {
            out.putLong(a.round());
        } else if (m instanceof PaxosMessage.ReadIndexRequest r) {
            out.putLong(r.read());
        } else if (m instanceof PaxosMessage.ReadIndexReply r) {
            out.putLong(r.read()).putLong(r.position());
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws MalformedMessageException if {@code type} is unknown or the body is malformed: truncated, a
     *                           count or length beyond the bytes left, trailing bytes, or a view or
     *                           instance number out of {@link WireBounds}' ranges
     */
    @Override
    public PaxosMessage decode(int type, WireReader b) {
        long view = b.getLong();
        PaxosMessage m = switch (type) {
            case PREPARE -> new PaxosMessage.Prepare(view, b.getLong());
            case PREPARE_OK -> {
                long trimmed = b.getLong();
                long continueFrom = b.getLong();
                int n = b.getCount(21);
                List<PaxosMessage.Accepted> accepted = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    accepted.add(new PaxosMessage.Accepted(b.getLong(), b.getLong(), readValue(b)));
                }
                yield new PaxosMessage.PrepareOk(view, trimmed, accepted, continueFrom);
            }
            case PROPOSE -> new PaxosMessage.Propose(view, b.getLong(), readValue(b));
            case ACCEPT -> new PaxosMessage.Accept(view, b.getLong());
            case HEARTBEAT -> new PaxosMessage.Heartbeat(view, b.getLong());
            case CATCH_UP_QUERY -> new PaxosMessage.CatchUpQuery(view, b.getLong(), b.getLong());
            case CATCH_UP_REPLY -> {
                long first = b.getLong();
                int n = b.getCount(13);
                List<PaxosMessage.Decided> decided = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    decided.add(new PaxosMessage.Decided(b.getLong(), readValue(b)));
                }
                yield new PaxosMessage.CatchUpReply(view, first, decided);
            }
            case RECOVERY_QUERY -> new PaxosMessage.RecoveryQuery(view);
            case RECOVERY_REPLY -> {
                long fence = b.getLong();
                boolean fenced = readFlag(b);
                yield new PaxosMessage.RecoveryReply(view, fence, fenced, b.getLong());
            }
            case HEARTBEAT_ACK -> new PaxosMessage.HeartbeatAck(view, b.getLong());
            case PRE_VOTE -> new PaxosMessage.PreVote(view, b.getLong());
            case PRE_VOTE_REPLY -> {
                long candidateView = b.getLong();
                yield new PaxosMessage.PreVoteReply(view, candidateView, readFlag(b));
            }
            case STEP_DOWN -> new PaxosMessage.StepDown(view);
            case TIMEOUT_NOW -> new PaxosMessage.TimeoutNow(view, b.getLong());
            case READ_CONFIRM -> new PaxosMessage.ReadConfirm(view, b.getLong());
            case READ_CONFIRM_ACK -> new PaxosMessage.ReadConfirmAck(view, b.getLong());
            case READ_INDEX_REQUEST -> new PaxosMessage.ReadIndexRequest(view, b.getLong());
            case READ_INDEX_REPLY -> {
                long read = b.getLong();
                yield new PaxosMessage.ReadIndexReply(view, read, b.getLong());
            }
            default -> throw new MalformedMessageException("unknown paxos message type " + type);
        };
        b.end();
        String lie = WireBounds.violation(m);
        if (lie != null) {
            throw new MalformedMessageException("paxos message type " + type + ": " + lie);
        }
        return m;
    }

    private static boolean readFlag(WireReader b) {
        int flag = b.getUnsignedByte();
        if (flag != 0 && flag != 1) {
            throw new MalformedMessageException("flag byte " + flag + " is neither 0 nor 1");
        }
        return flag == 1;
    }

    private static void writeValue(WireWriter out, Value v) {
        out.putByte(v.isMembership() ? KIND_MEMBERSHIP : KIND_COMMANDS);
        out.putBytes(v.bytes());
    }

    private static Value readValue(WireReader b) {
        int kind = b.getUnsignedByte();
        byte[] bytes = b.getBytes();
        if (kind == KIND_MEMBERSHIP) {
            if (bytes.length == 0) {
                throw new MalformedMessageException("empty membership value");
            }
            return Value.membershipOf(bytes);
        }
        if (kind != KIND_COMMANDS) {
            throw new MalformedMessageException("value kind " + kind + " is neither 0 nor 1");
        }
        return bytes.length == 0 ? Value.NOOP : Value.of(bytes);
    }
}
