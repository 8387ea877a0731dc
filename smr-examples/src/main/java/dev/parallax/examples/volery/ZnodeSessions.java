package dev.parallax.examples.volery;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The ZooKeeper sessions that own ephemeral nodes, as replicated state (ZooKeeper's
 * {@code SessionTracker} and {@code DataTree.ephemerals}; seed 004 (S-SMR / Eyrie / Volery) §V-B is
 * silent on sessions). Every partition holds the same table: everything that changes it — an
 * ephemeral create, a delete of an ephemeral node, a {@link SessionTick}, a {@link CloseSession} —
 * goes to every partition and executes there in one order, so a session's expiry is one decision
 * taken at the same point of the order everywhere, whichever front end its client uses.
 *
 * <h2>Rules</h2>
 * <ol>
 *   <li><b>Registration.</b> A session enters the table with its first ephemeral create (which carries
 *       its time-out); sessions without ephemeral nodes cost the order nothing.</li>
 *   <li><b>Order time.</b> Time is the largest time stamped into a session command so far (each
 *       front end stamps its wall clock); it never goes back. Front ends' clocks are assumed to agree
 *       to well within a session time-out (ZooKeeper assumes the same of its leader's clock).</li>
 *   <li><b>Touch.</b> An ephemeral create and a tick that lists a live session set its last-seen
 *       time to the order time.</li>
 *   <li><b>Expiry.</b> After every tick, each live session whose last-seen time is more than its
 *       time-out behind the order time expires: its ephemeral nodes are deleted (by the tree, at
 *       every partition) and its id is remembered as ended.</li>
 *   <li><b>Ended sessions</b> (expired or closed) answer SESSIONEXPIRED to an ephemeral create and
 *       are reported ended to a tick. The memory of ended ids is bounded ({@link #MAX_ENDED}, oldest
 *       forgotten first, by the order): a session that comes back after that many later endings is
 *       unknown again, not ended.</li>
 * </ol>
 *
 * <p>Not thread-safe: owned by its {@link ZnodeTree}'s single writer. Nothing blocks.
 */
public final class ZnodeSessions {
    /** How many ended session ids are remembered. */
    public static final int MAX_ENDED = 1 << 16;

    /** A session's status as a tick reports it. */
    public enum Status {
        /** In the table: it owns ephemeral nodes (or did) and has not ended. */
        LIVE('L'),
        /** Expired or closed in the order. */
        ENDED('E'),
        /** Never registered (no ephemeral create), or ended too long ago to be remembered. */
        UNKNOWN('U');

        private final char tag;

        Status(char tag) {
            this.tag = tag;
        }

        /** The one-letter tag a tick's reply uses. */
        public char tag() {
            return tag;
        }

        /** The status of tag {@code c}, or null. */
        public static Status of(char c) {
            for (Status s : values()) {
                if (s.tag == c) {
                    return s;
                }
            }
            return null;
        }
    }

    /** One live session. */
    private static final class Session {
        final int timeoutMs;
        long lastSeen;
        final TreeSet<String> ephemerals = new TreeSet<>();

        Session(int timeoutMs, long lastSeen) {
            this.timeoutMs = timeoutMs;
            this.lastSeen = lastSeen;
        }
    }

    private final TreeMap<Long, Session> live = new TreeMap<>();
    private final LinkedHashSet<Long> ended = new LinkedHashSet<>();
    private long now;

    /** The order time (rule 2). */
    public long now() {
        return now;
    }

    /** The number of live sessions. */
    public int size() {
        return live.size();
    }

    /** Session {@code id}'s status. */
    public Status status(long id) {
        return live.containsKey(id) ? Status.LIVE : ended.contains(id) ? Status.ENDED : Status.UNKNOWN;
    }

    /**
     * Whether session {@code id} may create an ephemeral node at {@code time} (rules 1-3): a live
     * session is touched, an unknown one registered with {@code timeoutMs}; an ended one may not.
     */
    boolean admit(long id, int timeoutMs, long time) {
        advance(time);
        if (ended.contains(id)) {
            return false;
        }
        Session s = live.get(id);
        if (s == null) {
            live.put(id, new Session(Math.max(1, timeoutMs), now));
        } else {
            s.lastSeen = now;
        }
        return true;
    }

    /** Records that live session {@code id} owns ephemeral node {@code path}. */
    void owns(long id, String path) {
        Session s = live.get(id);
        if (s != null) {
            s.ephemerals.add(path);
        }
    }

    /** Records that ephemeral node {@code path} of session {@code id} was deleted. */
    void disowns(long id, String path) {
        Session s = live.get(id);
        if (s != null) {
            s.ephemerals.remove(path);
        }
    }

    /**
     * A tick at {@code time} listing the sessions a front end holds connected (rules 2-4): touches the
     * live ones, then expires the overdue ones. Returns the status of each listed id after the
     * expiry, in the order listed, and fills {@code expiredNodes} with the ephemeral nodes of the
     * sessions that expired (to be deleted by the caller), in path order per session.
     */
    List<Status> tick(long[] sessions, long time, List<String> expiredNodes) {
        advance(time);
        for (long id : sessions) {
            Session s = live.get(id);
            if (s != null) {
                s.lastSeen = now;
            }
        }
        for (Iterator<Map.Entry<Long, Session>> it = live.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Session> e = it.next();
            Session s = e.getValue();
            if (now - s.lastSeen > s.timeoutMs) {
                expiredNodes.addAll(s.ephemerals);
                it.remove();
                remember(e.getKey());
            }
        }
        List<Status> statuses = new ArrayList<>(sessions.length);
        for (long id : sessions) {
            statuses.add(status(id));
        }
        return statuses;
    }

    /**
     * Ends session {@code id} (closeSession) at {@code time}; returns its ephemeral nodes, to be
     * deleted by the caller (none if it was not live). A session that was never registered is
     * remembered as ended as well, so that it cannot register later.
     */
    List<String> close(long id, long time) {
        advance(time);
        Session s = live.remove(id);
        remember(id);
        return s == null ? List.of() : new ArrayList<>(s.ephemerals);
    }

    private void advance(long time) {
        now = Math.max(now, time);
    }

    private void remember(long id) {
        ended.remove(id);
        ended.add(id);
        if (ended.size() > MAX_ENDED) {
            Iterator<Long> oldest = ended.iterator();
            oldest.next();
            oldest.remove();
        }
    }

    /**
     * Writes the table: {@code long now, int liveCount, liveCount x (long id, int timeoutMs, long
     * lastSeen), int endedCount, endedCount x long id} (oldest ended first). The ephemeral nodes are
     * not written: the tree's nodes name their owners, and {@link ZnodeSnapshotFormat} rebuilds them.
     */
    void write(DataOutputStream out) throws IOException {
        out.writeLong(now);
        out.writeInt(live.size());
        for (Map.Entry<Long, Session> e : live.entrySet()) {
            out.writeLong(e.getKey());
            out.writeInt(e.getValue().timeoutMs);
            out.writeLong(e.getValue().lastSeen);
        }
        out.writeInt(ended.size());
        for (long id : ended) {
            out.writeLong(id);
        }
    }

    /**
     * Reads what {@link #write} wrote into this (empty) table.
     *
     * @throws IllegalArgumentException if the counts are out of range or an id repeats
     * @throws java.nio.BufferUnderflowException if the bytes end early
     */
    void read(ByteBuffer in) {
        now = in.getLong();
        int liveCount = in.getInt();
        if (liveCount < 0 || liveCount > in.remaining() / 20) {
            throw new IllegalArgumentException("live session count " + liveCount);
        }
        for (int i = 0; i < liveCount; i++) {
            long id = in.getLong();
            int timeout = in.getInt();
            long lastSeen = in.getLong();
            if (timeout < 1 || live.put(id, new Session(timeout, lastSeen)) != null) {
                throw new IllegalArgumentException("session 0x" + Long.toHexString(id) + ": time-out " + timeout
                        + " or a repeated id");
            }
        }
        int endedCount = in.getInt();
        if (endedCount < 0 || endedCount > MAX_ENDED || endedCount > in.remaining() / 8) {
            throw new IllegalArgumentException("ended session count " + endedCount);
        }
        for (int i = 0; i < endedCount; i++) {
            if (!ended.add(in.getLong())) {
                throw new IllegalArgumentException("a repeated ended session id");
            }
        }
    }

    /** Whether {@code id} is live (the snapshot reader checks each ephemeral node's owner). */
    boolean isLive(long id) {
        return live.containsKey(id);
    }
}
