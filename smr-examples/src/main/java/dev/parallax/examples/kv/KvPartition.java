package dev.parallax.examples.kv;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.CachedReads;
import dev.parallax.scheduler.ssmr.ExecutionContext;
import dev.parallax.scheduler.ssmr.PartitionView;
import dev.parallax.scheduler.ssmr.PartitionedStateMachine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * One partition of the key-value store under S-SMR (seed 004 (S-SMR) §IV, Alg. 1 l.13-19): the
 * entries whose key {@code key} has {@link KvRouter#groupOf new KvRouter(P).groupOf(key)} equal to
 * this replica's partition — the same function the clients route with, so a command's
 * destinations ({@link KvRouter#route}) are exactly the partitions owning its keys (every partition
 * for DBSIZE and FLUSHALL). The entries live in a one-partition {@link KvStateMachine}, which
 * executes every command; this class only decides what a command reads from the other partitions.
 *
 * <p><b>Replies.</b> Every involved partition answers the same bytes a sequential
 * {@link KvStateMachine} holding the whole store would:
 * <ul>
 *   <li><b>every key owned here</b> (the common case: single-key commands at their owner): the
 *       local store executes the command.</li>
 *   <li><b>keys of several partitions</b> (MGET, MSET, DEL and EXISTS over several keys, or a
 *       single-key command multicast also elsewhere): {@link #localReads} sends, for each key
 *       position this partition owns and the command reads, the key's value (GET, INCR, MGET, STRLEN) or
 *       only whether it exists (SET NX/XX, DEL, EXISTS); MSET and SET read nothing. Execution
 *       loads those values, the local ones and the remote ones, into a scratch
 *       {@link KvStateMachine} and executes the whole command there: its reply is the reply
 *       (an MGET assembled in key order, DEL/EXISTS counting every partition's keys, repeated keys
 *       counted as sequentially). The local store then executes the command restricted to the
 *       keys owned here (same pre-values, keys disjoint from the others: same final values).</li>
 *   <li><b>DBSIZE</b>: each partition sends its size; the reply is their sum.</li>
 *   <li><b>FLUSHALL</b>: each partition clears its entries.</li>
 *   <li><b>too few partitions</b>: {@link ExecutionContext#require} with the owners of the keys
 *       (every partition for DBSIZE and FLUSHALL) runs before anything changes, so the command
 *       fails with {@code WrongPartitions} on every replica and the client retries wider.</li>
 *   <li><b>malformed bytes</b>: nothing is exchanged and {@link KvCommand#decode} throws the same
 *       {@link IllegalArgumentException} as {@link KvStateMachine#execute}; a well-formed command
 *       the values do not allow (INCR of a non-integer) throws the same
 *       {@link KvCommandException} on every involved partition, and nothing changes.</li>
 * </ul>
 *
 * <p><b>Values format</b> ({@link #localReads}, big-endian): per read key position owned here,
 * in command order, {@code 0} (absent) or {@code 1} (present) and, for the value-reading ops,
 * {@code length:i32 bytes}; DBSIZE: {@code size:i64}. Values that do not parse (another version)
 * fail the command alike on every replica.
 *
 * <p><b>Caching</b> ({@code ssmr.cache=on}, seed 004 §IV-C): {@link KvCachedReads}; the values of
 * the commands that read values are then exchanged per key, in the same format.
 *
 * <p><b>Snapshot and digest</b>: the local store's ({@link KvSnapshotFormat}, the partition's
 * entries only); the {@link #digest} is equal within a partition.
 *
 * <p>Not thread-safe: the replica's S-SMR executor thread is its one caller (snapshot and restore
 * while no command executes); {@link #digest} may be read from any thread. Nothing blocks but
 * snapshot and restore on their channels.
 */
public final class KvPartition implements PartitionedStateMachine {
    private final KvRouter router;
    private final KvStateMachine store = new KvStateMachine();

    /**
     * An empty partition of a store split into {@code partitions} partitions.
     *
     * @throws IllegalArgumentException unless {@code partitions} is a valid group count of {@link KvRouter}
     */
    public KvPartition(int partitions) {
        this.router = new KvRouter(partitions);
    }

    /** How many partitions the store is split into. */
    public int partitions() {
        return router.groups();
    }

    /** The partition of {@code key}: the group {@link KvRouter} routes it to. */
    public int partitionOf(byte[] key) {
        return router.groupOf(key);
    }

    /** The digest of this partition's entries ({@link KvStateMachine#digest()}); safe from any thread. */
    public long digest() {
        return store.digest();
    }

    /** The number of entries in this partition. */
    public int size() {
        return store.size();
    }

    /** The value stored here under {@code key} (not copied), or null. */
    byte[] valueOf(byte[] key) {
        return store.valueOf(key);
    }

    @Override
    public ByteBuffer localReads(ByteBuffer command, PartitionView view) {
        if (view.involved().size() == 1) {
            return ByteBuffer.allocate(0); // no other partition to send to
        }
        KvCommand c = decodeOrNull(command);
        if (c == null) {
            return ByteBuffer.allocate(0);
        }
        KvOp op = c.op();
        if (op == KvOp.DBSIZE) {
            return ByteBuffer.allocate(Long.BYTES).putLong(store.size()).flip();
        }
        Reads reads = Reads.of(op);
        if (reads == Reads.NONE) {
            return ByteBuffer.allocate(0);
        }
        byte[][] a = c.rawArgs();
        long size = 0;
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < keyCount(c); i++) {
            if (router.groupOf(a[i]) == view.partition()) {
                byte[] v = store.valueOf(a[i]);
                values.add(v);
                size += 1 + (reads == Reads.VALUES && v != null ? Integer.BYTES + v.length : 0);
            }
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new KvCommandException("ERR values of " + size + " bytes are too large to send");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size);
        for (byte[] v : values) {
            out.put((byte) (v == null ? 0 : 1));
            if (reads == Reads.VALUES && v != null) {
                out.putInt(v.length).put(v);
            }
        }
        return out.flip();
    }

    @Override
    public GroupSet remoteReads(ByteBuffer command, PartitionView view) {
        if (view.involved().size() == 1) {
            return null;
        }
        KvCommand c = decodeOrNull(command);
        if (c == null) {
            return null;
        }
        long others = view.involved().bits() & ~(1L << view.partition());
        if (c.op() == KvOp.DBSIZE) {
            return others == 0 ? null : GroupSet.ofBits(others);
        }
        if (Reads.of(c.op()) == Reads.NONE) {
            return null;
        }
        long owners = owners(c, view.partitions()) & others;
        return owners == 0 ? null : GroupSet.ofBits(owners);
    }

    @Override
    public ByteBuffer execute(ByteBuffer command, ExecutionContext context) {
        checkPartitions(context);
        if (router.route(command).bits() == 1L << context.partition()) {
            // Every key here (or malformed bytes KvRouter sends to group 0, which the store rejects
            // as the sequential store does): the common case, decoded once, by the store.
            return store.execute(command.duplicate());
        }
        KvCommand c = KvCommand.decode(command); // malformed: the sequential store's exception
        KvOp op = c.op();
        long owners = owners(c, context.partitions());
        context.require(GroupSet.ofBits(owners));
        if (op == KvOp.DBSIZE) {
            long total = store.size();
            for (int p = 0; p < context.partitions(); p++) {
                if (p != context.partition()) {
                    total += sizeFrom(context.valuesOf(p));
                }
            }
            return KvReplyFormat.integer(total);
        }
        if (op == KvOp.FLUSHALL) {
            return store.execute(command.duplicate());
        }
        return executeAcross(c, context);
    }

    /** A command with keys of other partitions: see the class comment. */
    private ByteBuffer executeAcross(KvCommand c, ExecutionContext context) {
        KvOp op = c.op();
        byte[][] a = c.rawArgs();
        int self = context.partition();
        Reads reads = Reads.of(op);
        // Pre-values of the keys the command reads, local and remote, loaded into a scratch store.
        List<byte[]> pairs = new ArrayList<>();
        if (reads != Reads.NONE) {
            ByteBuffer[] remote = new ByteBuffer[context.partitions()];
            for (int i = 0; i < keyCount(c); i++) {
                byte[] key = a[i];
                int owner = router.groupOf(key);
                byte[] value;
                if (owner == self) {
                    value = store.valueOf(key);
                } else {
                    if (remote[owner] == null) {
                        remote[owner] = context.valuesOf(owner);
                    }
                    value = nextValue(remote[owner], reads);
                }
                if (value != null) {
                    pairs.add(key);
                    pairs.add(value);
                }
            }
            for (int p = 0; p < remote.length; p++) {
                if (remote[p] != null && remote[p].hasRemaining()) {
                    throw malformedValues(p, remote[p].remaining() + " trailing bytes");
                }
            }
        }
        KvStateMachine scratch = new KvStateMachine();
        if (!pairs.isEmpty()) {
            scratch.execute(KvCommand.encode(KvOp.MSET, pairs.toArray(new byte[0][]), 0));
        }
        ByteBuffer reply = scratch.execute(c.encode()); // throws alike everywhere: nothing changed yet
        if (writes(op) && op != KvOp.MSET && op != KvOp.DEL) {
            if (router.groupOf(a[0]) == self) { // single key: only its owner keeps it
                store.execute(c.encode());
            }
        } else if (writes(op)) {
            int step = op == KvOp.MSET ? 2 : 1;
            List<byte[]> own = new ArrayList<>();
            for (int i = 0; i < a.length; i += step) {
                if (router.groupOf(a[i]) == self) {
                    for (int j = i; j < i + step; j++) {
                        own.add(a[j]);
                    }
                }
            }
            if (!own.isEmpty()) {
                store.execute(KvCommand.encode(op, own.toArray(new byte[0][]), 0));
            }
        }
        return reply;
    }

    private void checkPartitions(PartitionView view) {
        if (view.partitions() != router.groups()) {
            throw new IllegalStateException("a KV partition of a " + router.groups() + "-partition store executed in a "
                    + view.partitions() + "-partition cluster");
        }
    }

    /** The partitions owning the command's keys as bits; every partition for DBSIZE and FLUSHALL. */
    private long owners(KvCommand c, int partitions) {
        if (c.op().isGlobal()) {
            return GroupSet.partition(partitions).bits();
        }
        byte[][] a = c.rawArgs();
        int step = c.op() == KvOp.MSET ? 2 : 1;
        int last = c.op() == KvOp.MSET ? a.length : keyCount(c);
        long bits = 0;
        for (int i = 0; i < last; i += step) {
            bits |= 1L << router.groupOf(a[i]);
        }
        return bits;
    }

    /** How many of the arguments, from the first, are keys the command reads (not for MSET). */
    private static int keyCount(KvCommand c) {
        KvOp op = c.op();
        return op == KvOp.DEL || op == KvOp.EXISTS || op == KvOp.MGET ? c.argCount() : 1;
    }

    private static boolean writes(KvOp op) {
        return switch (op) {
            case SET, SET_IF_ABSENT, SET_IF_PRESENT, DEL, INCR, MSET -> true;
            default -> false;
        };
    }

    private static byte[] nextValue(ByteBuffer values, Reads reads) {
        if (!values.hasRemaining()) {
            throw malformedValues(-1, "too few values");
        }
        byte present = values.get();
        if (present == 0) {
            return null;
        }
        if (present != 1) {
            throw malformedValues(-1, "presence byte " + present);
        }
        if (reads == Reads.PRESENCE) {
            return new byte[0]; // only counted or tested for presence, never returned nor kept
        }
        if (values.remaining() < Integer.BYTES) {
            throw malformedValues(-1, "truncated length");
        }
        int length = values.getInt();
        if (length < 0 || length > values.remaining()) {
            throw malformedValues(-1, "length " + length);
        }
        byte[] v = new byte[length];
        values.get(v);
        return v;
    }

    private static long sizeFrom(ByteBuffer values) {
        if (values.remaining() != Long.BYTES) {
            throw malformedValues(-1, "a size of " + values.remaining() + " bytes");
        }
        return values.getLong();
    }

    private static IllegalStateException malformedValues(int partition, String what) {
        return new IllegalStateException("malformed KV values" + (partition >= 0 ? " from partition " + partition : "")
                + ": " + what);
    }

    private static KvCommand decodeOrNull(ByteBuffer command) {
        try {
            return KvCommand.decode(command);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The caching SPI (seed 004 §IV-C, {@code ssmr.cache=on}): {@link KvCachedReads}. */
    @Override
    public CachedReads cachedReads() {
        return new KvCachedReads(this, router);
    }

    @Override
    public void snapshot(WritableByteChannel out) throws IOException {
        store.snapshot(out);
    }

    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        store.restore(in);
    }

    /** What a command reads of its keys. */
    private enum Reads {
        /** Nothing (SET, MSET; DBSIZE and FLUSHALL are handled apart). */
        NONE,
        /** Whether each key exists (SET NX/XX, DEL, EXISTS). */
        PRESENCE,
        /** Each key's value (GET, INCR, MGET, STRLEN). */
        VALUES;

        static Reads of(KvOp op) {
            return switch (op) {
                case GET, INCR, MGET, STRLEN -> VALUES;
                case SET_IF_ABSENT, SET_IF_PRESENT, DEL, EXISTS -> PRESENCE;
                default -> NONE;
            };
        }
    }
}
