package dev.parallax.core.session;

import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replicated table of client sessions that makes execution exactly-once and in order per
 * (client, stream), even with many commands in flight and retries across leader changes. It is
 * part of the replicated state: every replica admits the same commands in the same order with the
 * same verdicts.
 *
 * <p><b>Streams.</b> A command's stream is its destination group set ({@link CommandId#groups()}):
 * every ordering protocol delivers the commands of one stream in one order, but commands of
 * different streams may be interleaved differently (seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5: one ring per group, merged). Clients number commands per stream, so each (client, stream)
 * pair has a session of its own, and a client with commands in flight to several streams never
 * sees one stream's commands as a gap in another's. Single-group deployments have one stream, the
 * default group, and so one session per client.
 *
 * <p>Per session: {@code next}, the sequence number of the next command to execute (commands 1 ..
 * next-1 of that stream executed), and the replies of the last {@code replyWindow} commands. A
 * command is
 * <ul>
 *   <li>{@link Verdict#EXECUTE}d if its sequence is {@code next};</li>
 *   <li>a {@link Verdict#DUPLICATE} if below {@code next} (answered from the cache);</li>
 *   <li>a {@link Verdict#GAP} if above {@code next}: an earlier command of its stream was lost in a
 *       fail-over; it is not executed and the client resends that stream from {@code next} in order
 *       (go-back-N, per stream). This includes a session not started yet whose first command was
 *       lost while a later one was decided ({@code next} is then 1 and no session is created): a
 *       pipelining client, or one that went on after a time-out, sends 2 before 1 is decided
 *       (not {@code EXPIRED}, which would break the client for good);</li>
 *   <li>{@link Verdict#EXPIRED} if the (client, stream) pair had a session that was evicted as the
 *       least recently used of its pool (below), beyond {@code maxSessions}. Such a command is never
 *       executed: a retry of an executed command of an evicted session (sequence 1 included, whose
 *       retry would otherwise look like a new session) gets {@code SESSION_EXPIRED}, and its outcome
 *       is unknown to the client.</li>
 * </ul>
 * Recency follows {@link #admit} calls alone, so it is the same on replicas that admit in the same
 * order; a replica that executes several streams must admit them in one deterministic merged order.
 *
 * <p><b>Eviction, per kind of stream.</b> Sessions live in two pools, each bounded by
 * {@code maxSessions} (client, stream) sessions and each evicting its own least recently used: the
 * sessions of streams of one group, and those of streams of several groups. A pool's contents,
 * recency and evictions depend only on the admissions of its own kind of stream. That is what a
 * partitioned deployment needs (S-SMR, seed 004 (S-SMR) §IV; Multi-Ring Paxos, seed 003 ch. 5): the
 * replicas of partition p deliver ring p (streams of group p alone) merged with the global ring
 * (every stream of several groups, delivered to every replica of every partition, in one order),
 * so the multi-group pool is the same function of the global ring's order at every replica of every
 * partition, and a command to several partitions gets the same verdict at each of them; only
 * partition p ever admits a stream of group p alone. With one pool, a flood of new client ids on
 * one partition's own ring would evict a multi-group session there and nowhere else: that
 * partition would refuse the stream's next command as {@link Verdict#EXPIRED} while the others
 * execute it and wait for its signal for ever. In a deployment where every replica delivers every
 * stream, the split changes nothing but which session goes first. The replies held stay bounded by
 * {@code 2 × maxSessions × replyWindow} however many streams clients use (a deployment of one
 * group has no multi-group stream: {@code maxSessions × replyWindow}).
 *
 * <p><b>Memory.</b> A session's reply ring is allocated at its first reply and doubles only when a
 * reply would overwrite another still inside the window, up to {@code replyWindow} slots: a session
 * costs about 170 bytes plus its replies, so 100,000 sessions of one command each take about 16.5 MiB
 * (preallocating 1,024 slots per session took 1.2 GiB; {@code ClientSessionsMemoryTest}). An
 * evicted session leaves its key, 16 bytes (about 32 in the table), in the forgotten set, which is
 * what keeps its retries from executing again; the set grows with the number of (client, stream)
 * pairs ever evicted and is never pruned (pruning would reopen the hazard: only session identifiers
 * assigned by the replicas could bound it, as in the Raft dissertation §6.3).
 *
 * <p><b>Snapshot format</b> ({@link #writeTo}, big-endian, {@link DataOutput} encoding):
 * <pre>
 * format 3: -3:4 then the rest of format 2 (the single-group pool's sessions, then the
 *           multi-group pool's), then forgotten:4 then per evicted (client, stream),
 *           in ascending (clientId, groups) order: clientId:8 groups:8
 * format 2: -2:4 replyWindow:4 count:4 then per session, least recently used first:
 *           clientId:8 groups:8 next:8 kept:4 then per kept reply: sequence:8 isError:1 then
 *           error: UTF | reply: length:4 bytes
 * format 1: replyWindow:4 count:4 then per session clientId:8 next:8 kept:4 replies (as above);
 *           written before commands carried destinations: every session is of the default group
 * </pre>
 * The first word tells them apart (a reply window is positive). {@link #writeTo} writes format 3;
 * {@link #readFrom} reads all three, putting each session in the pool of its stream's kind in the
 * order read, which is each pool's recency order also for a table written with one pool for both
 * kinds (written under S-SMR, such a table may already disagree with other partitions' about
 * multi-group sessions evicted on one partition only: the split keeps later evictions in
 * agreement, it does not undo earlier ones). Formats 1 and 2 forgot no session: a cluster restored
 * from them at different positions may disagree about sessions evicted before the newer of those
 * positions, and a retry of a session evicted before such a snapshot is answered as a gap, never
 * executed, rather than expired.
 *
 * <p>Threads: {@link #admit} is called by the ServiceManager in delivery order; {@link #store} and
 * {@link #cached} may come from executor threads. Methods are synchronized (uncontended with the
 * sequential executor).
 */
public final class ClientSessions {

    /** What to do with a delivered command. */
    public enum Verdict { EXECUTE, DUPLICATE, GAP, EXPIRED }

    /** The first word of a format-2 snapshot. */
    private static final int FORMAT_2 = -2;
    /** The first word of a format-3 snapshot (format 2 and the forgotten sessions). */
    private static final int FORMAT_3 = -3;
    private static final int MAX_REPLY_BYTES = 64 << 20;

    /** A session's key: the client and its stream's group bits. */
    private record Key(long clientId, long groups) {
        static Key of(CommandId id) {
            return new Key(id.clientId(), id.groups().bits());
        }
    }

    /**
     * One session: {@code next} and a ring of replies, slot {@code sequence mod length}; null until
     * the first reply, then grown by doubling (at most to the reply window) when a reply would
     * overwrite another still inside the window.
     */
    private static final class Session {
        long next = 1;
        long[] seqs;
        CommandResult[] replies;

        /** Keeps {@code reply} of {@code seq}; of two replies a window apart, the later. */
        void keep(long seq, CommandResult reply, int window) {
            if (replies == null) {
                seqs = new long[1];
                replies = new CommandResult[1];
            }
            while (true) {
                int slot = (int) Math.floorMod(seq, (long) replies.length);
                long held = seqs[slot];
                if (replies[slot] == null || held == seq) {
                    seqs[slot] = seq;
                    replies[slot] = reply;
                    return;
                }
                if (replies.length < window && Math.abs(seq - held) < window) {
                    grow(window);
                    continue;
                }
                if (seq > held) { // the held reply is a window older: aged out
                    seqs[slot] = seq;
                    replies[slot] = reply;
                }
                return;
            }
        }

        private void grow(int window) {
            long[] oldSeqs = seqs;
            CommandResult[] old = replies;
            int length = (int) Math.min(window, 2L * old.length);
            seqs = new long[length];
            replies = new CommandResult[length];
            for (int i = 0; i < old.length; i++) {
                if (old[i] != null) {
                    keep(oldSeqs[i], old[i], window);
                }
            }
        }

        CommandResult get(long seq) {
            if (replies == null) {
                return null;
            }
            int slot = (int) Math.floorMod(seq, (long) replies.length);
            return replies[slot] != null && seqs[slot] == seq ? replies[slot] : null;
        }

        int kept() {
            int kept = 0;
            if (replies != null) {
                for (CommandResult r : replies) {
                    kept += r == null ? 0 : 1;
                }
            }
            return kept;
        }
    }

    private final int replyWindow;
    private final int maxSessions;
    /** The sessions of streams of one group, least recently admitted first. */
    private final Map<Key, Session> singleGroup;
    /** The sessions of streams of several groups, least recently admitted first. */
    private final Map<Key, Session> multiGroup;
    /** The (client, stream) pairs whose sessions were evicted: never a new session again. */
    private final ForgottenSessions forgotten = new ForgottenSessions();
    /** The session {@link #admit} touched last (the map's most recent entry), or null. */
    private Session lastAdmitted;
    private long lastAdmittedClient;
    private long lastAdmittedGroups;

    /**
     * @param replyWindow replies kept per session: at least the most commands a client has in flight
     *                    in one stream
     * @param maxSessions (client, stream) sessions kept per pool (streams of one group, streams of
     *                    several groups); a pool's least recently used is evicted beyond it
     */
    public ClientSessions(int replyWindow, int maxSessions) {
        if (replyWindow < 1 || maxSessions < 1) {
            throw new IllegalArgumentException("replyWindow and maxSessions must be positive");
        }
        this.replyWindow = replyWindow;
        this.maxSessions = maxSessions;
        this.singleGroup = newPool();
        this.multiGroup = newPool();
    }

    /**
     * A pool in insertion order, refreshed only by admit(): recency must follow the delivery order
     * alone, never lookups (which executor threads make in different orders on different replicas).
     */
    private Map<Key, Session> newPool() {
        return new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Session> eldest) {
                if (size() > maxSessions) {
                    forgotten.add(eldest.getKey().clientId(), eldest.getKey().groups());
                    return true;
                }
                return false;
            }
        };
    }

    /** The pool of the streams to {@code groups}: several groups or one. */
    private Map<Key, Session> pool(long groups) {
        return Long.bitCount(groups) > 1 ? multiGroup : singleGroup;
    }

    /**
     * Decides what to do with command {@code id} in the session of its client and stream; on
     * {@link Verdict#EXECUTE} the session advances.
     */
    public synchronized Verdict admit(CommandId id) {
        Session s;
        long groups = id.groups().bits();
        if (lastAdmitted != null && lastAdmittedClient == id.clientId() && lastAdmittedGroups == groups) {
            s = lastAdmitted; // already the most recent entry: re-inserting it would change nothing
        } else {
            Key key = new Key(id.clientId(), groups);
            Map<Key, Session> sessions = pool(groups);
            s = sessions.remove(key);
            if (s == null) {
                if (forgotten.contains(id.clientId(), groups)) {
                    return Verdict.EXPIRED;
                }
                if (id.sequence() != 1) {
                    return Verdict.GAP; // its first command is missing: no session yet, next stays 1
                }
                s = new Session();
            }
            sessions.put(key, s);
            lastAdmitted = s;
            lastAdmittedClient = id.clientId();
            lastAdmittedGroups = groups;
        }
        if (id.sequence() == s.next) {
            s.next++;
            return Verdict.EXECUTE;
        }
        return id.sequence() < s.next ? Verdict.DUPLICATE : Verdict.GAP;
    }

    /** The next sequence the client's default-group session expects (1 for an unknown session). */
    public long next(long clientId) {
        return next(clientId, GroupSet.DEFAULT);
    }

    /** The next sequence the session of (client, stream) expects (1 for an unknown session). */
    public synchronized long next(long clientId, GroupSet stream) {
        Session s = pool(stream.bits()).get(new Key(clientId, stream.bits()));
        return s == null ? 1 : s.next;
    }

    /** The session of {@code id}'s client and stream, or null; a lookup changes no recency. */
    private Session session(CommandId id) {
        if (lastAdmitted != null && lastAdmittedClient == id.clientId() && lastAdmittedGroups == id.groups().bits()) {
            return lastAdmitted; // the common case: the reply of the command admitted last
        }
        return pool(id.groups().bits()).get(Key.of(id));
    }

    /** Records the result of an executed command, for duplicates. */
    public synchronized void store(CommandId id, CommandResult result) {
        Session s = session(id);
        if (s != null) {
            s.keep(id.sequence(), result, replyWindow);
        }
    }

    /** The stored result of {@code id}, or {@code null} if it aged out or is still executing. */
    public synchronized CommandResult cached(CommandId id) {
        Session s = session(id);
        return s == null ? null : s.get(id.sequence());
    }

    /**
     * Writes every session and every forgotten (client, stream) in format 3 (the single-group pool,
     * then the multi-group pool, each least recently used first, so that eviction after a restore
     * matches a replica that never stopped).
     * Call only while no command executes.
     */
    public synchronized void writeTo(DataOutput out) throws IOException {
        out.writeInt(FORMAT_3);
        out.writeInt(replyWindow);
        out.writeInt(singleGroup.size() + multiGroup.size());
        for (Map<Key, Session> sessions : List.of(singleGroup, multiGroup)) {
            writeSessions(out, sessions);
        }
        forgotten.writeTo(out);
    }

    private static void writeSessions(DataOutput out, Map<Key, Session> sessions) throws IOException {
        for (Map.Entry<Key, Session> e : sessions.entrySet()) {
            Session s = e.getValue();
            out.writeLong(e.getKey().clientId());
            out.writeLong(e.getKey().groups());
            out.writeLong(s.next);
            int kept = s.kept();
            out.writeInt(kept);
            for (int i = 0; kept > 0 && i < s.replies.length; i++) {
                CommandResult r = s.replies[i];
                if (r == null) {
                    continue;
                }
                out.writeLong(s.seqs[i]);
                if (r.isError()) {
                    out.writeBoolean(true);
                    out.writeUTF(r.error());
                } else {
                    out.writeBoolean(false);
                    ByteBuffer reply = r.reply();
                    out.writeInt(reply.remaining());
                    byte[] b = new byte[reply.remaining()];
                    reply.get(b);
                    out.write(b);
                }
            }
        }
    }

    /**
     * Replaces every session with those read from {@code in}, in either format of the class
     * comment (format 1 sessions are of the default group).
     *
     * @throws IOException if the data is malformed or was written with another reply window
     */
    public synchronized void readFrom(DataInput in) throws IOException {
        readFrom(in, in.readInt());
    }

    /** {@link #readFrom(DataInput)} whose first word the caller has already read. */
    public synchronized void readFrom(DataInput in, int first) throws IOException {
        boolean withForgotten = first == FORMAT_3;
        boolean withGroups = first == FORMAT_2 || withForgotten;
        if (first <= 0 && !withGroups) {
            throw new IOException("unknown client session table format (first word " + first + ")");
        }
        int window = withGroups ? in.readInt() : first;
        if (window != replyWindow) {
            throw new IOException("snapshot has a reply window of " + window + ", this replica uses " + replyWindow);
        }
        int count = in.readInt();
        if (count < 0) {
            throw new IOException("negative session count " + count);
        }
        singleGroup.clear();
        multiGroup.clear();
        forgotten.clear();
        lastAdmitted = null;
        for (int i = 0; i < count; i++) {
            long client = in.readLong();
            long groups = withGroups ? in.readLong() : GroupSet.DEFAULT.bits();
            if (groups == 0) {
                throw new IOException("session " + i + " of client " + client + " has an empty group set");
            }
            Session s = new Session();
            s.next = in.readLong();
            int kept = in.readInt();
            if (kept < 0 || kept > replyWindow) {
                throw new IOException("bad reply count " + kept);
            }
            for (int k = 0; k < kept; k++) {
                long seq = in.readLong();
                CommandResult r;
                if (in.readBoolean()) {
                    r = CommandResult.error(in.readUTF());
                } else {
                    int len = in.readInt();
                    if (len < 0 || len > MAX_REPLY_BYTES) {
                        throw new IOException("bad reply length " + len);
                    }
                    byte[] b = new byte[len];
                    in.readFully(b);
                    r = CommandResult.ok(ByteBuffer.wrap(b));
                }
                s.keep(seq, r, replyWindow);
            }
            pool(groups).put(new Key(client, groups), s);
        }
        if (withForgotten) {
            forgotten.readFrom(in);
        }
    }

    /** Number of (client, stream) sessions held, of both pools. */
    public synchronized int size() {
        return singleGroup.size() + multiGroup.size();
    }

    /** Number of sessions of streams of several groups held (the multi-group pool). */
    public synchronized int multiGroupSize() {
        return multiGroup.size();
    }

    /** Number of (client, stream) pairs whose sessions were evicted (and so never start again). */
    public synchronized int forgotten() {
        return forgotten.size();
    }

    /** Reply slots the session of {@code id}'s client and stream holds (0 before its first reply, -1 if none). For tests. */
    synchronized int replySlots(CommandId id) {
        Session s = pool(id.groups().bits()).get(Key.of(id));
        return s == null ? -1 : s.replies == null ? 0 : s.replies.length;
    }

    /**
     * A set of (clientId, groups) pairs: open addressing with linear probing over two parallel
     * arrays, 16 bytes a pair (groups 0, an empty group set that no command carries, marks a free
     * slot); at most two-thirds full. Never shrinks.
     */
    private static final class ForgottenSessions {
        private long[] clients = new long[16];
        private long[] groups = new long[16];
        private int size;

        private static int hash(long client, long group) {
            long h = client * 0x9E3779B97F4A7C15L ^ group * 0xC2B2AE3D27D4EB4FL;
            return (int) (h ^ (h >>> 32));
        }

        boolean contains(long client, long group) {
            int mask = clients.length - 1;
            for (int i = hash(client, group) & mask; groups[i] != 0; i = (i + 1) & mask) {
                if (clients[i] == client && groups[i] == group) {
                    return true;
                }
            }
            return false;
        }

        void add(long client, long group) {
            if (3L * (size + 1) > 2L * clients.length) {
                long[] oldClients = clients;
                long[] oldGroups = groups;
                clients = new long[oldClients.length * 2];
                groups = new long[oldGroups.length * 2];
                size = 0;
                for (int i = 0; i < oldClients.length; i++) {
                    if (oldGroups[i] != 0) {
                        add(oldClients[i], oldGroups[i]);
                    }
                }
            }
            int mask = clients.length - 1;
            int i = hash(client, group) & mask;
            for (; groups[i] != 0; i = (i + 1) & mask) {
                if (clients[i] == client && groups[i] == group) {
                    return;
                }
            }
            clients[i] = client;
            groups[i] = group;
            size++;
        }

        int size() {
            return size;
        }

        void clear() {
            clients = new long[16];
            groups = new long[16];
            size = 0;
        }

        /** count:4 then the pairs in ascending (client, groups) order, the same bytes on every replica. */
        void writeTo(DataOutput out) throws IOException {
            long[][] pairs = new long[size][];
            int n = 0;
            for (int i = 0; i < clients.length; i++) {
                if (groups[i] != 0) {
                    pairs[n++] = new long[]{clients[i], groups[i]};
                }
            }
            java.util.Arrays.sort(pairs, (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
            out.writeInt(size);
            for (long[] p : pairs) {
                out.writeLong(p[0]);
                out.writeLong(p[1]);
            }
        }

        void readFrom(DataInput in) throws IOException {
            int count = in.readInt();
            if (count < 0) {
                throw new IOException("negative forgotten session count " + count);
            }
            for (int i = 0; i < count; i++) {
                long client = in.readLong();
                long group = in.readLong();
                if (group == 0) {
                    throw new IOException("forgotten session " + i + " of client " + client + " has an empty group set");
                }
                add(client, group);
            }
        }
    }
}
