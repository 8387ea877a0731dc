package dev.parallax.core.replica;

import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
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
 *       (go-back-N, per stream);</li>
 *   <li>{@link Verdict#EXPIRED} if the session is unknown and the sequence is not 1 (the session
 *       was evicted as least recently used, beyond {@code maxSessions}).</li>
 * </ul>
 * {@code maxSessions} counts (client, stream) sessions, so memory stays bounded by
 * {@code maxSessions × replyWindow} replies however many streams clients use. Recency follows
 * {@link #admit} calls alone, so it is the same on replicas that admit in the same order; a
 * replica that executes several streams must admit them in one deterministic merged order.
 *
 * <p><b>Snapshot format</b> ({@link #writeTo}, big-endian, {@link DataOutput} encoding):
 * <pre>
 * format 2: -2:4 replyWindow:4 count:4 then per session, least recently used first:
 *           clientId:8 groups:8 next:8 kept:4 then per kept reply: sequence:8 isError:1 then
 *           error: UTF | reply: length:4 bytes
 * format 1: replyWindow:4 count:4 then per session clientId:8 next:8 kept:4 replies (as above);
 *           written before commands carried destinations: every session is of the default group
 * </pre>
 * The first word tells them apart (a reply window is positive). {@link #readFrom} reads both.
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
    private static final int MAX_REPLY_BYTES = 64 << 20;

    /** A session's key: the client and its stream's group bits. */
    private record Key(long clientId, long groups) {
        static Key of(CommandId id) {
            return new Key(id.clientId(), id.groups().bits());
        }
    }

    private static final class Session {
        long next = 1;
        final long[] seqs;
        final CommandResult[] replies;

        Session(int window) {
            seqs = new long[window];
            replies = new CommandResult[window];
        }
    }

    private final int replyWindow;
    private final Map<Key, Session> sessions;
    /** The session {@link #admit} touched last (the map's most recent entry), or null. */
    private Session lastAdmitted;
    private long lastAdmittedClient;
    private long lastAdmittedGroups;

    /**
     * @param replyWindow replies kept per session: at least the most commands a client has in flight
     *                    in one stream
     * @param maxSessions (client, stream) sessions kept; the least recently used is evicted beyond it
     */
    public ClientSessions(int replyWindow, int maxSessions) {
        if (replyWindow < 1 || maxSessions < 1) {
            throw new IllegalArgumentException("replyWindow and maxSessions must be positive");
        }
        this.replyWindow = replyWindow;
        // Insertion order, refreshed only by admit(): recency must follow the delivery order alone,
        // never lookups (which executor threads make in different orders on different replicas).
        this.sessions = new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Session> eldest) {
                return size() > maxSessions;
            }
        };
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
            s = sessions.remove(key);
            if (s == null) {
                if (id.sequence() != 1) {
                    return Verdict.EXPIRED;
                }
                s = new Session(replyWindow);
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
        Session s = sessions.get(new Key(clientId, stream.bits()));
        return s == null ? 1 : s.next;
    }

    /** Records the result of an executed command, for duplicates. */
    public synchronized void store(CommandId id, CommandResult result) {
        Session s = sessions.get(Key.of(id));
        if (s != null) {
            int slot = (int) (id.sequence() % replyWindow);
            s.seqs[slot] = id.sequence();
            s.replies[slot] = result;
        }
    }

    /** The stored result of {@code id}, or {@code null} if it aged out or is still executing. */
    public synchronized CommandResult cached(CommandId id) {
        Session s = sessions.get(Key.of(id));
        if (s == null) {
            return null;
        }
        int slot = (int) (id.sequence() % replyWindow);
        return s.seqs[slot] == id.sequence() ? s.replies[slot] : null;
    }

    /**
     * Writes every session in format 2 (least recently used first, so that eviction after a
     * restore matches a replica that never stopped). Call only while no command executes.
     */
    public synchronized void writeTo(DataOutput out) throws IOException {
        out.writeInt(FORMAT_2);
        out.writeInt(replyWindow);
        out.writeInt(sessions.size());
        for (Map.Entry<Key, Session> e : sessions.entrySet()) {
            Session s = e.getValue();
            out.writeLong(e.getKey().clientId());
            out.writeLong(e.getKey().groups());
            out.writeLong(s.next);
            int kept = 0;
            for (CommandResult r : s.replies) {
                kept += r == null ? 0 : 1;
            }
            out.writeInt(kept);
            for (int i = 0; i < replyWindow; i++) {
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
        int first = in.readInt();
        boolean withGroups = first == FORMAT_2;
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
        sessions.clear();
        lastAdmitted = null;
        for (int i = 0; i < count; i++) {
            long client = in.readLong();
            long groups = withGroups ? in.readLong() : GroupSet.DEFAULT.bits();
            if (groups == 0) {
                throw new IOException("session " + i + " of client " + client + " has an empty group set");
            }
            Session s = new Session(replyWindow);
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
                int slot = (int) Math.floorMod(seq, (long) replyWindow);
                s.seqs[slot] = seq;
                s.replies[slot] = r;
            }
            sessions.put(new Key(client, groups), s);
        }
    }

    /** Number of (client, stream) sessions held. */
    public synchronized int size() {
        return sessions.size();
    }
}
