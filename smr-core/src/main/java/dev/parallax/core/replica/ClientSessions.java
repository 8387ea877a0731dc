package dev.parallax.core.replica;

import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The replicated table of client sessions that makes execution exactly-once and in order per
 * client, even with many commands in flight and retries across leader changes. It is part of the
 * replicated state: every replica admits the same commands in the same order with the same
 * verdicts.
 *
 * <p>Per client: {@code next}, the sequence number of the next command to execute (commands 1 ..
 * next-1 executed), and the replies of the last {@code replyWindow} commands. A command is
 * <ul>
 *   <li>{@link Verdict#EXECUTE}d if its sequence is {@code next};</li>
 *   <li>a {@link Verdict#DUPLICATE} if below {@code next} (answered from the cache);</li>
 *   <li>a {@link Verdict#GAP} if above {@code next}: an earlier command was lost in a fail-over; it
 *       is not executed and the client resends from {@code next} in order (go-back-N);</li>
 *   <li>{@link Verdict#EXPIRED} if the session is unknown and the sequence is not 1 (the session
 *       was evicted as least recently used, beyond {@code maxSessions}).</li>
 * </ul>
 *
 * <p>Threads: {@link #admit} is called by the ServiceManager in delivery order; {@link #store} and
 * {@link #cached} may come from executor threads. Methods are synchronized (uncontended with the
 * sequential executor).
 */
public final class ClientSessions {

    /** What to do with a delivered command. */
    public enum Verdict { EXECUTE, DUPLICATE, GAP, EXPIRED }

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
    private final Map<Long, Session> sessions;
    /** The session {@link #admit} touched last (the map's most recent entry), or null. */
    private Session lastAdmitted;
    private long lastAdmittedClient;

    /**
     * @param replyWindow replies kept per client: at least the most commands a client has in flight
     * @param maxSessions sessions kept; the least recently used is evicted beyond it
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
            protected boolean removeEldestEntry(Map.Entry<Long, Session> eldest) {
                return size() > maxSessions;
            }
        };
    }

    /** Decides what to do with command {@code id}; on {@link Verdict#EXECUTE} the session advances. */
    public synchronized Verdict admit(CommandId id) {
        Session s;
        if (lastAdmitted != null && lastAdmittedClient == id.clientId()) {
            s = lastAdmitted; // already the most recent entry: re-inserting it would change nothing
        } else {
            s = sessions.remove(id.clientId());
            if (s == null) {
                if (id.sequence() != 1) {
                    return Verdict.EXPIRED;
                }
                s = new Session(replyWindow);
            }
            sessions.put(id.clientId(), s);
            lastAdmitted = s;
            lastAdmittedClient = id.clientId();
        }
        if (id.sequence() == s.next) {
            s.next++;
            return Verdict.EXECUTE;
        }
        return id.sequence() < s.next ? Verdict.DUPLICATE : Verdict.GAP;
    }

    /** The next sequence the client's session expects (1 for an unknown client). */
    public synchronized long next(long clientId) {
        Session s = sessions.get(clientId);
        return s == null ? 1 : s.next;
    }

    /** Records the result of an executed command, for duplicates. */
    public synchronized void store(CommandId id, CommandResult result) {
        Session s = sessions.get(id.clientId());
        if (s != null) {
            int slot = (int) (id.sequence() % replyWindow);
            s.seqs[slot] = id.sequence();
            s.replies[slot] = result;
        }
    }

    /** The stored result of {@code id}, or {@code null} if it aged out or is still executing. */
    public synchronized CommandResult cached(CommandId id) {
        Session s = sessions.get(id.clientId());
        if (s == null) {
            return null;
        }
        int slot = (int) (id.sequence() % replyWindow);
        return s.seqs[slot] == id.sequence() ? s.replies[slot] : null;
    }

    /**
     * Writes every session (in least-recently-used order, so that eviction after a restore
     * matches a replica that never stopped). Call only while no command executes.
     */
    public synchronized void writeTo(java.io.DataOutput out) throws java.io.IOException {
        out.writeInt(replyWindow);
        out.writeInt(sessions.size());
        for (Map.Entry<Long, Session> e : sessions.entrySet()) {
            Session s = e.getValue();
            out.writeLong(e.getKey());
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
                    java.nio.ByteBuffer reply = r.reply();
                    out.writeInt(reply.remaining());
                    byte[] b = new byte[reply.remaining()];
                    reply.get(b);
                    out.write(b);
                }
            }
        }
    }

    /**
     * Replaces every session with those read from {@code in} (written by {@link #writeTo}).
     *
     * @throws java.io.IOException if the data is malformed or was written with another reply window
     */
    public synchronized void readFrom(java.io.DataInput in) throws java.io.IOException {
        int window = in.readInt();
        if (window != replyWindow) {
            throw new java.io.IOException("snapshot has a reply window of " + window + ", this replica uses " + replyWindow);
        }
        int count = in.readInt();
        if (count < 0) {
            throw new java.io.IOException("negative session count " + count);
        }
        sessions.clear();
        lastAdmitted = null;
        for (int i = 0; i < count; i++) {
            long client = in.readLong();
            Session s = new Session(replyWindow);
            s.next = in.readLong();
            int kept = in.readInt();
            if (kept < 0 || kept > replyWindow) {
                throw new java.io.IOException("bad reply count " + kept);
            }
            for (int k = 0; k < kept; k++) {
                long seq = in.readLong();
                CommandResult r;
                if (in.readBoolean()) {
                    r = CommandResult.error(in.readUTF());
                } else {
                    int len = in.readInt();
                    if (len < 0 || len > (64 << 20)) {
                        throw new java.io.IOException("bad reply length " + len);
                    }
                    byte[] b = new byte[len];
                    in.readFully(b);
                    r = CommandResult.ok(java.nio.ByteBuffer.wrap(b));
                }
                int slot = (int) Math.floorMod(seq, (long) replyWindow);
                s.seqs[slot] = seq;
                s.replies[slot] = r;
            }
            sessions.put(client, s);
        }
    }

    /** Number of sessions held. */
    public synchronized int size() {
        return sessions.size();
    }
}
