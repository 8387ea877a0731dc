package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.ExecutionContext;
import dev.parallax.scheduler.ssmr.PartitionView;
import dev.parallax.scheduler.ssmr.PartitionedStateMachine;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * One partition of Volery, ZooKeeper's data model partitioned by S-SMR (seed 004 (S-SMR / Eyrie /
 * Volery) §V-B; §IV Alg. 1 l.13-19 for the value exchange). The owner of a path is
 * {@link VoleryOracle#partitionOf(String, int) CRC32(path) mod P}. Every partition keeps the whole
 * hierarchy in a {@link ZnodeTree} — existence, children, and each node's czxid, ctime, cversion
 * and pzxid, which only create and delete change, and those go to every partition — while only a
 * node's owner keeps its data, version, mzxid and mtime current (setData goes to the owner only;
 * the other partitions' copies keep the values of the create).
 *
 * <p>Per command (commands are {@link VoleryCommand} bytes; replies are {@link ZkReply#encode()}
 * bytes, the same on every replica of every involved partition):
 * <ul>
 *   <li><b>create, delete(-1)</b>: {@code require(all partitions)}; no remote reads; executed on the
 *       local tree, which every partition holds alike for these.</li>
 *   <li><b>delete(path, version)</b>: {@code require(all)}; the owner's {@link #localReads} is the
 *       node's version; the other partitions read it ({@link #remoteReads} = {owner}) and check
 *       BADVERSION against it, so every partition decides alike.</li>
 *   <li><b>setData, getData, exists, getChildren</b>: {@code require({owner})}. The owner executes;
 *       if the command was also multicast elsewhere (an over-approximating oracle), the owner's
 *       {@link #localReads} is the reply it is about to give (computed without changing anything)
 *       and every other involved partition answers exactly those bytes, changing nothing.</li>
 *   <li><b>addWatch, removeWatches</b>: a persistent watch at its path's owner
 *       ({@code require({owner})}), a recursive one and a removal at every partition
 *       ({@code require(all)}); OK (BADARGUMENTS for an invalid path) everywhere, no values exchanged,
 *       no zxid consumed.</li>
 *   <li><b>watch poll, watch drop</b> (a front end's, {@link ZnodeWatches}): {@code require({target})};
 *       the target acts on its watches and answers, others involved answer the target's reply (as
 *       for reads); a target beyond P: BADARGUMENTS, nothing changes.</li>
 *   <li><b>malformed bytes</b>: {@link ZkReply#malformed()} (MARSHALLINGERROR), nothing changes, no
 *       values exchanged.</li>
 * </ul>
 *
 * <p><b>Queries</b> ({@link #query}): getData, exists and getChildren without a watch
 * ({@link VoleryCommand#isQuery()}), answered outside the order from this partition's state when it
 * owns the path, exactly as {@link #execute} answers them at the owner, changing nothing (no zxid,
 * no watch, no session state). Any other command, a path another partition owns, or a partition
 * that has not executed a command yet (it learns its place from the first one) is refused with
 * {@link UnsupportedOperationException}: the client then orders it.
 *
 * <p><b>Watches</b> ({@link ZnodeWatches}): a read with a {@link Watcher} sets its watch at the owner
 * (where it executes); a successful write fires the watches this partition holds — setData at the
 * owner, create and delete at every partition, each of which holds only the watches on the paths it
 * owns. Watches and queued events are replicated state: in the snapshot and the digest.
 *
 * <p><b>zxid and time.</b> ZooKeeper's zxid is one global counter; S-SMR has none. Each partition
 * counts the global commands it executed, {@code g} (the same at every partition: every partition
 * executes every create and delete, in the same order), and the local writes since the last global
 * one, {@code n}. A create or delete gets zxid {@code (g+1) << 32} (and {@code n} restarts at 0); a
 * setData gets {@code g << 32 | (n+1)} at its owner (n saturates at 2^32-1). Failed writes consume a
 * zxid too, as ZooKeeper's error transactions do. So zxids grow at every partition and are global for
 * creates and deletes, but two setData on different partitions may get the same zxid (a documented
 * deviation). Every reply carries a zxid ({@link ZkReply#zxid()}): a write's own (as above), a
 * read's the partition's last one, {@code g << 32 | n}, the zxid of the last write it executed (the
 * owner's: other involved partitions answer the owner's reply). Times are not read from a clock: a write uses {@link VoleryCommand#time()}, stamped
 * into the command by the entry point (0 if not stamped).
 *
 * <p><b>Snapshot</b>, version 2 (big-endian, self-delimiting: {@link #restore} reads exactly these
 * bytes): {@code int magic 0x56505254 ("VPRT"), byte version 2, long g, long n, int treeLength,
 * treeLength bytes of ZnodeSnapshotFormat, int watchesLength, watchesLength bytes of
 * ZnodeWatches.snapshot()}. Version 1, without the watches, is still read (no watches). Partitions' snapshots and digests differ (non-owners'
 * copies of data are stale); replicas of one partition agree.
 *
 * <p>Threads: the replica's S-SMR executor thread executes (snapshot and restore while no command
 * executes); {@link #query} runs on any thread, between commands; {@link #digest}, {@link #size} and
 * {@link #snapshotBytes} may be called from any thread
 * (a metrics scrape: the {@code parallax.volery.digest} gauge). Every method holds this object's
 * lock — uncontended on the executor thread; a digest, O(size), holds execution back while it
 * reads. Nothing blocks but {@link #snapshot}/{@link #restore} on their channels.
 */
public final class VoleryPartition implements PartitionedStateMachine {
    /** The partition snapshot's magic number ("VPRT"). */
    public static final int SNAPSHOT_MAGIC = 0x56505254;
    /** The partition snapshot format version. */
    public static final byte SNAPSHOT_VERSION = 2;
    /** The first partition snapshot format, without watches; still restored. */
    public static final byte SNAPSHOT_VERSION_1 = 1;

    private static final int HEADER_BYTES = 4 + 1 + 8 + 8 + 4;
    private static final long MAX_LOCAL = 0xFFFFFFFFL;
    private static final int CHUNK = 64 * 1024;
    private static final byte[] MALFORMED = ZkReply.malformed().encode();

    private ZnodeTree tree = new ZnodeTree();
    private ZnodeWatches watches = new ZnodeWatches();
    private long globals;
    private long locals;
    /** This partition's place, learned from the commands it executes (-1 and 0 before the first). */
    private int partition = -1;
    private int partitions;

    /** An empty partition: the root only, no command executed. */
    public VoleryPartition() {
    }

    @Override
    public synchronized ByteBuffer localReads(ByteBuffer command, PartitionView view) {
        VoleryCommand c = VoleryCommand.decode(command).command();
        if (c instanceof Multi m) {
            return view.involved().size() == 1 ? empty() : MultiVersions.local(m, tree, view);
        }
        if (c == null || view.involved().size() == 1 || c instanceof Create || isRegistration(c)
                || c instanceof SessionTick || c instanceof CloseSession || ownerOf(c, view) != view.partition()) {
            return empty();
        }
        if (c instanceof WatchPoll p) {
            return ByteBuffer.wrap(ZkReply.events(watches.peek(p.frontEnd(), p.acked())).encode());
        }
        if (c instanceof WatchDrop) {
            return ByteBuffer.wrap(ZkReply.ok().encode());
        }
        if (c instanceof Delete d) {
            if (d.version() == ZnodeTree.ANY_VERSION) {
                return empty();
            }
            ZkReply node = tree.exists(d.path());
            ByteBuffer value = ByteBuffer.allocate(5);
            value.put((byte) (node.isOk() ? 1 : 0)).putInt(node.isOk() ? node.stat().version() : 0).flip();
            return value;
        }
        ZkReply reply = c instanceof SetData s
                ? tree.previewSetData(s.path(), s.data(), s.version(), peekLocalZxid(), s.time())
                : c.applyTo(tree, lastZxid(), 0L); // a read
        return ByteBuffer.wrap(reply.encode());
    }

    @Override
    public synchronized GroupSet remoteReads(ByteBuffer command, PartitionView view) {
        VoleryCommand c = VoleryCommand.decode(command).command();
        if (c instanceof Multi m) {
            return MultiVersions.owners(m, view);
        }
        if (c == null || c instanceof Create || isRegistration(c) || c instanceof SessionTick || c instanceof CloseSession
                || c instanceof Delete d && d.version() == ZnodeTree.ANY_VERSION
                || c.targetPartition() >= view.partitions()) {
            return null;
        }
        int owner = ownerOf(c, view);
        return owner != view.partition() && view.involved().contains(owner) ? GroupSet.of(owner) : null;
    }

    @Override
    public synchronized ByteBuffer execute(ByteBuffer command, ExecutionContext context) {
        partition = context.partition();
        partitions = context.partitions();
        VoleryCommand c = VoleryCommand.decode(command).command();
        if (c == null) {
            return ByteBuffer.wrap(MALFORMED.clone());
        }
        if (c.targetPartition() >= context.partitions()) {
            return ByteBuffer.wrap(ZkReply.error(ZkCode.BADARGUMENTS).encode());
        }
        int owner = ownerOf(c, context);
        boolean own = owner == context.partition();
        watches.ownership(context.partition(), context.partitions());
        if (isRegistration(c)) {
            // a persistent watch lives at its path's owner, a recursive one everywhere; removal
            // everywhere: the same reply at every involved partition, no values exchanged
            context.require(c.toEveryPartition() ? GroupSet.partition(context.partitions()) : GroupSet.of(owner));
            ZkReply reply = c.toEveryPartition() || own ? c.applyTo(tree, watches, 0L, 0L) : c.applyTo(tree, 0L, 0L);
            return ByteBuffer.wrap(reply.withZxid(globals << 32).encode()); // g: the same at every partition
        }
        if (c.isGlobal()) {
            context.require(GroupSet.partition(context.partitions()));
            Integer ownersVersion = null;
            if (c instanceof Delete d && d.version() != ZnodeTree.ANY_VERSION && !own) {
                ownersVersion = ownersVersion(context.valuesOf(owner)); // may throw: before any change
            }
            java.util.Map<String, Integer> remoteVersions = c instanceof Multi m
                    ? MultiVersions.remote(m, context) : null; // may throw: before any change
            globals++;
            locals = 0;
            long zxid = globals << 32;
            ZkReply reply;
            if (c instanceof Multi m) {
                int here = context.partition();
                int all = context.partitions();
                reply = MultiRun.run(tree, watches, m.ops(), zxid, m.time(),
                        path -> VoleryOracle.partitionOf(path, all) == here, remoteVersions);
            } else if (c instanceof Delete d) {
                reply = tree.delete(d.path(), d.version(), zxid, ownersVersion);
                watches.onExecuted(d, reply);
            } else {
                reply = c.applyTo(tree, watches, zxid, c.time());
            }
            return ByteBuffer.wrap(reply.encode());
        }
        context.require(GroupSet.of(owner));
        if (!own) {
            // the owner's reply, as it sent it; re-encoded so that a broken value is MARSHALLINGERROR
            return ByteBuffer.wrap(ZkReply.decode(context.valuesOf(owner)).encode());
        }
        long zxid = lastZxid();
        if (c.isWrite()) {
            zxid = peekLocalZxid();
            locals = Math.min(locals + 1, MAX_LOCAL);
        }
        return ByteBuffer.wrap(c.applyTo(tree, watches, zxid, c.time()).encode());
    }

    /**
     * Answers the read {@code query} outside the order (see the class comment): the bytes
     * {@link #execute} would reply at the path's owner, from the current state, which it does not
     * change. Malformed bytes answer MARSHALLINGERROR, as {@link #execute} does.
     *
     * @throws UnsupportedOperationException if the command is not a query (a write, a read that sets
     *                                       a watch, a front end's watch command), its path belongs
     *                                       to another partition, or this partition does not know
     *                                       its place yet: the client orders it
     */
    public synchronized ByteBuffer query(ByteBuffer query) {
        VoleryCommand.Decoded decoded = VoleryCommand.decode(query);
        if (!decoded.ok()) {
            return ByteBuffer.wrap(MALFORMED.clone());
        }
        VoleryCommand c = decoded.command();
        if (!c.isQuery()) {
            throw new UnsupportedOperationException("Volery " + c.getClass().getSimpleName()
                    + (c.watcher() != null ? " with a watch" : "") + " is ordered, not a query");
        }
        if (partition < 0) {
            throw new UnsupportedOperationException("this Volery partition has executed no command yet: it does not"
                    + " know which paths it owns, so the read is ordered");
        }
        int owner = VoleryOracle.partitionOf(c.path(), partitions);
        if (owner != partition) {
            throw new UnsupportedOperationException("partition " + partition + " does not own " + c.path()
                    + " (partition " + owner + " does): the read is ordered");
        }
        return ByteBuffer.wrap(c.applyTo(tree, lastZxid(), 0L).encode());
    }

    @Override
    public synchronized void snapshot(WritableByteChannel out) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(snapshotBytes());
        while (bytes.hasRemaining()) {
            out.write(bytes);
        }
    }

    /**
     * Replaces this partition's state with the snapshot read from {@code in}, reading exactly its
     * bytes; on any error the state is unchanged.
     *
     * @throws IOException if reading fails, the channel ends early, or the bytes are not a snapshot
     *                     (the message names the reason)
     */
    @Override
    public synchronized void restore(ReadableByteChannel in) throws IOException {
        ByteBuffer header = readFully(in, HEADER_BYTES);
        int magic = header.getInt();
        byte version = header.get();
        long g = header.getLong();
        long n = header.getLong();
        int treeLength = header.getInt();
        if (magic != SNAPSHOT_MAGIC) {
            throw new IOException("malformed Volery partition snapshot: magic " + Integer.toHexString(magic));
        }
        if (version != SNAPSHOT_VERSION && version != SNAPSHOT_VERSION_1) {
            throw new IOException("malformed Volery partition snapshot: unsupported version " + version);
        }
        if (g < 0 || n < 0 || n > MAX_LOCAL || treeLength < 0) {
            throw new IOException("malformed Volery partition snapshot: counters " + g + "/" + n + ", tree length "
                    + treeLength);
        }
        ByteBuffer treeBytes = readFully(in, treeLength);
        ZnodeWatches restoredWatches = new ZnodeWatches();
        if (version == SNAPSHOT_VERSION) {
            int watchesLength = readFully(in, 4).getInt();
            if (watchesLength < 0) {
                throw new IOException("malformed Volery partition snapshot: watches length " + watchesLength);
            }
            ByteBuffer watchBytes = readFully(in, watchesLength);
            try {
                restoredWatches = ZnodeWatches.restore(watchBytes);
            } catch (IllegalArgumentException e) {
                throw new IOException("malformed Volery partition snapshot: " + e.getMessage(), e);
            }
        }
        ZnodeTree restored;
        try {
            restored = ZnodeTree.restore(treeBytes.array());
        } catch (IllegalArgumentException e) {
            throw new IOException("malformed Volery partition snapshot: " + e.getMessage(), e);
        }
        tree = restored;
        watches = restoredWatches;
        globals = g;
        locals = n;
    }

    /** This partition's snapshot as bytes (what {@link #snapshot} writes). */
    public synchronized byte[] snapshotBytes() {
        byte[] treeBytes = tree.snapshot();
        byte[] watchBytes = watches.snapshot();
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + treeBytes.length + 4 + watchBytes.length);
        out.putInt(SNAPSHOT_MAGIC).put(SNAPSHOT_VERSION).putLong(globals).putLong(locals).putInt(treeBytes.length)
                .put(treeBytes).putInt(watchBytes.length).put(watchBytes);
        return out.array();
    }

    /**
     * A 52-bit digest of this partition's whole state (tree and zxid counters): equal on the
     * replicas of a partition, different across partitions in general. O(size).
     */
    public synchronized long digest() {
        return ZnodeSnapshotFormat.digest(snapshotBytes());
    }

    /** The number of znodes this partition's tree holds, the root included (the same at every partition). */
    public synchronized int size() {
        return tree.size();
    }

    /** The watches this partition holds (data plus child watches). */
    public synchronized int watchCount() {
        return watches.watchCount();
    }

    // ---- S-SMR caching (seed 004 §IV-C, ssmr.cache=on): the SPI lives in VoleryCachedReads ----
    @Override
    public dev.parallax.scheduler.ssmr.CachedReads cachedReads() {
        return new VoleryCachedReads(this);
    }

    /** {@code read}'s reply here with zxid 0, changing nothing (VoleryCachedReads' reply variable). */
    synchronized ByteBuffer cachedReply(VoleryCommand read) {
        return ByteBuffer.wrap(read.applyTo(tree, 0L, 0L).encode());
    }

    /** The last zxid (VoleryCachedReads' zxid variable). */
    synchronized long cachedZxid() {
        return lastZxid();
    }
    // ---- end of S-SMR caching ----

    /** The zxid of the last write this partition executed ({@code g << 32 | n}; 0 before any). */
    private long lastZxid() {
        return globals << 32 | locals;
    }

    private long peekLocalZxid() {
        return globals << 32 | Math.min(locals + 1, MAX_LOCAL);
    }

    /** A persistent-watch registration or a watch removal (no znode, no zxid, a constant reply). */
    private static boolean isRegistration(VoleryCommand c) {
        return c instanceof AddWatch || c instanceof RemoveWatches;
    }

    private static int ownerOf(VoleryCommand c, PartitionView view) {
        int target = c.targetPartition();
        return target >= 0 ? target : VoleryOracle.partitionOf(c.path(), view.partitions());
    }

    /** The owner's value for a versioned delete: byte exists, int version; null if the node is missing. */
    private static Integer ownersVersion(ByteBuffer value) {
        if (value.remaining() != 5) {
            throw new IllegalStateException("the owner sent " + value.remaining() + " bytes, not a node version");
        }
        ByteBuffer v = value.duplicate();
        return v.get() == 1 ? v.getInt() : null;
    }

    private static ByteBuffer empty() {
        return ByteBuffer.allocate(0);
    }

    /**
     * Exactly {@code length} bytes from {@code in}, read in chunks of at most {@link #CHUNK} so that a
     * corrupt length does not allocate more than the channel actually holds (plus one chunk).
     */
    private static ByteBuffer readFully(ReadableByteChannel in, int length) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(Math.min(length, CHUNK));
        ByteBuffer chunk = ByteBuffer.allocate(Math.min(length, CHUNK));
        int read = 0;
        while (read < length) {
            chunk.clear().limit(Math.min(chunk.capacity(), length - read));
            while (chunk.hasRemaining()) {
                if (in.read(chunk) < 0) {
                    throw new EOFException("Volery partition snapshot truncated: " + (read + chunk.position())
                            + " of " + length + " bytes");
                }
            }
            bytes.write(chunk.array(), 0, chunk.position());
            read += chunk.position();
        }
        return ByteBuffer.wrap(bytes.toByteArray());
    }
}
