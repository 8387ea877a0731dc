package dev.parallax.examples.volery.zk;

import dev.parallax.examples.volery.WatchEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps a watch's first event behind the reply of the read that set it. ZooKeeper answers a read
 * that sets a watch before any event of that watch (its client registers the watcher when the reply
 * arrives, and drops an event for a watch it does not know); the front end delivers events by
 * polling the partitions, independently of the replies, so an event fired by a write ordered just
 * after the read could otherwise overtake the read's reply — a lost event, and a LeaderLatch or lock
 * waiting for ever. A read that sets a new watch (the session has none of that kind on the path)
 * is <i>arming</i> from when it is sent until its reply is written; an event of the session on that
 * path meanwhile is deferred, then written right after the reply. Such an event comes from a write
 * ordered after the read (the watch did not exist before), so the reply may not show it: the read's
 * own wait for the events it may show ({@link ZkWatchHub#beforeReply}) never waits for a deferred one.
 *
 * <p>Threads: guarded by the hub's lock (every method but {@link #holds} is called under it; that
 * one reads a concurrent map, so that a reply of a session arming nothing costs no lock). Never blocks.
 */
final class ZkWatchArming {
    /** The reads arming a watch: session, then request xid, then path (read without the lock by {@link #holds}). */
    private final Map<Long, Map<Integer, String>> arming = new ConcurrentHashMap<>();
    private final Map<Long, List<WatchEvent>> deferred = new HashMap<>();

    /** Request {@code xid} of {@code session} sets a new watch on {@code path}. */
    void arming(long session, int xid, String path) {
        arming.computeIfAbsent(session, s -> new HashMap<>()).put(xid, path);
    }

    /** Whether a read of {@code session} is arming a watch now; any thread, no lock. */
    boolean holds(long session) {
        return arming.containsKey(session);
    }

    /** Whether {@code event} must wait for a reply; if so it is kept. */
    boolean defer(WatchEvent event) {
        Map<Integer, String> reads = arming.get(event.session());
        if (reads == null || !reads.containsValue(event.path())) {
            return false;
        }
        deferred.computeIfAbsent(event.session(), s -> new ArrayList<>()).add(event);
        return true;
    }

    /**
     * The reply to request {@code xid} of {@code session} is written: the deferred events it held
     * back (now none other holds them), in the order they came, to be written now.
     */
    List<WatchEvent> replied(long session, int xid) {
        Map<Integer, String> reads = arming.get(session);
        String path = reads == null ? null : reads.remove(xid);
        if (path == null) {
            return List.of();
        }
        if (reads.isEmpty()) {
            arming.remove(session);
        } else if (reads.containsValue(path)) {
            return List.of();
        }
        List<WatchEvent> events = deferred.get(session);
        if (events == null) {
            return List.of();
        }
        List<WatchEvent> release = new ArrayList<>();
        for (Iterator<WatchEvent> it = events.iterator(); it.hasNext(); ) {
            WatchEvent e = it.next();
            if (e.path().equals(path)) {
                release.add(e);
                it.remove();
            }
        }
        if (events.isEmpty()) {
            deferred.remove(session);
        }
        return release;
    }

    /** Forgets {@code session} (it ended). */
    void ended(long session) {
        arming.remove(session);
        deferred.remove(session);
    }
}
