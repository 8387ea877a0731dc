package dev.parallax.core.batch;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The byte form of a batch of commands, which is what ordering protocols agree on:
 * {@code count:4} then per command {@code clientId:8 sequence:8 length:4 payload}. Big-endian.
 *
 * <p>Stateless and thread-safe.
 */
public final class CommandBatch {
    /** Bytes a command adds to a batch besides its payload. */
    public static final int COMMAND_OVERHEAD = 20;
    /** Bytes of the batch header. */
    public static final int HEADER = 4;

    private CommandBatch() {
    }

    /** Size of a batch holding commands whose payloads total {@code payloadBytes}. */
    public static int encodedSize(int commands, long payloadBytes) {
        long size = HEADER + (long) commands * COMMAND_OVERHEAD + payloadBytes;
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("batch too large: " + size + " bytes");
        }
        return (int) size;
    }

    /** Encodes {@code commands} into a new buffer positioned at 0. */
    public static ByteBuffer encode(List<Command> commands) {
        long payload = 0;
        for (Command c : commands) {
            payload += c.size();
        }
        ByteBuffer out = ByteBuffer.allocate(encodedSize(commands.size(), payload));
        out.putInt(commands.size());
        for (Command c : commands) {
            out.putLong(c.id().clientId()).putLong(c.id().sequence()).putInt(c.size()).put(c.payload());
        }
        return out.flip();
    }

    /**
     * Decodes a batch. The commands' payloads are views into {@code batch} (no copy).
     *
     * @throws IllegalArgumentException if the bytes are not a well-formed batch
     */
    public static List<Command> decode(ByteBuffer batch) {
        ByteBuffer b = batch.duplicate();
        if (b.remaining() < HEADER) {
            throw new IllegalArgumentException("batch shorter than its header: " + b.remaining() + " bytes");
        }
        int count = b.getInt();
        if (count < 0 || (long) count * COMMAND_OVERHEAD > b.remaining()) {
            throw new IllegalArgumentException("batch claims " + count + " commands in " + b.remaining() + " bytes");
        }
        List<Command> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (b.remaining() < COMMAND_OVERHEAD) {
                throw new IllegalArgumentException("command " + i + " of " + count + " is truncated");
            }
            long client = b.getLong();
            long seq = b.getLong();
            int len = b.getInt();
            if (len < 0 || len > b.remaining() || seq < 0) {
                throw new IllegalArgumentException("command " + i + " of " + count + " has bad length " + len
                        + " or sequence " + seq);
            }
            ByteBuffer payload = b.slice(b.position(), len);
            b.position(b.position() + len);
            out.add(new Command(new CommandId(client, seq), payload));
        }
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " trailing bytes after " + count + " commands");
        }
        return out;
    }
}
