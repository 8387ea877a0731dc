package dev.parallax.core.wire;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The client protocol's frames, shared by the replica's ClientIO and the {@code SmrClient}:
 *
 * <pre>
 * REQUEST       (1): clientId:8 sequence:8 payload:bytes            a command to the default group
 * GROUP_REQUEST (7): clientId:8 sequence:8 groups:8 payload:bytes   a command to another group set
 * REPLY         (2): sequence:8 status:1 then                       about a default-group command
 *              OK:              reply:bytes
 *              REJECTED:        message:bytes (UTF-8)
 *              REDIRECT:        leader:4       (this replica does not lead; ask that one)
 *              RETRY_FROM:      next:8         (a gap: resend every command of the stream from {@code next} in order)
 *              SESSION_EXPIRED: message:bytes
 * GROUP_REPLY   (8): groups:8 then as REPLY                         about a command to another group set
 * QUERY         (9): clientId:8 query:8 payload:bytes               a read-only query, outside the order
 * QUERY_REPLY  (10): query:8 status:1 then
 *              OK:              reply:bytes
 *              REJECTED:        message:bytes (UTF-8)
 *              REDIRECT:        leader:4       (no position now: ask again, that replica or any; -1 none known)
 *              UNSUPPORTED:     (nothing)      (no read path here: order the same bytes as a command)
 * </pre>
 * A query's number is the client's own (any value, unique among its queries in flight on the
 * connection); queries have no session and no order among themselves.
 * {@code bytes} is {@code length:4} followed by the bytes; {@code groups} is a
 * {@link GroupSet#bits()} word, never 0. Sequence numbers count per (client, stream), the stream
 * being the command's group set ({@link CommandId}), so a reply names the stream of the command it
 * answers: a GROUP_REPLY carries the set, a REPLY means the default group. Commands that name no
 * group travel in the frames of before (REQUEST, REPLY), so old clients and old replicas keep
 * understanding them; writers pick GROUP_ frames only for other sets. A REDIRECT concerns the
 * connection, not one command: it may come as a REPLY whatever the request's stream.
 *
 * <p>Stateless and thread-safe.
 */
public final class ClientWire {
    public static final int REQUEST = 1;
    public static final int REPLY = 2;
    /**
     * A replica asks a peer for its newest snapshot: {@code atLeast:8} (the instance it needs), then,
     * from a replica that holds the cluster secret, {@code nonce:16} (a fresh random value the
     * answer's tag must cover).
     */
    public static final int SNAPSHOT_REQUEST = 3;
    /** One piece of the snapshot file: raw bytes. */
    public static final int SNAPSHOT_CHUNK = 4;
    /**
     * The snapshot file is complete: {@code totalBytes:8} (0 when the peer has none that recent),
     * then, answering a request with a nonce, {@code tag:32} (an HMAC-SHA256 under the cluster
     * secret over the nonce, the peer's id, the request and the file; the replica module defines it).
     */
    public static final int SNAPSHOT_END = 5;
    /** A snapshot request was refused: {@code message:bytes} (UTF-8); the connection stays open. */
    public static final int SNAPSHOT_ERROR = 6;
    /** A request for a command to a group set other than the default. */
    public static final int GROUP_REQUEST = 7;
    /** A reply about a command to a group set other than the default. */
    public static final int GROUP_REPLY = 8;
    /** A read-only query (read-index): answered by this replica once its state covers the read. */
    public static final int QUERY = 9;
    /** The answer to a {@link #QUERY}. */
    public static final int QUERY_REPLY = 10;

    /** Reply status codes. */
    public static final int OK = 0;
    public static final int REJECTED = 1;
    public static final int REDIRECT = 2;
    public static final int RETRY_FROM = 3;
    public static final int SESSION_EXPIRED = 4;
    /** Query reply status: no read path here; the client orders the query as a command. */
    public static final int UNSUPPORTED = 5;

    /** Request body bytes besides the payload for a default-group command: client id, sequence, length. */
    private static final int REQUEST_BODY_OVERHEAD = 20;
    private static final int GROUPS_BYTES = 8;

    private ClientWire() {
    }

    /** A decoded request. */
    public record Request(long clientId, GroupSet groups, long sequence, ByteBuffer payload) {
        public Request {
            Objects.requireNonNull(groups, "groups");
        }

        /** A request for a default-group command. */
        public Request(long clientId, long sequence, ByteBuffer payload) {
            this(clientId, GroupSet.DEFAULT, sequence, payload);
        }

        /** The command's identity. */
        public CommandId id() {
            return new CommandId(clientId, groups, sequence);
        }
    }

    /**
     * A decoded reply; which fields matter depends on {@code status}. {@code groups} and
     * {@code sequence} name the command (its stream and its number in it).
     */
    public record Reply(GroupSet groups, long sequence, int status, ByteBuffer payload, String message, int leader,
                        long next) {
        public Reply {
            Objects.requireNonNull(groups, "groups");
        }
    }

    /** A decoded query. */
    public record Query(long clientId, long query, ByteBuffer payload) {
    }

    /**
     * A decoded query reply: {@code payload} for OK, {@code message} for REJECTED, {@code leader}
     * for REDIRECT.
     */
    public record QueryReply(long query, int status, ByteBuffer payload, String message, int leader) {
    }

    /** Writes query {@code query} of client {@code clientId}. */
    public static void writeQuery(ByteBuf out, long clientId, long query, ByteBuffer payload) {
        Frames.writeHeader(out, QUERY, REQUEST_BODY_OVERHEAD + payload.remaining());
        out.writeLong(clientId).writeLong(query);
        BodyReader.writeBuffer(out, payload);
    }

    /**
     * Reads a QUERY body.
     *
     * @throws BadFrameException if the frame is not a well-formed query
     */
    public static Query readQuery(ByteBuf body, int maxCommandBytes) {
        long client = BodyReader.readLong(body);
        long query = BodyReader.readLong(body);
        int len = BodyReader.readInt(body);
        if (len < 0 || len > maxCommandBytes || len != body.readableBytes()) {
            throw new BadFrameException("query length " + len + " (limit " + maxCommandBytes + ", " + body.readableBytes()
                    + " bytes present)");
        }
        byte[] payload = new byte[len];
        body.readBytes(payload);
        return new Query(client, query, ByteBuffer.wrap(payload));
    }

    /** An OK answer to query {@code query}. */
    public static void writeQueryOk(ByteBuf out, long query, ByteBuffer reply) {
        Frames.writeHeader(out, QUERY_REPLY, 9 + 4 + reply.remaining());
        out.writeLong(query).writeByte(OK);
        BodyReader.writeBuffer(out, reply);
    }

    /** A REJECTED answer to query {@code query}. */
    public static void writeQueryRejected(ByteBuf out, long query, String message) {
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        Frames.writeHeader(out, QUERY_REPLY, 9 + 4 + m.length);
        out.writeLong(query).writeByte(REJECTED).writeInt(m.length).writeBytes(m);
    }

    /** A REDIRECT answer: no position now; ask again ({@code leader} or any replica; -1 none known). */
    public static void writeQueryRedirect(ByteBuf out, long query, int leader) {
        Frames.writeHeader(out, QUERY_REPLY, 9 + 4);
        out.writeLong(query).writeByte(REDIRECT).writeInt(leader);
    }

    /** An UNSUPPORTED answer: order the query as a command. */
    public static void writeQueryUnsupported(ByteBuf out, long query) {
        Frames.writeHeader(out, QUERY_REPLY, 9);
        out.writeLong(query).writeByte(UNSUPPORTED);
    }

    /**
     * Reads a QUERY_REPLY body.
     *
     * @throws BadFrameException if the frame is not a well-formed query reply
     */
    public static QueryReply readQueryReply(ByteBuf body) {
        long query = BodyReader.readLong(body);
        int status = BodyReader.readUnsignedByte(body);
        QueryReply r = switch (status) {
            case OK -> new QueryReply(query, status, BodyReader.readBuffer(body), null, -1);
            case REJECTED -> new QueryReply(query, status, null, new String(BodyReader.readBytes(body), StandardCharsets.UTF_8), -1);
            case REDIRECT -> new QueryReply(query, status, null, null, BodyReader.readInt(body));
            case UNSUPPORTED -> new QueryReply(query, status, null, null, -1);
            default -> throw new BadFrameException("unknown query reply status " + status);
        };
        BodyReader.end(body);
        return r;
    }

    /** Bytes a request for a command to {@code groups} takes besides its payload, frame header included. */
    public static int requestOverhead(GroupSet groups) {
        return Frames.HEADER + REQUEST_BODY_OVERHEAD + (groups.isDefault() ? 0 : GROUPS_BYTES);
    }

    /** Writes a request for the default-group command {@code clientId:sequence}. */
    public static void writeRequest(ByteBuf out, long clientId, long sequence, ByteBuffer payload) {
        writeRequest(out, new CommandId(clientId, sequence), payload);
    }

    /** Writes a request for command {@code id}: a REQUEST in the default group, else a GROUP_REQUEST. */
    public static void writeRequest(ByteBuf out, CommandId id, ByteBuffer payload) {
        if (id.groups().isDefault()) {
            Frames.writeHeader(out, REQUEST, REQUEST_BODY_OVERHEAD + payload.remaining());
            out.writeLong(id.clientId()).writeLong(id.sequence());
        } else {
            Frames.writeHeader(out, GROUP_REQUEST, REQUEST_BODY_OVERHEAD + GROUPS_BYTES + payload.remaining());
            out.writeLong(id.clientId()).writeLong(id.sequence()).writeLong(id.groups().bits());
        }
        BodyReader.writeBuffer(out, payload);
    }

    /**
     * Reads a REQUEST or GROUP_REQUEST body.
     *
     * @throws BadFrameException if the frame is not a well-formed request
     */
    public static Request readRequest(int type, ByteBuf body, int maxCommandBytes) {
        if (type != REQUEST && type != GROUP_REQUEST) {
            throw new BadFrameException("unknown client frame type " + type);
        }
        long client = BodyReader.readLong(body);
        long seq = BodyReader.readLong(body);
        if (seq < 1) {
            throw new BadFrameException("command sequence must be >= 1, got " + seq);
        }
        GroupSet groups = type == REQUEST ? GroupSet.DEFAULT : readGroups(body);
        int len = BodyReader.readInt(body);
        if (len < 0 || len > maxCommandBytes || len != body.readableBytes()) {
            throw new BadFrameException("command length " + len + " (limit " + maxCommandBytes + ", " + body.readableBytes()
                    + " bytes present)");
        }
        byte[] payload = new byte[len];
        body.readBytes(payload);
        return new Request(client, groups, seq, ByteBuffer.wrap(payload));
    }

    public static void writeOk(ByteBuf out, long sequence, ByteBuffer reply) {
        writeOk(out, new CommandId(0, sequence), reply);
    }

    /** An OK reply to command {@code id} (only its stream and sequence are written). */
    public static void writeOk(ByteBuf out, CommandId id, ByteBuffer reply) {
        replyHeader(out, id, OK, 4 + reply.remaining());
        BodyReader.writeBuffer(out, reply);
    }

    public static void writeMessage(ByteBuf out, long sequence, int status, String message) {
        writeMessage(out, new CommandId(0, sequence), status, message);
    }

    /** A REJECTED or SESSION_EXPIRED reply to command {@code id}. */
    public static void writeMessage(ByteBuf out, CommandId id, int status, String message) {
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        replyHeader(out, id, status, 4 + m.length);
        out.writeInt(m.length).writeBytes(m);
    }

    public static void writeRedirect(ByteBuf out, long sequence, int leader) {
        replyHeader(out, new CommandId(0, sequence), REDIRECT, 4);
        out.writeInt(leader);
    }

    public static void writeRetryFrom(ByteBuf out, long sequence, long next) {
        writeRetryFrom(out, new CommandId(0, sequence), next);
    }

    /** A gap in the stream of command {@code id}: the client resends that stream from {@code next}. */
    public static void writeRetryFrom(ByteBuf out, CommandId id, long next) {
        replyHeader(out, id, RETRY_FROM, 8);
        out.writeLong(next);
    }

    private static void replyHeader(ByteBuf out, CommandId id, int status, int restBytes) {
        if (id.groups().isDefault()) {
            Frames.writeHeader(out, REPLY, 9 + restBytes);
        } else {
            Frames.writeHeader(out, GROUP_REPLY, GROUPS_BYTES + 9 + restBytes);
            out.writeLong(id.groups().bits());
        }
        out.writeLong(id.sequence()).writeByte(status);
    }

    /**
     * Reads a REPLY or GROUP_REPLY body.
     *
     * @throws BadFrameException if the frame is not a well-formed reply
     */
    public static Reply readReply(int type, ByteBuf body) {
        if (type != REPLY && type != GROUP_REPLY) {
            throw new BadFrameException("unknown client frame type " + type);
        }
        GroupSet groups = type == REPLY ? GroupSet.DEFAULT : readGroups(body);
        long seq = BodyReader.readLong(body);
        int status = BodyReader.readUnsignedByte(body);
        Reply r = switch (status) {
            case OK -> new Reply(groups, seq, status, BodyReader.readBuffer(body), null, -1, 0);
            case REJECTED, SESSION_EXPIRED -> new Reply(groups, seq, status, null,
                    new String(BodyReader.readBytes(body), StandardCharsets.UTF_8), -1, 0);
            case REDIRECT -> new Reply(groups, seq, status, null, null, BodyReader.readInt(body), 0);
            case RETRY_FROM -> new Reply(groups, seq, status, null, null, -1, BodyReader.readLong(body));
            default -> throw new BadFrameException("unknown reply status " + status);
        };
        BodyReader.end(body);
        return r;
    }

    private static GroupSet readGroups(ByteBuf body) {
        long bits = BodyReader.readLong(body);
        if (bits == 0) {
            throw new BadFrameException("a command's group set is empty");
        }
        return GroupSet.ofBits(bits);
    }
}
