package dev.parallax.examples.kv;

import dev.parallax.core.SnapshotCapture;
import dev.parallax.core.StateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;

/**
 * A hash map of binary-safe keys to binary-safe values, executing {@link KvCommand}s and replying
 * in the {@link KvReply} format: the service behind the Redis-compatible front end.
 *
 * <p><b>Determinism.</b> Replies and state depend only on the state and the command; snapshots list
 * entries in key order, so two instances that executed the same commands write identical bytes.
 *
 * <p><b>Errors.</b> Malformed command bytes throw {@link IllegalArgumentException}; a well-formed
 * command the state does not allow (INCR on a non-integer or at the maximum) throws {@link
 * KvCommandException} with a Redis error text. Every check runs before the first change, so a
 * rejected command leaves the state unchanged.
 *
 * <p><b>Snapshots: copy-on-write.</b> {@link #capture} freezes the entries in O(1) (see
 * {@link FreezableMap}: later changes go to an overlay until the snapshot is written) and the
 * returned capture sorts and serializes them on the replica's snapshot writer thread, so the
 * executing thread spends neither the sort nor the encoding nor a copy of the values on a
 * snapshot; the capture holds only the changes made while it is written.
 *
 * <p><b>Threads.</b> Not thread-safe: writes conflict with every other command on the one map, so
 * it is meant for the sequential executor, which calls all methods from one thread (reads may run
 * concurrently with each other, see {@code KvClassifier}). Nothing blocks except snapshot and
 * restore, which do blocking IO on the channels they are given. A capture is written and closed
 * on another thread, concurrently with later commands. Only {@link #digest()} may be called from
 * any thread.
 */
public final class KvStateMachine implements StateMachine {
    static final String NOT_AN_INTEGER = "ERR value is not an integer or out of range";
    static final String OVERFLOW = "ERR increment or decrement would overflow";

    /** Keeps {@link #digest()} exact when a metrics endpoint exports it as a double. */
    private static final long DIGEST_MASK = (1L << 52) - 1;

    private final FreezableMap map = new FreezableMap();
    /** Sum (mod 2^64) of {@link #entryHash} over the entries; written by the executor thread only. */
    private volatile long entrySum;

    /** Creates an empty store. */
    public KvStateMachine() {
    }

    /**
     * Executes one encoded {@link KvCommand}.
     *
     * @throws IllegalArgumentException if the bytes are not a well-formed command
     * @throws KvCommandException       if the command is well formed but not allowed on the state
     */
    @Override
    public ByteBuffer execute(ByteBuffer command) {
        KvCommand decoded = KvCommand.decode(command);
        byte[][] a = decoded.rawArgs();
        switch (decoded.op()) {
            case GET:
                return KvReplyFormat.bulkOrNil(map.get(new ByteKey(a[0])));
            case SET:
                put(new ByteKey(a[0]), a[1]);
                return KvReplyFormat.ok();
            case SET_IF_ABSENT: {
                ByteKey key = new ByteKey(a[0]);
                if (map.get(key) != null) {
                    return KvReplyFormat.nil();
                }
                map.put(key, a[1]);
                changeDigest(entryHash(key, a[1]));
                return KvReplyFormat.ok();
            }
            case SET_IF_PRESENT: {
                ByteKey key = new ByteKey(a[0]);
                if (map.get(key) == null) {
                    return KvReplyFormat.nil();
                }
                byte[] old = map.put(key, a[1]);
                changeDigest(entryHash(key, a[1]) - entryHash(key, old));
                return KvReplyFormat.ok();
            }
            case DEL:
                return KvReplyFormat.integer(delete(a));
            case EXISTS:
                return KvReplyFormat.integer(countExisting(a));
            case INCR:
                return KvReplyFormat.integer(increment(new ByteKey(a[0])));
            case MGET:
                return multiGet(a);
            case MSET:
                for (int i = 0; i < a.length; i += 2) {
                    put(new ByteKey(a[i]), a[i + 1]);
                }
                return KvReplyFormat.ok();
            case DBSIZE:
                return KvReplyFormat.integer(map.size());
            case FLUSHALL:
                map.replaceAll(new HashMap<>()); // an open snapshot view keeps its own table
                entrySum = 0; // the digest of an empty store
                return KvReplyFormat.ok();
            default:
                throw new IllegalArgumentException("malformed KV command: op " + decoded.op() + " not executable");
        }
    }

