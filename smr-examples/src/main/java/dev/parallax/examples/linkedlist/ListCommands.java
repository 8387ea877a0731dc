package dev.parallax.examples.linkedlist;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;

import java.nio.ByteBuffer;

/**
 * The command format of {@link ShardedLinkedList}: nine bytes, an operation code, the shard
 * (ignored by global operations) and the value. Replies are one byte: 1 if the value was found
 * (reads) or added (writes), 0 otherwise.
 *
 * <p>Stateless and thread-safe.
 */
public final class ListCommands {
    /** Is the value in shard {@code s}? */
    public static final byte LOCAL_READ = 0;
    /** Add the value to shard {@code s} unless it is there. */
    public static final byte LOCAL_WRITE = 1;
    /** Is the value in every shard? */
    public static final byte GLOBAL_READ = 2;
    /** Add the value to every shard that lacks it. */
    public static final byte GLOBAL_WRITE = 3;

    static final int SIZE = 9;

    private ListCommands() {
    }

    /** The payload of an operation. @throws IllegalArgumentException for an unknown operation */
    public static byte[] encode(byte op, int shard, int value) {
        if (op < LOCAL_READ || op > GLOBAL_WRITE) {
            throw new IllegalArgumentException("unknown operation " + op);
        }
        return ByteBuffer.allocate(SIZE).put(op).putInt(shard).putInt(value).array();
    }

    /** A command with the given identity and operation. */
    public static Command command(long clientId, long sequence, byte op, int shard, int value) {
        return new Command(new CommandId(clientId, sequence), ByteBuffer.wrap(encode(op, shard, value)));
    }

    /** Whether a reply says "found" or "added". */
    public static boolean isTrue(ByteBuffer reply) {
        return reply.remaining() == 1 && reply.get(reply.position()) == 1;
    }

    static byte op(ByteBuffer payload) {
        return payload.get(payload.position());
    }

    static int shard(ByteBuffer payload) {
        return payload.getInt(payload.position() + 1);
    }

    static int value(ByteBuffer payload) {
        return payload.getInt(payload.position() + 5);
    }
}
