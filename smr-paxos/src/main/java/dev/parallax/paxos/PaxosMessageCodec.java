package dev.parallax.paxos;

import dev.parallax.core.net.BadFrameException;
import dev.parallax.core.net.BodyReader;
import dev.parallax.core.net.MessageCodec;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * Wire form of {@link PaxosMessage}s (frame bodies; big-endian). Values are {@code length:4 bytes},
 * length 0 being the no-op. Stateless and thread-safe.
 *
 * <p>Decoding checks every read against the bytes left, so malformed input (an unknown type, a
 * truncated body, a count or length larger than what remains, trailing bytes) always ends in a
 * {@link BadFrameException} before anything large is allocated, never in a partial message.
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
        }
        throw new IllegalArgumentException("no frame type for " + m.getClass().getSimpleName());
    }

    @Override
    public void encode(PaxosMessage m, ByteBuf out) {
        out.writeLong(m.view());
        if (m instanceof PaxosMessage.Propose p) {
            out.writeLong(p.instance());
            writeValue(out, p.value());
        } else if (m instanceof PaxosMessage.Accept a) {
            out.writeLong(a.instance());
        } else if (m instanceof PaxosMessage.Heartbeat h) {
            out.writeLong(h.firstUndecided());
        } else if (m instanceof PaxosMessage.Prepare p) {
            out.writeLong(p.fromInstance());
        } else if (m instanceof PaxosMessage.PrepareOk ok) {
            out.writeLong(ok.trimmedBelow()).writeLong(ok.continueFrom()).writeInt(ok.accepted().size());
            for (PaxosMessage.Accepted a : ok.accepted()) {
                out.writeLong(a.instance()).writeLong(a.view());
                writeValue(out, a.value());
            }
        } else if (m instanceof PaxosMessage.CatchUpQuery q) {
            out.writeLong(q.from()).writeLong(q.to());
        } else if (m instanceof PaxosMessage.CatchUpReply r) {
            out.writeLong(r.firstAvailable()).writeInt(r.decided().size());
            for (PaxosMessage.Decided d : r.decided()) {
                out.writeLong(d.instance());
                writeValue(out, d.value());
            }
        } else if (m instanceof PaxosMessage.RecoveryReply r) {
            out.writeLong(r.fence()).writeByte(r.fenced() ? 1 : 0).writeLong(r.highest());
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws BadFrameException if {@code type} is unknown or the body is malformed: truncated, a
     *                           count or length beyond the bytes left, or trailing bytes
     */
    @Override
    public PaxosMessage decode(int type, ByteBuf b) {
        long view = BodyReader.readLong(b);
        PaxosMessage m = switch (type) {
            case PREPARE -> new PaxosMessage.Prepare(view, BodyReader.readLong(b));
            case PREPARE_OK -> {
                long trimmed = BodyReader.readLong(b);
                long continueFrom = BodyReader.readLong(b);
                int n = BodyReader.readCount(b, 20);
                List<PaxosMessage.Accepted> accepted = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    accepted.add(new PaxosMessage.Accepted(BodyReader.readLong(b), BodyReader.readLong(b), readValue(b)));
                }
                yield new PaxosMessage.PrepareOk(view, trimmed, accepted, continueFrom);
            }
            case PROPOSE -> new PaxosMessage.Propose(view, BodyReader.readLong(b), readValue(b));
            case ACCEPT -> new PaxosMessage.Accept(view, BodyReader.readLong(b));
            case HEARTBEAT -> new PaxosMessage.Heartbeat(view, BodyReader.readLong(b));
            case CATCH_UP_QUERY -> new PaxosMessage.CatchUpQuery(view, BodyReader.readLong(b), BodyReader.readLong(b));
            case CATCH_UP_REPLY -> {
                long first = BodyReader.readLong(b);
                int n = BodyReader.readCount(b, 12);
                List<PaxosMessage.Decided> decided = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    decided.add(new PaxosMessage.Decided(BodyReader.readLong(b), readValue(b)));
                }
                yield new PaxosMessage.CatchUpReply(view, first, decided);
            }
            case RECOVERY_QUERY -> new PaxosMessage.RecoveryQuery(view);
            case RECOVERY_REPLY -> {
                long fence = BodyReader.readLong(b);
                boolean fenced = readFlag(b);
                yield new PaxosMessage.RecoveryReply(view, fence, fenced, BodyReader.readLong(b));
            }
            default -> throw new BadFrameException("unknown paxos message type " + type);
        };
        BodyReader.end(b);
        return m;
    }

    private static boolean readFlag(ByteBuf b) {
        int flag = BodyReader.readUnsignedByte(b);
        if (flag != 0 && flag != 1) {
            throw new BadFrameException("flag byte " + flag + " is neither 0 nor 1");
        }
        return flag == 1;
    }

    private static void writeValue(ByteBuf out, Value v) {
        BodyReader.writeBuffer(out, v.bytes());
    }

    private static Value readValue(ByteBuf b) {
        byte[] bytes = BodyReader.readBytes(b);
        return bytes.length == 0 ? Value.NOOP : Value.of(bytes);
    }
}
