package dev.parallax.examples.volery.zk;

import dev.parallax.core.wire.LogRateLimiter;
import dev.parallax.examples.volery.AddWatch;
import dev.parallax.examples.volery.Exists;
import dev.parallax.examples.volery.GetChildren;
import dev.parallax.examples.volery.RemoveWatches;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.WatchDrop;
import dev.parallax.examples.volery.WatchEvent;
import dev.parallax.examples.volery.WatchPoll;
import dev.parallax.examples.volery.Watcher;
import dev.parallax.examples.volery.ZkCode;
import dev.parallax.examples.volery.ZkReply;
import dev.parallax.examples.volery.ZnodeWatches;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.WatcherEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A front end's side of ZooKeeper watches over Volery. The watches themselves are replicated state of
 * the partition that owns each znode ({@link dev.parallax.examples.volery.ZnodeWatches}): a read with
 * watch=true carries this front end's {@link Watcher} (server id, session) and sets the watch where
 * it executes; a write that fires it queues a numbered event there for this front end. This hub
 * fetches those events and writes them to the sessions' connections as ZooKeeper notifications
 * (reply header xid -1, zxid -1, then a {@link WatcherEvent} with state SyncConnected).
 *
 * <p><b>When events are fetched.</b>
 * <ul>
 *   <li>Every {@link #POLL_INTERVAL_MS} ms, each partition where a session of this front end has a
 *       watch is polled ({@link WatchPoll}, at most one poll in flight per partition).
 *       The poll acknowledges the events delivered so far, which the partition then forgets.</li>
 *   <li>Before the reply to any request of a session with watches at the partitions the request
 *       reached, those partitions are polled and the events written first: the poll executes after
 *       the request, so a client sees the event of a watched znode before any reply that shows the
 *       change — ZooKeeper's ordering guarantee for the watched znode (the event may also come
 *       earlier than replies to requests pipelined before it).</li>
 * </ul>
 * Events are numbered per partition; the highest number delivered from a partition drops duplicates
 * (two polls may return the same events) and is the next poll's acknowledgement. An event for a session not connected here is dropped and counted: its
 * client re-arms its watches with setWatches when it reconnects.
 *
 * <p><b>Persistent watches</b> (addWatch): kept here until removeWatches or the session's end, and
 * not consumed by their events; a recursive one is held by every partition, so every partition is
 * polled. removeWatches and checkWatches answer NOWATCHER for a watch this front end did not set
 * for the session, as ZooKeeper's server does for one it does not hold.
 *
 * <p><b>setWatches</b> (a client reconnecting, ZooKeeper 3.4+; setWatches2 also re-adds persistent
 * watches, without events): Volery's zxids are per partition, so
 * the client's {@code relativeZxid} cannot tell whether a znode changed while it was away. The hub
 * answers conservatively: a data watch on an existing znode fires NodeDataChanged, a child watch
 * NodeChildrenChanged, an exist watch NodeCreated; a data or child watch on a missing znode fires
 * NodeDeleted; an exist watch on a missing znode is set again. A client may so see an event for a
 * znode that did not change (it re-reads), never miss one.
 *
 * <p><b>Clean-up.</b> A session's watches and events are dropped at every partition holding some when
 * the session closes or expires here ({@link WatchDrop}); before this run's first watch
 * at a partition, the partition drops everything a previous run of this front end left (those
 * sessions are gone).
 *
 * <p><b>Bounds</b> (the partition's, {@link ZnodeWatches}): a watch past the bound on watches is
 * answered THROTTLEDOP and counted ({@code watches{event=refused}}, a WARN now and then); when a
 * partition's queue of this front end's events overflows, it forgets every watch of this front end and
 * says so with a {@link WatchEvent#FRONT_END_RESET} event, and the hub closes the connection of every
 * session that had watches there (not the session: ZooKeeper's behaviour when a client loses its
 * server). The client reconnects with its session and re-registers with setWatches, which fires what
 * may have changed (above), so no change goes unnoticed; counted ({@code watches{event=overflow}}, a
 * WARN now and then).
 *
 * <p><b>Threads.</b> Thread-safe: one lock guards the registrations and marks (held briefly, never
 * across a backend call). Backend futures complete on any thread; channel writes are handed to the
 * channel's event loop. Never blocks.
 */
final class ZkWatchHub {
    /** How often partitions with watches of this front end are polled. */
    static final long POLL_INTERVAL_MS = 50;
    private static final Logger LOG = LoggerFactory.getLogger(ZkWatchHub.class);
    private static final LogRateLimiter REFUSED_WARNINGS = LogRateLimiter.withDefaults("refused Volery watches");
    private static final LogRateLimiter OVERFLOW_WARNINGS = LogRateLimiter.withDefaults("Volery watch queue overflows");
    private static final int SYNC_CONNECTED = 3;
    private static final int NOTIFICATION_XID = -1;
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final int frontEnd;
    private final VoleryBackend backend;
    private final ZkSessions sessions;
    private final ZkMetrics metrics;
    /**
     * Per session: its watches set here. Changed under the lock; concurrent so that a reply of a
     * session without watches checks it without the lock ({@link #beforeReply}).
     */
    private final Map<Long, SessionWatches> bySession = new ConcurrentHashMap<>();
    /** Per partition: the highest event number delivered (and acknowledged by the next poll). */
    private final Map<Integer, PartitionMarks> marks = new HashMap<>();
    /** The partitions told to forget a previous run of this front end ({@link #beforeFirstWatchAt}). */
    private final Set<Integer> cleared = new HashSet<>();
    /** Per partition, the watches set here (all sessions): the timer polls those with any. */
    private final int[] watchesAt;
    /**
     * Per session: its latest notification not yet written to the socket. A reply waits for it
     * ({@link #beforeReply}): an event delivered by another thread's poll is a task queued on the
     * connection's event loop, and a reply the loop writes directly would otherwise overtake it.
     * Set under the lock before the event's watch is consumed; removed by the write's completion.
     */
    private final Map<Long, CompletableFuture<Void>> writing = new ConcurrentHashMap<>();
    /** Events held behind the reply of the read that set their watch; under this object's lock. */
    private final ZkWatchArming arming = new ZkWatchArming();

    /** One session's watches set here: one-shot data (and exist) and child watches, persistent ones. */
    private static final class SessionWatches {
        final Set<String> data = new HashSet<>();
        final Set<String> child = new HashSet<>();
        final Set<String> persistent = new HashSet<>();
        final Set<String> recursive = new HashSet<>();

        boolean isEmpty() {
            return data.isEmpty() && child.isEmpty() && persistent.isEmpty() && recursive.isEmpty();
        }
    }

    /** The partitions holding {@code path}'s watch of that kind: a recursive one is held everywhere. */
    private Set<Integer> holders(String path, boolean recursive) {
        Set<Integer> at = new TreeSet<>();
        if (recursive) {
            for (int p = 0; p < watchesAt.length; p++) {
                at.add(p);
            }
        } else {
            at.add(backend.partitionOf(path));
        }
        return at;
    }

    /** Records (+1) or forgets (-1) one watch in the per-partition counts. */
    private void count(String path, boolean recursive, int delta) {
        for (int p : holders(path, recursive)) {
            watchesAt[p] += delta;
        }
    }

    /** The partitions holding any of {@code w}'s watches. */
    private Set<Integer> holders(SessionWatches w) {
        Set<Integer> at = new TreeSet<>();
        for (Set<String> one : List.of(w.data, w.child, w.persistent)) {
            one.forEach(path -> at.add(backend.partitionOf(path)));
        }
        w.recursive.forEach(path -> at.addAll(holders(path, true)));
        return at;
    }

    private static final class PartitionMarks {
        long acked;
        boolean polling;
    }

    ZkWatchHub(int frontEnd, VoleryBackend backend, ZkSessions sessions, ZkMetrics metrics) {
        this.frontEnd = frontEnd;
        this.backend = backend;
        this.sessions = sessions;
        this.metrics = metrics;
        this.watchesAt = new int[backend.partitions()];
    }

    /** This front end's watcher for {@code session}. */
    Watcher watcher(long session) {
        return new Watcher(frontEnd, session);
    }

    /**
     * Before this front end's first watch at {@code partition}: the partition forgets what a previous
     * run of this front end left there (its sessions are gone). Sent ahead of the read that sets the
     * watch, on the same client stream, so it executes first. Not sent by front ends that never set a
     * watch.
     */
    void beforeFirstWatchAt(int partition) {
        synchronized (this) {
            if (!cleared.add(partition)) {
                return;
            }
        }
        backend.submit(new WatchDrop(partition, frontEnd, WatchDrop.ALL_SESSIONS))
                .whenComplete((r, e) -> {
                    if (e != null) {
                        LOG.info("front end {}: clearing partition {}'s old watches failed ({}); they are"
                                + " dropped when their events pile up", frontEnd, partition, e.toString());
                    }
                });
    }

    /**
     * A read that asked for a watch answered {@code reply}: records the watch if the partition set one
     * (getData or getChildren of an existing znode, exists of any).
     */
    void onWatchRead(long session, VoleryCommand read, ZkReply reply) {
        if (!ZnodeWatches.setsWatch(read, reply)) {
            if (read.watcher() != null && reply.code() == ZkCode.THROTTLEDOP) {
                refused(session, read.path());
            }
            return;
        }
        metrics.watch(ZkMetrics.WatchEvent.SET);
        synchronized (this) {
            SessionWatches w = bySession.computeIfAbsent(session, s -> new SessionWatches());
            boolean recursive = read instanceof AddWatch a && a.recursive();
            Set<String> kind = read instanceof GetChildren ? w.child
                    : read instanceof AddWatch ? (recursive ? w.recursive : w.persistent) : w.data;
            if (kind.add(read.path())) {
                count(read.path(), recursive, +1);
            }
        }
    }

    /**
     * Request {@code xid} of {@code session}, a read that sets a watch, is being sent: if the session
     * has no such watch on the path yet, the watch's events wait for the read's reply
     * ({@link ZkWatchArming}; {@link #replied}).
     */
    synchronized void arming(long session, int xid, VoleryCommand read) {
        SessionWatches w = bySession.get(session);
        Set<String> kind = w == null ? null : read instanceof GetChildren ? w.child : w.data;
        if (kind == null || !kind.contains(read.path())) {
            arming.arming(session, xid, read.path());
        }
    }

    /** Whether a read of {@code session} is arming a watch ({@link #replied} has work); any thread, no lock. */
    boolean isArming(long session) {
        return arming.holds(session);
    }

    /** The reply to request {@code xid} of {@code session} is written: the events it held back go now. */
    void replied(long session, int xid) {
        List<WatchEvent> release;
        synchronized (this) {
            release = arming.replied(session, xid);
        }
        for (WatchEvent e : release) {
            write(e.session(), e.type(), e.path());
        }
    }

    /**
     * Before a command that sets a watch ({@code command.watcher()} not null): the partitions that
     * will hold it forget a previous run of this front end first ({@link #beforeFirstWatchAt}).
     */
    void beforeSetting(VoleryCommand command) {
        boolean recursive = command instanceof AddWatch a && a.recursive();
        for (int p : holders(command.path(), recursive)) {
            beforeFirstWatchAt(p);
        }
    }

    /**
     * ZooKeeper's removeWatches of {@code session}'s watches of {@code type} (1 children, 2 data,
     * 3 any; data includes the persistent ones) on {@code path}: NOWATCHER if none was set here,
     * else OK once every partition holding them dropped them.
     */
    CompletableFuture<Integer> removeWatches(long session, String path, int type) {
        synchronized (this) {
            SessionWatches w = bySession.get(session);
            if (w == null || !has(w, path, type)) {
                return CompletableFuture.completedFuture(ZkCodes.NOWATCHER);
            }
            if (type != ZnodeWatches.REMOVE_DATA && w.child.remove(path)) {
                count(path, false, -1);
            }
            if (type != ZnodeWatches.REMOVE_CHILDREN) {
                for (Set<String> kind : List.of(w.data, w.persistent)) {
                    if (kind.remove(path)) {
                        count(path, false, -1);
                    }
                }
                if (w.recursive.remove(path)) {
                    count(path, true, -1);
                }
            }
            if (w.isEmpty()) {
                bySession.remove(session);
            }
        }
        return backend.submit(new RemoveWatches(path, type, watcher(session)))
                .handle((r, e) -> e == null && r.isOk() ? 0 : e == null ? r.code().code() : ZkCodes.CONNECTIONLOSS);
    }

    /** ZooKeeper's checkWatches: whether {@code session} has a watch of {@code type} on {@code path} here. */
    synchronized boolean hasWatch(long session, String path, int type) {
        SessionWatches w = bySession.get(session);
        return w != null && has(w, path, type);
    }

    private static boolean has(SessionWatches w, String path, int type) {
        boolean child = w.child.contains(path);
        boolean data = w.data.contains(path) || w.persistent.contains(path) || w.recursive.contains(path);
        return type == ZnodeWatches.REMOVE_CHILDREN ? child : type == ZnodeWatches.REMOVE_DATA ? data : child || data;
    }

    /**
     * Completes once the events that {@code command} may have made visible are written to
     * {@code session}'s connection: polls the partitions the command reached where the session has
     * watches (at once if none). Never completes exceptionally.
     */
    CompletableFuture<Void> beforeReply(long session, VoleryCommand command) {
        return beforeReply(session, command.path(), command.toEveryPartition());
    }

    /** {@link #beforeReply(long, VoleryCommand)} for a command on {@code path}, or on every partition. */
    CompletableFuture<Void> beforeReply(long session, String path, boolean everyPartition) {
        if (!bySession.containsKey(session)) {
            // the common case: no watch, no lock. Checked after bySession: a poll marks the write
            // before it consumes the session's last watch.
            return written(session);
        }
        Set<Integer> partitions = new TreeSet<>();
        synchronized (this) {
            SessionWatches w = bySession.get(session);
            if (w == null || w.isEmpty()) {
                return written(session);
            }
            int owner = everyPartition ? -1 : backend.partitionOf(path);
            for (int p : holders(w)) {
                addIf(partitions, p, owner);
            }
        }
        List<CompletableFuture<?>> polls = new ArrayList<>();
        for (int p : partitions) {
            polls.add(poll(p));
        }
        return CompletableFuture.allOf(polls.toArray(CompletableFuture[]::new)).handle((v, e) -> null)
                .thenCompose(v -> written(session));
    }

    /**
     * Completes once every notification handed to {@code session}'s connection so far is written
     * (written in order, so the latest one's write suffices); never exceptionally.
     */
    private CompletableFuture<Void> written(long session) {
        CompletableFuture<Void> latest = writing.get(session);
        return latest == null ? DONE : latest;
    }

    private static void addIf(Set<Integer> partitions, int partition, int owner) {
        if (owner < 0 || partition == owner) {
            partitions.add(partition);
        }
    }

    /** The timer: polls each partition where some session has a watch and no poll is in flight. */
    void pollAll() {
        Set<Integer> due = new TreeSet<>();
        synchronized (this) {
            for (int p = 0; p < watchesAt.length; p++) {
                PartitionMarks m = marks.computeIfAbsent(p, x -> new PartitionMarks());
                if (watchesAt[p] > 0 && !m.polling) {
                    m.polling = true;
                    due.add(p);
                }
            }
        }
        for (int p : due) {
            poll(p).whenComplete((v, e) -> {
                synchronized (this) {
                    marks.get(p).polling = false;
                }
            });
        }
    }

    /** Polls {@code partition} and writes the events it returns; never completes exceptionally. */
    private CompletableFuture<Void> poll(int partition) {
        long acked;
        synchronized (this) {
            acked = marks.computeIfAbsent(partition, p -> new PartitionMarks()).acked;
        }
        return backend.submit(new WatchPoll(partition, frontEnd, acked)).handle((reply, e) -> {
            if (e != null || reply.events() == null) {
                metrics.watch(ZkMetrics.WatchEvent.POLL_FAILED);
                LOG.debug("front end {}: watch poll of partition {} failed: {}", frontEnd, partition,
                        e != null ? e.toString() : reply);
            } else {
                deliver(partition, reply.events());
            }
            return null;
        });
    }

    private synchronized void deliver(int partition, List<WatchEvent> events) {
        PartitionMarks m = marks.computeIfAbsent(partition, p -> new PartitionMarks());
        for (WatchEvent e : events) {
            // A poll answers the partition's queue in order from its first event after the poll's
            // acknowledgement, and the queue only grows at its tail: an event numbered no higher
            // than one delivered came with an overlapping poll.
            if (e.seq() <= m.acked) {
                continue;
            }
            m.acked = e.seq();
            if (e.type() == WatchEvent.FRONT_END_RESET) {
                overflowed(partition);
                continue;
            }
            if (!arming.defer(e)) {
                write(e.session(), e.type(), e.path()); // marks the write before fired() may drop the session
            }
            fired(e.session(), e.type(), e.path());
        }
    }

    /** A watch the partition's bound refused (the client got THROTTLEDOP): counted, and a WARN now and then. */
    private void refused(long session, String path) {
        metrics.watch(ZkMetrics.WatchEvent.REFUSED);
        REFUSED_WARNINGS.warn(LOG, "front end {}: session 0x{}'s watch on {} refused: its partition holds as many"
                + " watches as it may (answered THROTTLEDOP)", frontEnd, Long.toHexString(session), path);
    }

    /**
     * The partition's queue of this front end's events overflowed and it forgot every watch and event
     * of this front end there: the sessions that had watches there lose their connection (not their
     * session), and their clients reconnect and re-register with setWatches, which fires what changed
     * meanwhile. Under the lock.
     */
    private void overflowed(int partition) {
        metrics.watch(ZkMetrics.WatchEvent.OVERFLOW);
        List<Long> reset = new ArrayList<>();
        for (Map.Entry<Long, SessionWatches> e : bySession.entrySet()) {
            if (holders(e.getValue()).contains(partition)) {
                reset.add(e.getKey());
            }
        }
        OVERFLOW_WARNINGS.warn(LOG, "front end {}: partition {} forgot this front end's watches (its queue of events"
                + " overflowed); closing the connections of {} session(s) so that their clients re-register",
                frontEnd, partition, reset.size());
        for (long session : reset) {
            forget(bySession.remove(session));
            Channel ch = sessions.channelOf(session);
            if (ch != null) {
                ch.close();
            }
        }
    }

    /** Removes {@code w}'s watches from the per-partition counts. */
    private void forget(SessionWatches w) {
        for (Set<String> one : List.of(w.data, w.child, w.persistent)) {
            one.forEach(path -> count(path, false, -1));
        }
        w.recursive.forEach(path -> count(path, true, -1));
    }

    /** The client-side view of a fired watch: which registrations it consumes here. */
    private void fired(long session, int type, String path) {
        SessionWatches w = bySession.get(session);
        if (w == null) {
            return;
        }
        // persistent watches stay; one-shot ones are gone
        if (type != WatchEvent.NODE_CHILDREN_CHANGED && w.data.remove(path)) {
            count(path, false, -1);
        }
        if ((type == WatchEvent.NODE_DELETED || type == WatchEvent.NODE_CHILDREN_CHANGED) && w.child.remove(path)) {
            count(path, false, -1);
        }
        if (w.isEmpty()) {
            bySession.remove(session);
        }
    }

    /** Writes one notification to the session's connection, if it has one here. */
    private void write(long session, int type, String path) {
        Channel ch = sessions.channelOf(session);
        if (ch == null || !ch.isActive()) {
            metrics.watch(ZkMetrics.WatchEvent.UNDELIVERABLE);
            return;
        }
        metrics.watch(ZkMetrics.WatchEvent.DELIVERED); // counted first: a client may see the event at once
        ByteBuf out = ch.alloc().ioBuffer();
        ZkWire.writeReply(out, new ReplyHeader(NOTIFICATION_XID, -1L, 0), new WatcherEvent(type, SYNC_CONNECTED, path));
        CompletableFuture<Void> done = new CompletableFuture<>();
        writing.put(session, done);
        ch.writeAndFlush(out).addListener(f -> {
            writing.remove(session, done);
            done.complete(null); // written or failed (the connection closed): either way not pending
        });
    }

    /**
     * A reconnecting client's setWatches: re-arms or fires each watch as the class describes;
     * completes once the events are written (never exceptionally: a path whose check fails fires
     * conservatively as changed).
     */
    CompletableFuture<Void> setWatches(long session, List<String> data, List<String> exist, List<String> child,
                                       List<String> persistent, List<String> recursive) {
        List<CompletableFuture<?>> checks = new ArrayList<>();
        for (String path : nonNull(persistent)) {
            checks.add(addWatch(session, path, false));
        }
        for (String path : nonNull(recursive)) {
            checks.add(addWatch(session, path, true));
        }
        for (String path : nonNull(data)) {
            checks.add(exists(path).thenAccept(found -> write(session,
                    found ? WatchEvent.NODE_DATA_CHANGED : WatchEvent.NODE_DELETED, path)));
        }
        for (String path : nonNull(child)) {
            checks.add(exists(path).thenAccept(found -> write(session,
                    found ? WatchEvent.NODE_CHILDREN_CHANGED : WatchEvent.NODE_DELETED, path)));
        }
        for (String path : nonNull(exist)) {
            Exists read;
            try {
                read = new Exists(path, watcher(session));
            } catch (IllegalArgumentException | NullPointerException e) {
                continue; // a path no znode can have: nothing to watch
            }
            beforeSetting(read);
            checks.add(backend.submit(read).handle((reply, e) -> {
                if (e == null && reply.isOk()) {
                    onWatchRead(session, read, reply); // set, and the node exists: it was created
                    write(session, WatchEvent.NODE_CREATED, path);
                } else if (e == null && reply.code() == ZkCode.NONODE) {
                    onWatchRead(session, read, reply);
                } else {
                    write(session, WatchEvent.NODE_CREATED, path);
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).handle((v, e) -> null);
    }

    /**
     * A persistent watch ({@code recursive}: on the subtree) for {@code session}: completes with the
     * backend's reply (BADARGUMENTS for an invalid path) once the partitions hold it.
     */
    CompletableFuture<ZkReply> addWatch(long session, String path, boolean recursive) {
        AddWatch add;
        try {
            add = new AddWatch(path, recursive, watcher(session));
        } catch (IllegalArgumentException | NullPointerException e) {
            return CompletableFuture.completedFuture(ZkReply.error(ZkCode.BADARGUMENTS));
        }
        beforeSetting(add);
        return backend.submit(add).thenApply(reply -> {
            if (reply.isOk() || reply.code() == ZkCode.THROTTLEDOP) {
                onWatchRead(session, add, reply);
            }
            return reply;
        });
    }

    /** Whether {@code path} exists; true (changed, conservatively) if the check fails. */
    private CompletableFuture<Boolean> exists(String path) {
        Exists read;
        try {
            read = new Exists(path);
        } catch (IllegalArgumentException | NullPointerException e) {
            return CompletableFuture.completedFuture(false);
        }
        return backend.submit(read).handle((reply, e) -> e != null || reply.code() != ZkCode.NONODE);
    }

    /** {@code session} ended here: every partition holding its watches drops them. */
    void sessionEnded(long session) {
        Set<Integer> partitions = new TreeSet<>();
        synchronized (this) {
            arming.ended(session);
            SessionWatches w = bySession.remove(session);
            if (w == null) {
                return;
            }
            partitions.addAll(holders(w));
            for (Set<String> kind : List.of(w.data, w.child, w.persistent)) {
                kind.forEach(path -> count(path, false, -1));
            }
            w.recursive.forEach(path -> count(path, true, -1));
        }
        for (int p : partitions) {
            backend.submit(new WatchDrop(p, frontEnd, session));
        }
    }

    private static List<String> nonNull(List<String> paths) {
        return paths == null ? List.of() : paths;
    }
}