    private long delete(byte[][] keys) {
        long removed = 0;
        for (byte[] key : keys) {
            ByteKey k = new ByteKey(key);
            byte[] old = map.remove(k);
            if (old != null) {
                changeDigest(-entryHash(k, old));
                removed++;
            }
        }
        return removed;
    }

    private long countExisting(byte[][] keys) {
        long count = 0;
        for (byte[] key : keys) {
            if (map.get(new ByteKey(key)) != null) {
                count++;
            }
        }
        return count;
    }

    private long increment(ByteKey key) {
        byte[] old = map.get(key);
        long value = 0;
        if (old != null) {
            try {
                value = RedisIntegers.parse(old);
            } catch (NumberFormatException e) {
                throw new KvCommandException(NOT_AN_INTEGER);
            }
        }
        if (value == Long.MAX_VALUE) {
            throw new KvCommandException(OVERFLOW);
        }
        value++;
        put(key, Long.toString(value).getBytes(StandardCharsets.US_ASCII));
        return value;
    }

    private void put(ByteKey key, byte[] value) {
        byte[] old = map.put(key, value);
        changeDigest(entryHash(key, value) - (old == null ? 0 : entryHash(key, old)));
    }

    private void changeDigest(long delta) {
        entrySum += delta; // single writer: the read-modify-write cannot race
    }

    /** Murmur3's 64-bit finalizer over the key's and the value's content hashes. */
    private static long entryHash(ByteKey key, byte[] value) {
        long h = ((long) key.hashCode() << 32) ^ (Arrays.hashCode(value) & 0xFFFF_FFFFL);
        h ^= h >>> 33;
        h *= 0xFF51_AFD7_ED55_8CCDL;
        h ^= h >>> 33;
        h *= 0xC4CE_B9FE_1A85_EC53L;
        return h ^ (h >>> 33);
    }

    private ByteBuffer multiGet(byte[][] keys) {
        byte[][] values = new byte[keys.length][];
        long size = 1 + Integer.BYTES;
        for (int i = 0; i < keys.length; i++) {
            values[i] = map.get(new ByteKey(keys[i]));
            size += KvReplyFormat.bulkSize(values[i]);
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new KvCommandException("ERR MGET reply of " + size + " bytes is too large");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size).put(KvReplyFormat.ARRAY).putInt(keys.length);
        for (byte[] value : values) {
            KvReplyFormat.putBulkOrNil(out, value);
        }
        return out.flip();
    }

    /**
     * Writes every entry, in key order, in the {@link KvSnapshotFormat} layout.
     *
     * @throws IOException if the channel fails
     */
    @Override
    public void snapshot(WritableByteChannel out) throws IOException {
        KvSnapshotFormat.write(map.current(), out);
    }

    /**
     * Freezes the entries in O(1) and returns a capture that writes them as {@link #snapshot}
     * would have at this point, in key order; it may run on another thread while commands execute.
     * Closing it lets the store fold the changes made meanwhile back into one table.
     */
    @Override
    public SnapshotCapture capture() {
        FreezableMap.Frozen frozen = map.freeze();
        return new SnapshotCapture() {
            @Override
            public void writeTo(WritableByteChannel out) throws IOException {
                KvSnapshotFormat.write(frozen.entries(), out);
            }

            @Override
            public void close() {
                frozen.release();
            }
        };
    }

    /**
     * Replaces the whole state with a snapshot's. The snapshot is read completely before the state
     * is replaced, so a failed restore leaves the old state in place.
     *
     * @throws IOException if the channel fails or the data is not a well-formed snapshot
     */
    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        HashMap<ByteKey, byte[]> restored = KvSnapshotFormat.read(in);
        long sum = 0;
        for (var e : restored.entrySet()) {
            sum += entryHash(e.getKey(), e.getValue());
        }
        map.replaceAll(restored);
        entrySum = 0;
        changeDigest(sum);
    }

    /**
     * An order-independent 52-bit digest of the contents (the sum of a 64-bit hash of each key and
     * value), kept up to date by every change: two stores with the same entries have the same
     * digest, whatever commands or snapshot produced them. 52 bits so that a metrics gauge (a
     * double) carries it exactly. Safe to call from any thread; it reflects the commands executed
     * so far.
     */
    public long digest() {
        return entrySum & DIGEST_MASK;
    }

    /** The number of keys. */
    int size() {
        return map.size();
    }

    /** The value stored under {@code key} (not copied), or null. */
    byte[] valueOf(byte[] key) {
        return map.get(new ByteKey(key));
    }
}
