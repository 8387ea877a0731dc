package dev.parallax.examples.volery;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * ZooKeeper's one-shot watches as replicated, deterministic state of a Volery partition (ZooKeeper's
 * semantics, {@code DataTree} and {@code WatchManager}; seed 004 (S-SMR / Eyrie / Volery) is silent on
 * watches). A watch lives at the partition that owns its znode, where the read that set it executed;
 * when a write fires it, the event is queued, numbered, for the front end that holds the session, and
 * that front end fetches it with a {@link WatchPoll}. Every replica of the partition
 * executes the same commands, so every replica holds the same watches and queues and answers a poll
 * alike; the state is part of the partition's snapshot.
 *
 * <p>ZooKeeper's rules, per watcher (front end, session), one event per watcher and firing:
 * <ul>
 *   <li>set by getData (an existing node) and exists (existing or not): a <em>data</em> watch;
 *       by getChildren (an existing node): a <em>child</em> watch. A read of a missing node by
 *       getData or getChildren sets nothing (it answers NONODE).</li>
 *   <li>create of P: data watches on P fire NodeCreated; child watches on P's parent fire
 *       NodeChildrenChanged.</li>
 *   <li>setData of P: data watches on P fire NodeDataChanged.</li>
 *   <li>delete of P: data and child watches on P fire NodeDeleted (once per watcher); child watches on
 *       P's parent fire NodeChildrenChanged.</li>
 *   <li>a failed write fires nothing; a fired one-shot watch is gone.</li>
 *   <li><b>persistent</b> watches (ZooKeeper 3.6's addWatch, {@link #addPersistent}) stay: a
 *       persistent one on P fires what a data and a child watch on P would; a persistent
 *       <em>recursive</em> one on P fires NodeCreated, NodeDataChanged and NodeDeleted for P and
 *       every descendant (no NodeChildrenChanged). A recursive watch is held by every partition
 *       (its subtree spans them) and fired only by the owner of the changed path, where that path's
 *       every write executes ({@link #ownership}).</li>
 * </ul>
 *
 * <p><b>Bounds and clean-up</b> (the front ends' side, not ZooKeeper's), both visible to the client:
 * at most {@link #MAX_WATCHES} registrations — a read or addWatch that would set one more sets none
 * and answers THROTTLEDOP instead of its result (ZooKeeper's "not executed at all, retry with
 * back-off"; counted in {@link #refusedWatches()}); at most {@link #MAX_PENDING} queued events per
 * front end — past that everything of the front end is forgotten (counted in
 * {@link #forgottenFrontEnds()}) and one {@link WatchEvent#FRONT_END_RESET} event queued in its
 * place, on which the front end closes its sessions' connections: their clients reconnect and
 * re-register their watches with setWatches, which fires what changed meanwhile (what ZooKeeper does
 * when a client loses its server). A front end drops its session's watches and events when the
 * session ends, and every one of its watches when it starts ({@link WatchDrop}).
 *
 * <p><b>Snapshot</b> ({@link #snapshot()}, {@link #restore}), big-endian: {@code int count} data
 * watches, then child, persistent and persistent recursive watches, each as {@code path, int watchers, watchers x (int frontEnd, long
 * session)}; then {@code int frontEnds}, each {@code int frontEnd, long nextSeq, int events, events x
 * (long seq, long session, byte type, path)}; then {@code long refused, long forgotten}; paths as
 * {@code int length, UTF-8}. Sorted maps and insertion-ordered sets: equal states write equal bytes.
 *
 * <p>Not thread-safe: the partition's executor owns it (the partition's lock guards it).
 */
public final class ZnodeWatches {
    /** The most registrations (data plus child watches) a partition keeps. */
    public static final int MAX_WATCHES = 1 << 20;
    /** The most events a partition queues for one front end before it forgets that front end. */
    public static final int MAX_PENDING = 1 << 16;
    /** The most events one poll returns. */
    public static final int MAX_POLL = 1024;

    private final TreeMap<String, LinkedHashSet<Watcher>> dataWatches = new TreeMap<>();
    private final TreeMap<String, LinkedHashSet<Watcher>> childWatches = new TreeMap<>();
    private final TreeMap<String, LinkedHashSet<Watcher>> persistentWatches = new TreeMap<>();
    private final TreeMap<String, LinkedHashSet<Watcher>> recursiveWatches = new TreeMap<>();
    private int partition;
    private int partitions = 1;
    private final TreeMap<Integer, Queue> queues = new TreeMap<>();
    private final int maxWatches;
    private final int maxPending;
    private int watches;
    private long refused;
    private long forgotten;

    /** No watches, no events; at most {@link #MAX_WATCHES} watches and {@link #MAX_PENDING} events per front end. */
    public ZnodeWatches() {
        this(MAX_WATCHES, MAX_PENDING);
    }

    /**
     * No watches, no events, with other bounds (tests; every replica of a partition must use the same).
     *
     * @throws IllegalArgumentException if a bound is not positive
     */
    public ZnodeWatches(int maxWatches, int maxPending) {
        if (maxWatches < 1 || maxPending < 1) {
            throw new IllegalArgumentException("watch bounds must be positive: " + maxWatches + ", " + maxPending);
        }
        this.maxWatches = maxWatches;
        this.maxPending = maxPending;
    }

    /** One front end's queued events and the number of the next one. */
    private static final class Queue {
        long nextSeq = 1;
        final ArrayDeque<WatchEvent> events = new ArrayDeque<>();
    }

    /**
     * What {@code command} does to the watches, after it executed here with {@code reply}: a read
     * carrying a {@link Watcher} sets its watch (by the rules above); a successful write fires the
     * watches it triggers. Other commands change nothing. Returns the reply to send: {@code reply},
     * or THROTTLEDOP (with its zxid) for a read whose watch the bound refused.
     */
    public ZkReply onExecuted(VoleryCommand command, ZkReply reply) {
        if (command instanceof GetData || command instanceof Exists) {
            if (setsWatch(command, reply) && !add(dataWatches, command.path(), command.watcher())) {
                return ZkReply.error(ZkCode.THROTTLEDOP).withZxid(reply.zxid());
            }
        } else if (command instanceof GetChildren) {
            if (setsWatch(command, reply) && !add(childWatches, command.path(), command.watcher())) {
                return ZkReply.error(ZkCode.THROTTLEDOP).withZxid(reply.zxid());
            }
        } else if (!reply.isOk() || watches == 0) {
            return reply; // a failed write fires nothing; with no watch held, nothing to fire (no allocation)
        } else if (command instanceof Create) {
            String path = reply.path();
            Set<Watcher> notified = new LinkedHashSet<>();
            fire(dataWatches, path, WatchEvent.NODE_CREATED, notified);
            firePersistent(path, WatchEvent.NODE_CREATED, notified);
            String parent = ZkPaths.parent(path);
            Set<Watcher> parents = new LinkedHashSet<>();
            fire(childWatches, parent, WatchEvent.NODE_CHILDREN_CHANGED, parents);
            firePersistent(parent, WatchEvent.NODE_CHILDREN_CHANGED, parents);
        } else if (command instanceof SetData s) {
            Set<Watcher> notified = new LinkedHashSet<>();
            fire(dataWatches, s.path(), WatchEvent.NODE_DATA_CHANGED, notified);
            firePersistent(s.path(), WatchEvent.NODE_DATA_CHANGED, notified);
        } else if (command instanceof Delete d) {
            Set<Watcher> notified = new LinkedHashSet<>();
            fire(dataWatches, d.path(), WatchEvent.NODE_DELETED, notified);
            firePersistent(d.path(), WatchEvent.NODE_DELETED, notified);
            fire(childWatches, d.path(), WatchEvent.NODE_DELETED, notified);
            String parent = ZkPaths.parent(d.path());
            Set<Watcher> parents = new LinkedHashSet<>();
            fire(childWatches, parent, WatchEvent.NODE_CHILDREN_CHANGED, parents);
            firePersistent(parent, WatchEvent.NODE_CHILDREN_CHANGED, parents);
        }
        return reply;
    }

    /**
     * Whether {@code read} (exists, getData or getChildren with a {@link Watcher}) that answered
     * {@code reply} sets its watch: getData and getChildren of an existing znode, exists of any
     * (ZooKeeper's {@code DataTree}). The front end records its sessions' watches by the same rule.
     */
    public static boolean setsWatch(VoleryCommand read, ZkReply reply) {
        if (read.watcher() == null) {
            return false;
        }
        return read instanceof Exists ? reply.isOk() || reply.code() == ZkCode.NONODE : reply.isOk();
    }

    /**
     * Sets this partition's place among {@code partitions} (the partition numbers the oracle uses):
     * recursive watches, held at every partition, fire only at the owner of the changed path, where
     * its every write executes. The in-process backend keeps the default, one partition.
     */
    public void ownership(int partition, int partitions) {
        this.partition = partition;
        this.partitions = partitions;
    }

    /**
     * A persistent watch ({@code recursive} false: events of {@code path} itself, its children
     * changing included, ZooKeeper's {@code AddWatchMode.PERSISTENT}) or a persistent recursive one
     * (events of {@code path} and every descendant, no NodeChildrenChanged:
     * {@code PERSISTENT_RECURSIVE}). Neither is removed by firing. False if the bound on watches
     * refused it.
     */
    public boolean addPersistent(String path, boolean recursive, Watcher watcher) {
        return add(recursive ? recursiveWatches : persistentWatches, path, watcher);
    }

    /**
     * ZooKeeper's removeWatches for {@code watcher} on {@code path}: {@code type} 1 (children) the
     * one-shot child watch; 2 (data) the one-shot data watch and the persistent ones; 3 (any) all.
     */
    public void remove(String path, int type, Watcher watcher) {
        if (type == REMOVE_CHILDREN || type == REMOVE_ANY) {
            removeWatcher(childWatches, path, watcher);
        }
        if (type == REMOVE_DATA || type == REMOVE_ANY) {
            removeWatcher(dataWatches, path, watcher);
            removeWatcher(persistentWatches, path, watcher);
            removeWatcher(recursiveWatches, path, watcher);
        }
    }

    /** ZooKeeper's {@code WatcherType.Children}. */
    public static final int REMOVE_CHILDREN = 1;
    /** ZooKeeper's {@code WatcherType.Data}. */
    public static final int REMOVE_DATA = 2;
    /** ZooKeeper's {@code WatcherType.Any}. */
    public static final int REMOVE_ANY = 3;

    private void removeWatcher(Map<String, LinkedHashSet<Watcher>> table, String path, Watcher watcher) {
        LinkedHashSet<Watcher> set = table.get(path);
        if (set != null && set.remove(watcher)) {
            watches--;
            if (set.isEmpty()) {
                table.remove(path);
            }
        }
    }

    /**
     * The persistent watches {@code path}'s change fires, kept: those on the path itself and, at the
     * path's owner, the recursive ones on it and its ancestors (not for NodeChildrenChanged).
     */
    private void firePersistent(String path, int type, Set<Watcher> notified) {
        LinkedHashSet<Watcher> set = persistentWatches.get(path);
        if (set != null) {
            for (Watcher w : set) {
                if (notified.add(w)) {
                    queue(w, type, path);
                }
            }
        }
        if (recursiveWatches.isEmpty() || type == WatchEvent.NODE_CHILDREN_CHANGED
                || VoleryOracle.partitionOf(path, partitions) != partition) {
            return;
        }
        for (String at = path; ; at = ZkPaths.parent(at)) {
            LinkedHashSet<Watcher> r = recursiveWatches.get(at);
            if (r != null) {
                for (Watcher w : r) {
                    if (notified.add(w)) {
                        queue(w, type, path);
                    }
                }
            }
            if (at.equals(ZkPaths.ROOT)) {
                return;
            }
        }
    }

    /**
     * A poll by {@code frontEnd}: forgets its events numbered up to {@code acked} (delivered) and
     * returns the next ones, at most {@link #MAX_POLL}, in order.
     */
    public List<WatchEvent> poll(int frontEnd, long acked) {
        Queue q = queues.get(frontEnd);
        if (q == null) {
            return List.of();
        }
        while (!q.events.isEmpty() && q.events.peekFirst().seq() <= acked) {
            q.events.pollFirst();
        }
        return peek(frontEnd, acked);
    }

    /** What {@link #poll} would return, changing nothing. */
    public List<WatchEvent> peek(int frontEnd, long acked) {
        Queue q = queues.get(frontEnd);
        if (q == null) {
            return List.of();
        }
        List<WatchEvent> out = new ArrayList<>(Math.min(q.events.size(), MAX_POLL));
        for (WatchEvent e : q.events) {
            if (out.size() == MAX_POLL) {
                break;
            }
            if (e.seq() > acked) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * Forgets the watches and queued events of {@code session} on {@code frontEnd}, or, with
     * {@code session} {@link WatchDrop#ALL_SESSIONS}, everything of that front end
     * (the numbering of its events goes on).
     */
    public void drop(int frontEnd, long session) {
        boolean all = session == WatchDrop.ALL_SESSIONS;
        removeWatchers(dataWatches, w -> w.frontEnd() == frontEnd && (all || w.session() == session));
        removeWatchers(childWatches, w -> w.frontEnd() == frontEnd && (all || w.session() == session));
        removeWatchers(persistentWatches, w -> w.frontEnd() == frontEnd && (all || w.session() == session));
        removeWatchers(recursiveWatches, w -> w.frontEnd() == frontEnd && (all || w.session() == session));
        Queue q = queues.get(frontEnd);
        if (q != null) {
            q.events.removeIf(e -> all || e.session() == session);
        }
    }

    /** The registrations held (data plus child watches). */
    public int watchCount() {
        return watches;
    }

    /** The events queued for {@code frontEnd}. */
    public int pending(int frontEnd) {
        Queue q = queues.get(frontEnd);
        return q == null ? 0 : q.events.size();
    }

    /** Watches not set because {@link #MAX_WATCHES} were held. */
    public long refusedWatches() {
        return refused;
    }

    /** Front ends forgotten because {@link #MAX_PENDING} of their events were queued. */
    public long forgottenFrontEnds() {
        return forgotten;
    }

    /** Adds the watch; false if the bound refused it (a watch already held is no new one: true). */
    private boolean add(Map<String, LinkedHashSet<Watcher>> table, String path, Watcher watcher) {
        LinkedHashSet<Watcher> set = table.get(path);
        if (set != null && set.contains(watcher)) {
            return true;
        }
        if (watches >= maxWatches) {
            refused++;
            return false;
        }
        table.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(watcher);
        watches++;
        return true;
    }

    private void fire(Map<String, LinkedHashSet<Watcher>> table, String path, int type, Set<Watcher> notified) {
        LinkedHashSet<Watcher> set = table.remove(path);
        if (set == null) {
            return;
        }
        watches -= set.size();
        for (Watcher w : set) {
            if (notified == null || notified.add(w)) {
                queue(w, type, path);
            }
        }
    }

    private void queue(Watcher w, int type, String path) {
        Queue q = queues.computeIfAbsent(w.frontEnd(), f -> new Queue());
        if (q.events.size() >= maxPending) {
            forgotten++;
            drop(w.frontEnd(), WatchDrop.ALL_SESSIONS);
            q.events.addLast(new WatchEvent(q.nextSeq++, WatchDrop.ALL_SESSIONS, WatchEvent.FRONT_END_RESET, "/"));
            return;
        }
        q.events.addLast(new WatchEvent(q.nextSeq++, w.session(), type, path));
    }

    private void removeWatchers(Map<String, LinkedHashSet<Watcher>> table, java.util.function.Predicate<Watcher> which) {
        for (Iterator<LinkedHashSet<Watcher>> it = table.values().iterator(); it.hasNext(); ) {
            LinkedHashSet<Watcher> set = it.next();
            int before = set.size();
            set.removeIf(which);
            watches -= before - set.size();
            if (set.isEmpty()) {
                it.remove();
            }
        }
    }

    /** The state as bytes (the format on the class); equal states give equal bytes. */
    public byte[] snapshot() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            writeTable(out, dataWatches);
            writeTable(out, childWatches);
            writeTable(out, persistentWatches);
            writeTable(out, recursiveWatches);
            out.writeInt(queues.size());
            for (Map.Entry<Integer, Queue> e : queues.entrySet()) {
                out.writeInt(e.getKey());
                out.writeLong(e.getValue().nextSeq);
                out.writeInt(e.getValue().events.size());
                for (WatchEvent ev : e.getValue().events) {
                    out.writeLong(ev.seq());
                    out.writeLong(ev.session());
                    out.writeByte(ev.type());
                    writeString(out, ev.path());
                }
            }
            out.writeLong(refused);
            out.writeLong(forgotten);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
        }
        return bytes.toByteArray();
    }

    /**
     * The state {@code bytes} hold (exactly those bytes).
     *
     * @throws IllegalArgumentException with the reason if they are not a watch snapshot
     */
    public static ZnodeWatches restore(ByteBuffer bytes) {
        ByteBuffer in = bytes.duplicate();
        ZnodeWatches w = new ZnodeWatches();
        try {
            w.watches += readTable(in, w.dataWatches);
            w.watches += readTable(in, w.childWatches);
            w.watches += readTable(in, w.persistentWatches);
            w.watches += readTable(in, w.recursiveWatches);
            int frontEnds = count(in, 16);
            for (int i = 0; i < frontEnds; i++) {
                int frontEnd = in.getInt();
                Queue q = new Queue();
                q.nextSeq = in.getLong();
                int events = count(in, 21);
                for (int j = 0; j < events; j++) {
                    q.events.addLast(new WatchEvent(in.getLong(), in.getLong(), in.get(), string(in)));
                }
                if (w.queues.put(frontEnd, q) != null) {
                    throw new IllegalArgumentException("front end " + frontEnd + " twice");
                }
            }
            w.refused = in.getLong();
            w.forgotten = in.getLong();
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("watch state truncated", e);
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after the watch state");
        }
        return w;
    }

    private static void writeTable(DataOutputStream out, TreeMap<String, LinkedHashSet<Watcher>> table)
            throws IOException {
        out.writeInt(table.size());
        for (Map.Entry<String, LinkedHashSet<Watcher>> e : table.entrySet()) {
            writeString(out, e.getKey());
            out.writeInt(e.getValue().size());
            for (Watcher w : e.getValue()) {
                out.writeInt(w.frontEnd());
                out.writeLong(w.session());
            }
        }
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static int readTable(ByteBuffer in, TreeMap<String, LinkedHashSet<Watcher>> table) {
        int paths = count(in, 8);
        int total = 0;
        for (int i = 0; i < paths; i++) {
            String path = string(in);
            int watchers = count(in, 12);
            LinkedHashSet<Watcher> set = new LinkedHashSet<>();
            for (int j = 0; j < watchers; j++) {
                set.add(new Watcher(in.getInt(), in.getLong()));
            }
            if (set.isEmpty() || table.put(path, set) != null) {
                throw new IllegalArgumentException("watches of " + path + " empty or twice");
            }
            total += set.size();
        }
        return total;
    }

    /** A count of items of at least {@code minBytes} each, checked against what is left. */
    private static int count(ByteBuffer in, int minBytes) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining() / minBytes) {
            throw new IllegalArgumentException("bad count " + n + " (" + in.remaining() + " bytes left)");
        }
        return n;
    }

    private static String string(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0 || length > VoleryCommand.MAX_PATH_BYTES || length > in.remaining()) {
            throw new IllegalArgumentException("bad path length " + length);
        }
        ByteBuffer slice = in.slice();
        slice.limit(length);
        in.position(in.position() + length);
        String s = ZnodeSnapshotFormat.utf8OrNull(slice);
        if (s == null) {
            throw new IllegalArgumentException("path is not UTF-8");
        }
        return s;
    }
}
