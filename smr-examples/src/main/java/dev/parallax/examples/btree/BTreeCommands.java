package dev.parallax.examples.btree;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The command and reply format of {@link BTreeStore}. Commands start with an operation code and a
 * big-endian key:
 * <ul>
 *   <li>{@code GET key} → {@code 1 value} or {@code 0};</li>
 *   <li>{@code INSERT key value} (adds if absent), {@code UPDATE key value} (replaces if present),
 *       {@code DELETE key} → {@code 1} if the store changed, else {@code 0};</li>
 *   <li>{@code RANGE from to limit} → {@code count}, then {@code key, length, value} per entry with
 *       {@code from <= key < to}, in key order, at most {@code limit}.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class BTreeCommands {
    /** Operation code: read one key. */
    public static final byte GET = 1;
    /** Operation code: add a key unless present. */
    public static final byte INSERT = 2;
    /** Operation code: replace a present key's value. */
    public static final byte UPDATE = 3;
    /** Operation code: remove a key. */
    public static final byte DELETE = 4;
    /** Operation code: read the entries of a key range. */
    public static final byte RANGE = 5;

    private BTreeCommands() {
    }

    /** A GET of {@code key}. */
    public static Command get(CommandId id, long key) {
        return new Command(id, ByteBuffer.allocate(9).put(GET).putLong(key).flip());
    }

    /** An INSERT of {@code key} with {@code value} (copied). */
    public static Command insert(CommandId id, long key, byte[] value) {
        return new Command(id, ByteBuffer.allocate(9 + value.length).put(INSERT).putLong(key).put(value).flip());
    }

    /** An UPDATE of {@code key} to {@code value} (copied). */
    public static Command update(CommandId id, long key, byte[] value) {
        return new Command(id, ByteBuffer.allocate(9 + value.length).put(UPDATE).putLong(key).put(value).flip());
    }

    /** A DELETE of {@code key}. */
    public static Command delete(CommandId id, long key) {
        return new Command(id, ByteBuffer.allocate(9).put(DELETE).putLong(key).flip());
    }

    /** A RANGE over {@code from <= key < to}, at most {@code limit} entries. */
    public static Command range(CommandId id, long from, long to, int limit) {
        return new Command(id, ByteBuffer.allocate(21).put(RANGE).putLong(from).putLong(to).putInt(limit).flip());
    }

    /** Whether a GET found its key, or an INSERT/UPDATE/DELETE changed the store. */
    public static boolean isTrue(ByteBuffer reply) {
        return reply.remaining() >= 1 && reply.get(reply.position()) == 1;
    }

    /** The value in a GET reply, or {@code null} if the key was absent. */
    public static byte[] value(ByteBuffer reply) {
        ByteBuffer r = reply.duplicate();
        if (r.get() == 0) {
            return null;
        }
        byte[] v = new byte[r.remaining()];
        r.get(v);
        return v;
    }

    /** The entries of a RANGE reply. */
    public static List<Map.Entry<Long, byte[]>> entries(ByteBuffer reply) {
        ByteBuffer r = reply.duplicate();
        int n = r.getInt();
        List<Map.Entry<Long, byte[]>> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long k = r.getLong();
            byte[] v = new byte[r.getInt()];
            r.get(v);
            out.add(Map.entry(k, v));
        }
        return out;
    }
}
