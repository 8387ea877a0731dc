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

    /**
     * @param replyWindow replies kept per client: at least the most commands a client has in flight
     * @param maxSessions sessions kept; the least recently used is evicted beyond it
     */
    public ClientSessions(int replyWindow, int maxSessions) {
        if (replyWindow < 1 || maxSessions < 1) {
            throw new IllegalArgumentException("replyWindow and maxSessions must be positive");
        }
        this.replyWindow = replyWindow;
        this.sessions = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Session> eldest) {
                return size() > maxSessions;
            }
        };
    }

    /** Decides what to do with command {@code id}; on {@link Verdict#EXECUTE} the session advances. */
    public synchronized Verdict admit(CommandId id) {
        Session s = sessions.get(id.clientId());
        if (s == null) {
            if (id.sequence() != 1) {
                return Verdict.EXPIRED;
            }
            s = new Session(replyWindow);
            sessions.put(id.clientId(), s);
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

    /** Number of sessions held. */
    public synchronized int size() {
        return sessions.size();
    }
}
