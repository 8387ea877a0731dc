package dev.parallax.bench.systems.jgroupsraft;

import dev.parallax.bench.systems.framed.FramedServer;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The reply frame of the jgroups-raft front end: a status byte, then the state machine's reply
 * ({@link #OK}) or a UTF-8 error message ({@link #ERROR}). The framed protocol has no error frame
 * of its own, and without a status a failed command would arrive as an ordinary reply. Stateless.
 */
public final class RaftReply {
    /** Status of a committed command; the state machine's reply follows. */
    public static final byte OK = 0;
    /** Status of a failed command; a UTF-8 message follows. */
    public static final byte ERROR = 1;

    private RaftReply() {
    }

    /** Encodes a successful reply ({@code null}: none) into a buffer of {@code connection}'s allocator. */
    public static ByteBuf ok(byte[] reply, FramedServer.Replies connection) {
        int length = reply == null ? 0 : reply.length;
        ByteBuf b = connection.allocate(1 + length).writeByte(OK);
        return reply == null ? b : b.writeBytes(reply);
    }

    /** Encodes a failure into a buffer of {@code connection}'s allocator. */
    public static ByteBuf error(Throwable cause, FramedServer.Replies connection) {
        byte[] message = String.valueOf(cause).getBytes(StandardCharsets.UTF_8);
        return connection.allocate(1 + message.length).writeByte(ERROR).writeBytes(message);
    }

    /**
     * Decodes a reply frame: the state machine's reply (position past the status byte).
     *
     * @throws RaftCommandFailedException if the frame reports a failure, or is malformed
     */
    public static ByteBuffer decode(ByteBuffer frame) {
        if (!frame.hasRemaining()) {
            throw new RaftCommandFailedException("empty reply frame");
        }
        byte status = frame.get();
        if (status == OK) {
            return frame;
        }
        throw new RaftCommandFailedException(status == ERROR
                ? StandardCharsets.UTF_8.decode(frame).toString() : "unknown reply status " + status);
    }
}
