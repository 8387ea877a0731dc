package dev.parallax.examples.kv;

import dev.parallax.core.SnapshotCapture;
import dev.parallax.core.SpeculativeStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * <p><b>Partitions (P-SMR).</b> {@link #KvStateMachine(int) new KvStateMachine(k)} splits the
 * entries into k partitions, key {@code key} in partition {@link KvRouter#groupOf new
 * KvRouter(k).groupOf(key)}; each partition has its own map and its own digest sum. Replies,
 * {@link #digest()} and snapshot bytes do not depend on k: a snapshot written with one partition
 * count restores into another. DBSIZE sums the partitions' sizes, FLUSHALL clears every partition,
 * the other commands touch only the partitions of their keys.
 *
 * <p><b>Threads.</b> Two {@link #execute} calls may run concurrently when the sets of partitions
 * their commands touch (the groups {@link KvRouter#route new KvRouter(k).route} gives them, every
 * partition for DBSIZE and FLUSHALL) are disjoint; calls whose sets intersect must be ordered by a
 * happens-before edge. This is what P-SMR ({@code Execution.psmr(k)}, seed 003 (Ring Paxos /
 * Multi-Ring / P-SMR) ch. 6, Alg. 1) guarantees with the C-G {@code KvRouter(k)} and k partitions:
 * a command runs on the workers of its groups, commands that share a group are never concurrent,
 * and a multi-group command runs while all its workers are synchronised. With one partition (the
 * no-argument constructor) every command touches the one partition, so execution must be
 * sequential, as for the sequential executor (reads may still run concurrently with each other,
 * see {@code KvClassifier}). {@link #snapshot}, {@link #capture} and {@link #restore} must run
 * while no command executes (at quiescence), on a thread ordered after the last command; a
 * capture is then written and closed on another thread, concurrently with later commands. Only
 * {@link #digest()} may be called from any thread at any time (it sums the partitions' digests, so
 * while commands run it may mix partitions at different points). Nothing blocks except snapshot
 * and restore, which do blocking IO on the channels they are given.
 *
 * <p><b>Speculative execution</b> ({@link SpeculativeStateMachine}; M-Ring with
 * {@code mring.speculation=on}, seed 003 (Marandi thesis) §4.2.1): {@link #executeSpeculatively}
 * runs the command as {@link #execute} does and returns a physical undo, the previous values of the
 * keys it writes (FLUSHALL: a copy of every partition's table); a read-only command's undo does
 * nothing. Undos restore the digest with the entries.
 */
public final class KvStateMachine implements SpeculativeStateMachine {
    static final String NOT_AN_INTEGER = "ERR value is not an integer or out of range";
    static final String OVERFLOW = "ERR increment or decrement would overflow";

    /** Keeps {@link #digest()} exact when a metrics endpoint exports it as a double. */
    private static final long DIGEST_MASK = (1L << 52) - 1;

    /** Key to partition; null for one partition. */
    private final KvRouter router;
    private final Partition[] partitions;

    /** One partition's entries and digest; written by one thread at a time (see the class comment). */
    private static final class Partition {
        final FreezableMap map = new FreezableMap();
        /** Sum (mod 2^64) of {@link #entryHash} over the partition's entries. */
        volatile long entrySum;

        void put(ByteKey key, byte[] value) {
            byte[] old = map.put(key, value);
            changeDigest(entryHash(key, value) - (old == null ? 0 : entryHash(key, old)));
        }

        void changeDigest(long delta) {
            entrySum += delta; // one writer at a time, ordered by happens-before: no lost update
        }

        void replaceAll(HashMap<ByteKey, byte[]> entries) {
            long sum = 0;
            for (var e : entries.entrySet()) {
                sum += entryHash(e.getKey(), e.getValue());
            }
            map.replaceAll(entries);
            entrySum = sum;
        }
    }

    /** Creates an empty store of one partition: for sequential execution. */
    public KvStateMachine() {
        this(1);
    }

    /**
     * Creates an empty store of {@code partitions} partitions, key {@code key} in partition
     * {@code new KvRouter(partitions).groupOf(key)}: safe under P-SMR with that router and as many
     * workers (see the class comment).
     *
     * @throws IllegalArgumentException unless {@code partitions} is a valid group count of {@link KvRouter}
     */
    public KvStateMachine(int partitions) {
        KvRouter r = new KvRouter(partitions);
        this.router = partitions == 1 ? null : r;
        this.partitions = new Partition[partitions];
        for (int i = 0; i < partitions; i++) {
            this.partitions[i] = new Partition();
        }
    }

    /** The number of partitions. */
    public int partitions() {
        return partitions.length;
    }

    private Partition partitionOf(ByteKey key) {
        return router == null ? partitions[0] : partitions[router.groupOf(key.bytes())];
    }

    /**
     * A read-only command ({@link KvOp#isReadOnly}: GET, EXISTS, MGET, DBSIZE, STRLEN) answered outside the
     * order, exactly as {@link #execute} answers it; any other op is refused with
     * {@link UnsupportedOperationException}, so the client orders it.
     */
    @Override
    public ByteBuffer query(ByteBuffer query) {
        KvCommand decoded = KvCommand.decode(query.duplicate());
        if (!decoded.op().isReadOnly()) {
            throw new UnsupportedOperationException(decoded.op() + " changes the store: it is ordered");
        }
        return execute(query);
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
                return KvReplyFormat.bulkOrNil(get(new ByteKey(a[0])));
            case SET:
                put(new ByteKey(a[0]), a[1]);
                return KvReplyFormat.ok();
            case SET_IF_ABSENT: {
                ByteKey key = new ByteKey(a[0]);
                Partition p = partitionOf(key);
                if (p.map.get(key) != null) {
                    return KvReplyFormat.nil();
                }
                p.put(key, a[1]);
                return KvReplyFormat.ok();
            }
            case SET_IF_PRESENT: {
                ByteKey key = new ByteKey(a[0]);
                Partition p = partitionOf(key);
                if (p.map.get(key) == null) {
                    return KvReplyFormat.nil();
                }
                p.put(key, a[1]);
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
                return KvReplyFormat.integer(size());
            case STRLEN: {
                byte[] value = get(new ByteKey(a[0]));
                return KvReplyFormat.integer(value == null ? 0 : value.length);
            }
            case FLUSHALL:
                for (Partition p : partitions) {
                    p.replaceAll(new HashMap<>()); // an open snapshot view keeps its own table
                }
                return KvReplyFormat.ok();
            default:
                throw new IllegalArgumentException("malformed KV command: op " + decoded.op() + " not executable");
        }
    }

    /**
     * {@link #execute}, plus an undo that restores the previous value (or absence) of every key the
     * command writes, last written first; FLUSHALL's undo puts every partition's table back.
     *
     * @throws IllegalArgumentException if the bytes are not a well-formed command (state unchanged)
     * @throws KvCommandException       if the command is not allowed on the state (state unchanged)
     */
    @Override
    public Execution executeSpeculatively(ByteBuffer command) {
        KvCommand decoded = KvCommand.decode(command.duplicate());
        KvOp op = decoded.op();
        if (op.isReadOnly()) {
            return new Execution(execute(command), Execution.NOTHING);
        }
        if (op == KvOp.FLUSHALL) {
            List<HashMap<ByteKey, byte[]>> before = new ArrayList<>(partitions.length);
            for (Partition p : partitions) {
                before.add(new HashMap<>(p.map.current()));
            }
            ByteBuffer reply = execute(command);
            return new Execution(reply, () -> {
                for (int i = 0; i < partitions.length; i++) {
                    partitions[i].replaceAll(before.get(i));
                }
            });
        }
        byte[][] a = decoded.rawArgs();
        int step = op == KvOp.MSET ? 2 : 1;
        int written = op == KvOp.DEL || op == KvOp.MSET ? (a.length + step - 1) / step : 1;
        ByteKey[] keys = new ByteKey[written];
        byte[][] old = new byte[written][];
        for (int i = 0; i < written; i++) {
            keys[i] = new ByteKey(a[i * step]);
            old[i] = get(keys[i]);
        }
        ByteBuffer reply = execute(command);
        return new Execution(reply, () -> {
            for (int i = written - 1; i >= 0; i--) {
                restoreKey(keys[i], old[i]);
            }
        });
    }

    /** Puts {@code old} back under {@code key} (null: removes it), keeping the digest. */
    private void restoreKey(ByteKey key, byte[] old) {
        Partition p = partitionOf(key);
        if (old != null) {
            p.put(key, old);
            return;
        }
        byte[] current = p.map.remove(key);
        if (current != null) {
            p.changeDigest(-entryHash(key, current));
        }
    }

    private long delete(byte[][] keys) {
        long removed = 0;
        for (byte[] key : keys) {
            ByteKey k = new ByteKey(key);
            Partition p = partitionOf(k);
            byte[] old = p.map.remove(k);
            if (old != null) {
                p.changeDigest(-entryHash(k, old));
                removed++;
            }
        }
        return removed;
    }

    private long countExisting(byte[][] keys) {
        long count = 0;
        for (byte[] key : keys) {
            if (get(new ByteKey(key)) != null) {
                count++;
            }
        }
        return count;
    }

    private long increment(ByteKey key) {
        byte[] old = get(key);
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

    private byte[] get(ByteKey key) {
        return partitionOf(key).map.get(key);
    }

    private void put(ByteKey key, byte[] value) {
        partitionOf(key).put(key, value);
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
            values[i] = get(new ByteKey(keys[i]));
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
        List<Map<ByteKey, byte[]>> tables = new ArrayList<>(partitions.length);
        for (Partition p : partitions) {
            tables.add(p.map.current());
        }
        KvSnapshotFormat.write(tables, out);
    }

    /**
     * Freezes the entries in O(1) and returns a capture that writes them as {@link #snapshot}
     * would have at this point, in key order; it may run on another thread while commands execute.
     * Closing it lets the store fold the changes made meanwhile back into one table.
     */
    @Override
    public SnapshotCapture capture() {
        FreezableMap.Frozen[] frozen = new FreezableMap.Frozen[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
            frozen[i] = partitions[i].map.freeze();
        }
        return new SnapshotCapture() {
            @Override
            public void writeTo(WritableByteChannel out) throws IOException {
                List<Map<ByteKey, byte[]>> tables = new ArrayList<>(frozen.length);
                for (FreezableMap.Frozen f : frozen) {
                    tables.add(f.entries());
                }
                KvSnapshotFormat.write(tables, out);
            }

            @Override
            public void close() {
                for (FreezableMap.Frozen f : frozen) {
                    f.release();
                }
            }
        };
    }

    /**
     * Replaces the whole state with a snapshot's, each entry in its key's partition (the snapshot
     * may come from a store of any partition count). The snapshot is read completely before the
     * state is replaced, so a failed restore leaves the old state in place.
     *
     * @throws IOException if the channel fails or the data is not a well-formed snapshot
     */
    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        HashMap<ByteKey, byte[]> restored = KvSnapshotFormat.read(in);
        if (router == null) {
            partitions[0].replaceAll(restored);
            return;
        }
        List<HashMap<ByteKey, byte[]>> split = new ArrayList<>(partitions.length);
        for (int i = 0; i < partitions.length; i++) {
            split.add(new HashMap<>());
        }
        for (var e : restored.entrySet()) {
            split.get(router.groupOf(e.getKey().bytes())).put(e.getKey(), e.getValue());
        }
        for (int i = 0; i < partitions.length; i++) {
            partitions[i].replaceAll(split.get(i));
        }
    }

    /**
     * An order-independent 52-bit digest of the contents (the sum of a 64-bit hash of each key and
     * value), kept up to date by every change: two stores with the same entries have the same
     * digest, whatever commands or snapshot produced them. 52 bits so that a metrics gauge (a
     * double) carries it exactly; the same for any partition count. Safe to call from any thread;
     * it reflects the commands executed so far (at quiescence, exactly).
     */
    public long digest() {
        long sum = 0;
        for (Partition p : partitions) {
            sum += p.entrySum;
        }
        return sum & DIGEST_MASK;
    }

    /** The number of keys. */
    int size() {
        int size = 0;
        for (Partition p : partitions) {
            size += p.map.size();
        }
        return size;
    }

    /** The value stored under {@code key} (not copied), or null. */
    byte[] valueOf(byte[] key) {
        return get(new ByteKey(key));
    }
}
