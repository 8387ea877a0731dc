package dev.parallax.examples.volery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * ZooKeeper's data model as a deterministic, sequential state machine (seed 004 (S-SMR / Eyrie /
 * Volery) §V-B, the Volery API; ZooKeeper's semantics where the paper is silent): znodes by path,
 * each with data, a {@link Stat} and a set of child names; the root "/" always exists. Operations and
 * their checks, in ZooKeeper's order:
 * <ul>
 *   <li>{@link #create}: unsupported mode → UNIMPLEMENTED; invalid path → BADARGUMENTS (a sequential
 *       create validates {@code path + "1"}, so "/a/" is a valid sequential prefix); missing parent →
 *       NONODE; a sequential name gets the parent's cversion (before this create) as {@code %010d};
 *       existing node → NODEEXISTS. The parent's cversion grows by one, its pzxid becomes the zxid.</li>
 *   <li>{@link #delete}: invalid path or "/" → BADARGUMENTS; missing → NONODE; version mismatch
 *       (unless -1) → BADVERSION; children → NOTEMPTY. The parent's pzxid becomes the zxid (if
 *       larger); its cversion does not change (as ZooKeeper's DataTree).</li>
 *   <li>{@link #setData}: invalid path → BADARGUMENTS; missing → NONODE; version mismatch (unless -1)
 *       → BADVERSION; otherwise the version grows by one and mzxid/mtime are the inputs.</li>
 *   <li>{@link #getData}, {@link #exists}, {@link #getChildren} (names in ascending order):
 *       invalid path → BADARGUMENTS; missing → NONODE.</li>
 * </ul>
 * zxids and times are inputs of every write, supplied by the caller deterministically; the tree reads
 * no clock. Deviations from ZooKeeper: no "/zookeeper" subtree, no ACLs (aversion stays 0), no TTL
 * nodes (UNIMPLEMENTED); a container node is persistent and never reaped.
 *
 * <p><b>Ephemeral nodes</b> belong to a session of the tree's {@link ZnodeSessions}: an ephemeral
 * create of an ended session answers SESSIONEXPIRED (checked first, as ZooKeeper checks the session
 * of every request), a create under an ephemeral parent NOCHILDRENFOREPHEMERALS (after NODEEXISTS, as
 * ZooKeeper's PrepRequestProcessor); the session's nodes are deleted when a {@link SessionTick}
 * expires it or a {@link CloseSession} closes it ({@link #tickSessions}, {@link #closeSession}).
 *
 * <p><b>All or nothing.</b> Between {@link #begin()} and {@link #commit()} or {@link #rollback()}
 * every change is journaled; a rollback undoes them in reverse order ({@link Multi}).
 *
 * <p>Not thread-safe: one writer (the partition's executor) owns it; {@link #snapshot()} and
 * {@link #digest()} must run on that thread too. Nothing blocks.
 */
public final class ZnodeTree {
    /** Version argument that matches any version. */
    public static final int ANY_VERSION = -1;

    private final Map<String, Znode> nodes = new HashMap<>();
    private final ZnodeSessions sessions = new ZnodeSessions();
    /** The undo actions of the changes since {@link #begin()}, null outside. */
    private List<Runnable> journal;

    /** An empty tree: the root only, its stat all zeros. */
    public ZnodeTree() {
        nodes.put(ZkPaths.ROOT, new Znode(new byte[0], 0, 0, 0, 0, 0L));
    }

    /**
     * Creates a znode.
     *
     * @return OK with the created path (with its sequence suffix) and the new node's stat, or the
     *         error; either way with zxid {@code zxid}
     */
    public ZkReply create(String path, byte[] data, CreateMode mode, long zxid, long time) {
        return create(path, data, mode, 0L, 0, zxid, time);
    }

    /**
     * Creates a znode; an ephemeral one owned by session {@code owner} whose time-out is
     * {@code timeoutMs} (both 0 for a persistent mode; an ephemeral create without them is BADARGUMENTS).
     */
    public ZkReply create(String path, byte[] data, CreateMode mode, long owner, int timeoutMs, long zxid, long time) {
        return createAt(path, data, mode, owner, timeoutMs, zxid, time).withZxid(zxid);
    }

    private ZkReply createAt(String path, byte[] data, CreateMode mode, long owner, int timeoutMs, long zxid,
                             long time) {
        if (mode == null || !mode.isSupported()) {
            return ZkReply.error(ZkCode.UNIMPLEMENTED);
        }
        if (mode.isEphemeral() != (owner != 0) || mode.isEphemeral() && timeoutMs <= 0) {
            return ZkReply.error(ZkCode.BADARGUMENTS);
        }
        if (mode.isEphemeral() && !sessions.admit(owner, timeoutMs, time)) {
            return ZkReply.error(ZkCode.SESSIONEXPIRED);
        }
        if (data == null || !ZkPaths.isValid(mode.isSequential() ? path + "1" : path)) {
            return ZkReply.error(ZkCode.BADARGUMENTS);
        }
        if (!mode.isSequential() && path.equals(ZkPaths.ROOT)) {
            return ZkReply.error(ZkCode.NODEEXISTS);
        }
        Znode parent = nodes.get(ZkPaths.parent(path));
        if (parent == null) {
            return ZkReply.error(ZkCode.NONODE);
        }
        String created = mode.isSequential() ? path + String.format(Locale.ROOT, "%010d", parent.cversion) : path;
        if (nodes.containsKey(created)) {
            return ZkReply.error(ZkCode.NODEEXISTS);
        }
        if (parent.ephemeralOwner != 0) {
            return ZkReply.error(ZkCode.NOCHILDRENFOREPHEMERALS);
        }
        Znode node = new Znode(data.clone(), zxid, time, 0, 0, owner);
        int cversion = parent.cversion;
        long pzxid = parent.pzxid;
        nodes.put(created, node);
        parent.children.add(ZkPaths.name(created));
        parent.cversion++;
        parent.pzxid = zxid;
        if (owner != 0) {
            sessions.owns(owner, created);
        }
        if (journal != null) { // no undo allocated outside a multi
            journal.add(() -> {
                nodes.remove(created);
                parent.children.remove(ZkPaths.name(created));
                parent.cversion = cversion;
                parent.pzxid = pzxid;
                if (owner != 0) {
                    sessions.disowns(owner, created);
                }
            });
        }
        return ZkReply.created(created, node.stat());
    }

    /** Deletes a childless znode whose version is {@code version} (or any, with -1); the reply has zxid {@code zxid}. */
    public ZkReply delete(String path, int version, long zxid) {
        return delete(path, version, zxid, null);
    }

    /**
     * {@link #delete(String, int, long)} checking {@code version} against {@code currentVersion}
     * instead of this tree's copy of the node's version when not null: a Volery partition that does
     * not own the node uses the version its owner sent (seed 004 (S-SMR) §IV Alg. 1 l.16-17).
     */
    ZkReply delete(String path, int version, long zxid, Integer currentVersion) {
        return deleteAt(path, version, zxid, currentVersion).withZxid(zxid);
    }

    private ZkReply deleteAt(String path, int version, long zxid, Integer currentVersion) {
        if (!ZkPaths.isValid(path) || path.equals(ZkPaths.ROOT)) {
            return ZkReply.error(ZkCode.BADARGUMENTS);
        }
        Znode node = nodes.get(path);
        if (node == null) {
            return ZkReply.error(ZkCode.NONODE);
        }
        if (version != ANY_VERSION && version != (currentVersion == null ? node.version : currentVersion)) {
            return ZkReply.error(ZkCode.BADVERSION);
        }
        if (!node.children.isEmpty()) {
            return ZkReply.error(ZkCode.NOTEMPTY);
        }
        nodes.remove(path);
        Znode parent = nodes.get(ZkPaths.parent(path));
        long pzxid = parent.pzxid;
        parent.children.remove(ZkPaths.name(path));
        parent.pzxid = Math.max(parent.pzxid, zxid);
        if (node.ephemeralOwner != 0) {
            sessions.disowns(node.ephemeralOwner, path);
        }
        if (journal != null) { // no undo allocated outside a multi
            journal.add(() -> {
                nodes.put(path, node);
                parent.children.add(ZkPaths.name(path));
                parent.pzxid = pzxid;
                if (node.ephemeralOwner != 0) {
                    sessions.owns(node.ephemeralOwner, path);
                }
            });
        }
        return ZkReply.ok();
    }

    /** Replaces a znode's data if its version is {@code version} (or any, with -1); the reply has zxid {@code zxid}. */
    public ZkReply setData(String path, byte[] data, int version, long zxid, long time) {
        return setData(path, data, version, zxid, time, true);
    }

    /** What {@link #setData} would answer with these arguments, changing nothing. */
    ZkReply previewSetData(String path, byte[] data, int version, long zxid, long time) {
        return setData(path, data, version, zxid, time, false);
    }

    private ZkReply setData(String path, byte[] data, int version, long zxid, long time, boolean apply) {
        return setDataAt(path, data, version, zxid, time, apply).withZxid(zxid);
    }

    private ZkReply setDataAt(String path, byte[] data, int version, long zxid, long time, boolean apply) {
        if (data == null || !ZkPaths.isValid(path)) {
            return ZkReply.error(ZkCode.BADARGUMENTS);
        }
        Znode node = nodes.get(path);
        if (node == null) {
            return ZkReply.error(ZkCode.NONODE);
        }
        if (version != ANY_VERSION && version != node.version) {
            return ZkReply.error(ZkCode.BADVERSION);
        }
        if (!apply) {
            return ZkReply.stat(setStat(node, node.version + 1, data.length, zxid, time));
        }
        byte[] oldData = node.data;
        int oldVersion = node.version;
        long oldMzxid = node.mzxid;
        long oldMtime = node.mtime;
        if (journal != null) { // no undo allocated outside a multi
            journal.add(() -> {
                node.data = oldData;
                node.version = oldVersion;
                node.mzxid = oldMzxid;
                node.mtime = oldMtime;
            });
        }
        node.data = data.clone();
        node.version++;
        node.mzxid = zxid;
        node.mtime = time;
        return ZkReply.stat(node.stat());
    }

    /**
     * The stat {@code node} would have after a setData of {@code dataLength} bytes at {@code zxid} and
     * {@code time} making its version {@code version}: a partition that does not own the node uses the
     * owner's version and changes nothing ({@link Multi}).
     */
    static Stat setStat(Znode node, int version, int dataLength, long zxid, long time) {
        return new Stat(node.czxid, zxid, node.ctime, time, version, node.cversion, node.aversion,
                node.ephemeralOwner, dataLength, node.children.size(), node.pzxid);
    }

    /**
     * A {@link SessionTick}: the sessions' statuses after touching the listed ones and expiring the
     * overdue ones ({@link ZnodeSessions} rules 2-4), whose ephemeral nodes are deleted at
     * {@code zxid} and added to {@code deleted}. The reply carries {@code zxid}.
     */
    public ZkReply tickSessions(long[] listed, long zxid, long time, List<String> deleted) {
        List<String> expired = new ArrayList<>();
        List<ZnodeSessions.Status> statuses = sessions.tick(listed, time, expired);
        deleteEphemerals(expired, zxid, deleted);
        List<String> tags = new ArrayList<>(statuses.size());
        for (ZnodeSessions.Status st : statuses) {
            tags.add(String.valueOf(st.tag()));
        }
        tags.add(Integer.toString(sessions.size()));
        return ZkReply.sessionStatuses(tags).withZxid(zxid);
    }

    /**
     * A {@link CloseSession}: ends session {@code id}, deleting its ephemeral nodes at {@code zxid}
     * (added to {@code deleted}). OK, with {@code zxid}.
     */
    public ZkReply closeSession(long id, long zxid, long time, List<String> deleted) {
        deleteEphemerals(sessions.close(id, time), zxid, deleted);
        return ZkReply.ok().withZxid(zxid);
    }

    private void deleteEphemerals(List<String> paths, long zxid, List<String> deleted) {
        for (String path : paths) {
            if (deleteAt(path, ANY_VERSION, zxid, null).isOk()) { // an ephemeral node has no children
                deleted.add(path);
            }
        }
    }

    /** The tree's sessions. */
    public ZnodeSessions sessions() {
        return sessions;
    }

    /** Starts journaling changes ({@link #rollback()} undoes them). */
    void begin() {
        journal = new ArrayList<>();
    }

    /** Keeps the changes since {@link #begin()}. */
    void commit() {
        journal = null;
    }

    /** Undoes the changes since {@link #begin()}, newest first. */
    void rollback() {
        List<Runnable> undo = journal;
        journal = null;
        for (int i = undo.size() - 1; i >= 0; i--) {
            undo.get(i).run();
        }
    }

    /** The node at {@code path}, or null (for {@link Multi}'s checks). */
    Znode node(String path) {
        return lookup(path);
    }

    /** A znode's data and stat (zxid 0: {@link #apply} stamps a read's reply with the caller's last zxid). */
    public ZkReply getData(String path) {
        Znode node = lookup(path);
        return node != null ? ZkReply.data(node.data, node.stat()) : missing(path);
    }

    /** A znode's stat (zxid 0, as {@link #getData}). */
    public ZkReply exists(String path) {
        Znode node = lookup(path);
        return node != null ? ZkReply.stat(node.stat()) : missing(path);
    }

    /** A znode's child names in ascending order, and its stat (zxid 0, as {@link #getData}). */
    public ZkReply getChildren(String path) {
        Znode node = lookup(path);
        return node != null ? ZkReply.children(new ArrayList<>(node.children), node.stat()) : missing(path);
    }

    /**
     * Executes {@code command} ({@link VoleryCommand#applyTo}): a write at {@code zxid} and
     * {@code time}; a read ignores {@code time} and answers with {@code zxid} as the last zxid of the
     * state it read. Either way the reply carries {@code zxid}.
     */
    public ZkReply apply(VoleryCommand command, long zxid, long time) {
        return command.applyTo(this, zxid, time);
    }

    /** The number of znodes, the root included. */
    public int size() {
        return nodes.size();
    }

    /** The tree in the versioned binary snapshot format ({@link ZnodeSnapshotFormat}). */
    public byte[] snapshot() {
        return ZnodeSnapshotFormat.write(this);
    }

    /**
     * The tree a snapshot holds.
     *
     * @throws IllegalArgumentException with the reason if the bytes are not a consistent snapshot
     */
    public static ZnodeTree restore(byte[] snapshot) {
        return ZnodeSnapshotFormat.read(snapshot);
    }

    /**
     * A 52-bit digest of the whole tree (paths, data and every stat field): the first bytes of the
     * SHA-256 of {@link #snapshot()}. Two trees have equal digests iff (with overwhelming
     * probability) they are equal, whatever operations or snapshot produced them. 52 bits so that a
     * metrics gauge (a double) carries it exactly. Costs a snapshot: O(size).
     */
    public long digest() {
        return ZnodeSnapshotFormat.digest(snapshot());
    }

    Map<String, Znode> nodes() {
        return nodes;
    }

    private Znode lookup(String path) {
        return ZkPaths.isValid(path) ? nodes.get(path) : null;
    }

    private static ZkReply missing(String path) {
        return ZkReply.error(ZkPaths.isValid(path) ? ZkCode.NONODE : ZkCode.BADARGUMENTS);
    }

    /** One znode's mutable state; the tree owns it. */
    static final class Znode {
        byte[] data;
        final long czxid;
        long mzxid;
        long pzxid;
        final long ctime;
        long mtime;
        int version;
        int cversion;
        int aversion;
        final TreeSet<String> children = new TreeSet<>();

        final long ephemeralOwner;

        Znode(byte[] data, long czxid, long ctime, int version, int cversion, long ephemeralOwner) {
            this.ephemeralOwner = ephemeralOwner;
            this.data = data;
            this.czxid = czxid;
            this.mzxid = czxid;
            this.pzxid = czxid;
            this.ctime = ctime;
            this.mtime = ctime;
            this.version = version;
            this.cversion = cversion;
        }

        Znode(byte[] data, long czxid, long mzxid, long pzxid, long ctime, long mtime, int version, int cversion,
              int aversion, long ephemeralOwner) {
            this.ephemeralOwner = ephemeralOwner;
            this.data = data;
            this.czxid = czxid;
            this.mzxid = mzxid;
            this.pzxid = pzxid;
            this.ctime = ctime;
            this.mtime = mtime;
            this.version = version;
            this.cversion = cversion;
            this.aversion = aversion;
        }

        Stat stat() {
            return new Stat(czxid, mzxid, ctime, mtime, version, cversion, aversion, ephemeralOwner, data.length,
                    children.size(), pzxid);
        }
    }
}
