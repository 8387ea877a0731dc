package dev.parallax.core.batch;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The byte form of a batch of commands, which is what ordering protocols agree on. Big-endian:
 *
 * <pre>
 * batch   := count:4 command{count}
 * command := clientId:8 seqword:8 length:4 [groups:8] payload:length
 * seqword := bit 63 G ("groups follow") | bits 62..0 the sequence number
 * </pre>
 *
 * <p>A command to the {@link GroupSet#DEFAULT default group} has G clear and no {@code groups}
 * field: 20 bytes besides its payload ({@link #COMMAND_OVERHEAD}). A command to any other set has
 * G set and its set's bits in {@code groups} ({@link #GROUPS_BYTES} more).
 *
 * <p><b>Format marker and old batches.</b> Batches written before commands carried destinations
 * ({@code count:4} then per command {@code clientId:8 sequence:8 length:4 payload}) may sit in
 * durable logs and snapshots. Their writer never set G (sequences are never negative) and their
 * reader refused a negative sequence word, so G is the marker: old bytes decode as default-group
 * commands, and a batch of default-group commands is encoded byte for byte as before (logs, golden
 * traces and sizes of single-group deployments are unchanged).
 *
 * <p>Malformed bytes (a count, length or group field that does not fit the bytes present, an
 * empty group set, trailing bytes) raise {@link IllegalArgumentException} naming the fault.
 *
 * <p>Stateless and thread-safe.
 */
public final class CommandBatch {
    /** Bytes a default-group command adds to a batch besides its payload. */
    public static final int COMMAND_OVERHEAD = 20;
    /** Bytes a command to another group set adds besides {@link #COMMAND_OVERHEAD} and its payload. */
    public static final int GROUPS_BYTES = 8;
    /** Bytes of the batch header. */
    public static final int HEADER = 4;

    private static final long GROUPS_FOLLOW = Long.MIN_VALUE;

    private CommandBatch() {
    }

    /** Size of a batch holding default-group commands whose payloads total {@code payloadBytes}. */
    public static int encodedSize(int commands, long payloadBytes) {
        return encodedSize(commands, 0, payloadBytes);
    }

    /**
     * Size of a batch of {@code commands} commands of which {@code grouped} name a set other than the
     * default group, whose payloads total {@code payloadBytes}.
     *
     * @throws IllegalArgumentException if that is more than a batch can hold (2 GiB)
     */
    public static int encodedSize(int commands, int grouped, long payloadBytes) {
        long size = HEADER + (long) commands * COMMAND_OVERHEAD + (long) grouped * GROUPS_BYTES + payloadBytes;
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("batch too large: " + size + " bytes");
        }
        return (int) size;
    }

    /** Bytes {@code command} adds to a batch, payload included. */
    public static int commandBytes(Command command) {
        return COMMAND_OVERHEAD + (command.groups().isDefault() ? 0 : GROUPS_BYTES) + command.size();
    }

    /** Encodes {@code commands} into a new buffer positioned at 0. */
    public static ByteBuffer encode(List<Command> commands) {
        long payload = 0;
        int grouped = 0;
        for (Command c : commands) {
            payload += c.size();
            grouped += c.groups().isDefault() ? 0 : 1;
        }
        ByteBuffer out = ByteBuffer.allocate(encodedSize(commands.size(), grouped, payload));
        out.putInt(commands.size());
        for (Command c : commands) {
            CommandId id = c.id();
            out.putLong(id.clientId());
            if (id.groups().isDefault()) {
                out.putLong(id.sequence()).putInt(c.size());
            } else {
                out.putLong(id.sequence() | GROUPS_FOLLOW).putInt(c.size()).putLong(id.groups().bits());
            }
            out.put(c.payload());
        }
        return out.flip();
    }

    /**
     * One batch holding every command of {@code batches}, in order (S-Paxos delivers the bodies an
     * ordering instance names as one batch, seed 002 (S-Paxos) §IV-A, Alg. 1 l.19–22): the count is
     * the sum of the counts and each batch's command section is copied once. A single batch is
     * returned as is; no batch gives an empty batch. Each batch is checked to be well formed first
     * (without decoding its commands), so a malformed one cannot corrupt its neighbours.
     *
     * @throws IllegalArgumentException if a batch is malformed (naming its index) or the result
     *                                  would exceed 2 GiB
     */
    public static ByteBuffer concat(List<ByteBuffer> batches) {
        long count = 0;
        long size = HEADER;
        for (int i = 0; i < batches.size(); i++) {
            ByteBuffer b = batches.get(i);
            try {
                count += checkWellFormed(b);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("batch " + i + " of " + batches.size() + ": " + e.getMessage(), e);
            }
            size += b.remaining() - HEADER;
        }
        if (batches.size() == 1) {
            return batches.get(0);
        }
        if (size > Integer.MAX_VALUE || count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("concatenated batch too large: " + size + " bytes, " + count + " commands");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size);
        out.putInt((int) count);
        for (ByteBuffer b : batches) {
            out.put(b.duplicate().position(b.position() + HEADER));
        }
        return out.flip();
    }

    /** Walks a batch's structure without decoding it; returns its command count. */
    private static int checkWellFormed(ByteBuffer batch) {
        ByteBuffer b = batch.duplicate();
        if (b.remaining() < HEADER) {
            throw new IllegalArgumentException("batch shorter than its header: " + b.remaining() + " bytes");
        }
        int count = b.getInt();
        if (count < 0 || (long) count * COMMAND_OVERHEAD > b.remaining()) {
            throw new IllegalArgumentException("batch claims " + count + " commands in " + b.remaining() + " bytes");
        }
        for (int i = 0; i < count; i++) {
            if (b.remaining() < COMMAND_OVERHEAD) {
                throw new IllegalArgumentException("command " + i + " of " + count + " is truncated");
            }
            b.position(b.position() + 8);
            long seqword = b.getLong();
            int len = b.getInt();
            if ((seqword & GROUPS_FOLLOW) != 0) {
                if (b.remaining() < GROUPS_BYTES || b.getLong() == 0) {
                    throw new IllegalArgumentException("command " + i + " of " + count + " has a bad group set");
                }
            }
            if (len < 0 || len > b.remaining()) {
                throw new IllegalArgumentException("command " + i + " of " + count + " has bad length " + len);
            }
            b.position(b.position() + len);
        }
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " trailing bytes after " + count + " commands");
        }
        return count;
    }

    /**
     * Decodes a batch, old format included (see the class comment). The commands' payloads are
     * views into {@code batch} (no copy).
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
            long seqword = b.getLong();
            long seq = seqword & ~GROUPS_FOLLOW;
            int len = b.getInt();
            GroupSet groups = GroupSet.DEFAULT;
            if ((seqword & GROUPS_FOLLOW) != 0) {
                if (b.remaining() < GROUPS_BYTES) {
                    throw new IllegalArgumentException("command " + i + " of " + count + " is truncated in its group set");
                }
                long bits = b.getLong();
                if (bits == 0) {
                    throw new IllegalArgumentException("command " + i + " of " + count + " names an empty group set");
                }
                groups = GroupSet.ofBits(bits);
            }
            if (len < 0 || len > b.remaining()) {
                throw new IllegalArgumentException("command " + i + " of " + count + " has bad length " + len + " ("
                        + b.remaining() + " bytes left)");
            }
            ByteBuffer payload = b.slice(b.position(), len);
            b.position(b.position() + len);
            out.add(new Command(new CommandId(client, groups, seq), payload));
        }
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " trailing bytes after " + count + " commands");
        }
        return out;
    }
}
