package dev.parallax.core.net;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The client protocol's frames, shared by the replica's ClientIO and the {@code SmrClient}:
 *
 * <pre>
 * REQUEST (1): clientId:8 sequence:8 payload:bytes
 * REPLY   (2): sequence:8 status:1 then
 *              OK:              reply:bytes
 *              REJECTED:        message:bytes (UTF-8)
 *              REDIRECT:        leader:4       (this replica does not lead; ask that one)
 *              RETRY_FROM:      next:8         (a gap: resend every command from {@code next} in order)
 *              SESSION_EXPIRED: message:bytes
 * </pre>
 * {@code bytes} is {@code length:4} followed by the bytes. Stateless and thread-safe.
 */
public final class ClientWire {
    public static final int REQUEST = 1;
    public static final int REPLY = 2;
    /** A replica asks a peer for its newest snapshot: {@code atLeast:8} (the instance it needs). */
    public static final int SNAPSHOT_REQUEST = 3;
    /** One piece of the snapshot file: raw bytes. */
    public static final int SNAPSHOT_CHUNK = 4;
    /** The snapshot file is complete: {@code totalBytes:8}; 0 when the peer has none that recent. */
    public static final int SNAPSHOT_END = 5;
    /** A snapshot request was refused: {@code message:bytes} (UTF-8); the connection stays open. */
    public static final int SNAPSHOT_ERROR = 6;

    /** Reply status codes. */
    public static final int OK = 0;
    public static final int REJECTED = 1;
    public static final int REDIRECT = 2;
    public static final int RETRY_FROM = 3;
    public static final int SESSION_EXPIRED = 4;

    private ClientWire() {
    }

    /** A decoded request. */
    public record Request(long clientId, long sequence, ByteBuffer payload) {
    }

    /** A decoded reply; which fields matter depends on {@code status}. */
    public record Reply(long sequence, int status, ByteBuffer payload, String message, int leader, long next) {
    }

    public static void writeRequest(ByteBuf out, long clientId, long sequence, ByteBuffer payload) {
        Frames.writeHeader(out, REQUEST, 20 + payload.remaining());
        out.writeLong(clientId).writeLong(sequence);
        BodyReader.writeBuffer(out, payload);
    }

    /**
     * @throws BadFrameException if the frame is not a well-formed request
     */
    public static Request readRequest(int type, ByteBuf body, int maxCommandBytes) {
        if (type != REQUEST) {
            throw new BadFrameException("unknown client frame type " + type);
        }
        long client = BodyReader.readLong(body);
        long seq = BodyReader.readLong(body);
        if (seq < 1) {
            throw new BadFrameException("command sequence must be >= 1, got " + seq);
        }
        int len = BodyReader.readInt(body);
        if (len < 0 || len > maxCommandBytes || len != body.readableBytes()) {
            throw new BadFrameException("command length " + len + " (limit " + maxCommandBytes + ", " + body.readableBytes()
                    + " bytes present)");
        }
        byte[] payload = new byte[len];
        body.readBytes(payload);
        return new Request(client, seq, ByteBuffer.wrap(payload));
    }

    public static void writeOk(ByteBuf out, long sequence, ByteBuffer reply) {
        Frames.writeHeader(out, REPLY, 13 + reply.remaining());
        out.writeLong(sequence).writeByte(OK);
        BodyReader.writeBuffer(out, reply);
    }

    public static void writeMessage(ByteBuf out, long sequence, int status, String message) {
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        Frames.writeHeader(out, REPLY, 13 + m.length);
        out.writeLong(sequence).writeByte(status).writeInt(m.length).writeBytes(m);
    }

    public static void writeRedirect(ByteBuf out, long sequence, int leader) {
        Frames.writeHeader(out, REPLY, 13);
        out.writeLong(sequence).writeByte(REDIRECT).writeInt(leader);
    }

    public static void writeRetryFrom(ByteBuf out, long sequence, long next) {
        Frames.writeHeader(out, REPLY, 17);
        out.writeLong(sequence).writeByte(RETRY_FROM).writeLong(next);
    }

    /**
     * @throws BadFrameException if the frame is not a well-formed reply
     */
    public static Reply readReply(int type, ByteBuf body) {
        if (type != REPLY) {
            throw new BadFrameException("unknown client frame type " + type);
        }
        long seq = BodyReader.readLong(body);
        int status = BodyReader.readUnsignedByte(body);
        Reply r = switch (status) {
            case OK -> new Reply(seq, status, BodyReader.readBuffer(body), null, -1, 0);
            case REJECTED, SESSION_EXPIRED -> new Reply(seq, status, null,
                    new String(BodyReader.readBytes(body), StandardCharsets.UTF_8), -1, 0);
            case REDIRECT -> new Reply(seq, status, null, null, BodyReader.readInt(body), 0);
            case RETRY_FROM -> new Reply(seq, status, null, null, -1, BodyReader.readLong(body));
            default -> throw new BadFrameException("unknown reply status " + status);
        };
        BodyReader.end(body);
        return r;
    }
}
