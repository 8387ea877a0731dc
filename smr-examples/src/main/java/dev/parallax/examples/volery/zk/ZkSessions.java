package dev.parallax.examples.volery.zk;

import io.netty.channel.Channel;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The server's ZooKeeper sessions: id, password and negotiated time-out, the connection that holds each
 * one, and when a session lost its connection. A session whose client stays away longer than its
 * time-out expires ({@link #sweep}); a connected one that stays silent that long is expired by its
 * connection. Volery keeps no session state in the replicated tree (no ephemeral nodes), so a session
 * lives on one server only: a client that reconnects to another server finds it unknown and expired.
 *
 * <p>Session ids are ZooKeeper's shape ({@code SessionTrackerImpl.initializeNextSessionId}): the server
 * id in the high byte, then the start time in milliseconds shifted left by 24 bits, plus a counter —
 * unique per server and across restarts. Passwords are 16 random bytes.
 *
 * <p><b>Threads.</b> Thread-safe (one lock; connects and disconnects are rare next to requests); never
 * blocks beyond that lock. Closing a displaced connection is asynchronous.
 */
final class ZkSessions {
    private static final int PASSWORD_BYTES = 16;

    /** One session. Mutable fields are guarded by the registry's lock. */
    static final class Session {
        final long id;
        final byte[] password;
        final int timeoutMs;
        Channel owner;
        long disconnectedAtNanos;

        Session(long id, byte[] password, int timeoutMs) {
            this.id = id;
            this.password = password;
            this.timeoutMs = timeoutMs;
        }

        /** A copy of the password. */
        byte[] password() {
            return password.clone();
        }
    }

    private final Map<Long, Session> sessions = new HashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final int maxSessions;
    private final LongSupplier nanoClock;
    private long nextId;

    ZkSessions(int serverId, int maxSessions, LongSupplier nanoClock) {
        this.maxSessions = maxSessions;
        this.nanoClock = nanoClock;
        this.nextId = ((System.currentTimeMillis() << 24) >>> 8) | ((long) serverId << 56);
        if (nextId == 0) {
            nextId = 1;
        }
    }

    /** A new session held by {@code owner}, or null if the registry is full. */
    synchronized Session create(int timeoutMs, Channel owner) {
        if (sessions.size() >= maxSessions) {
            return null;
        }
        long id = nextId++;
        if (id == 0) {
            id = nextId++;
        }
        byte[] password = new byte[PASSWORD_BYTES];
        random.nextBytes(password);
        Session s = new Session(id, password, timeoutMs);
        s.owner = owner;
        sessions.put(id, s);
        return s;
    }

    /**
     * The live session {@code id} with password {@code password}, now held by {@code owner} (a connection
     * still holding it is closed, as ZooKeeper closes a session's old connection when it moves); null
     * if the session is unknown, expired or the password is wrong.
     */
    synchronized Session reopen(long id, byte[] password, Channel owner) {
        Session s = sessions.get(id);
        if (s == null || expired(s, nanoClock.getAsLong()) || password == null || !Arrays.equals(s.password, password)) {
            if (s != null && expired(s, nanoClock.getAsLong())) {
                sessions.remove(id);
            }
            return null;
        }
        Channel previous = s.owner;
        s.owner = owner;
        if (previous != null && previous != owner) {
            previous.close();
        }
        return s;
    }

    /** The connection {@code ch} holding session {@code id} closed: the session's expiry clock starts. */
    synchronized void disconnected(long id, Channel ch) {
        Session s = sessions.get(id);
        if (s != null && s.owner == ch) {
            s.owner = null;
            s.disconnectedAtNanos = nanoClock.getAsLong();
        }
    }

    /** Ends session {@code id} (closeSession, or expiry by its silent connection); true if it was live. */
    synchronized boolean remove(long id) {
        return sessions.remove(id) != null;
    }

    /** Forgets every disconnected session whose time-out has passed; returns how many. */
    synchronized int sweep() {
        long now = nanoClock.getAsLong();
        int expired = 0;
        for (Iterator<Session> it = sessions.values().iterator(); it.hasNext(); ) {
            if (expired(it.next(), now)) {
                it.remove();
                expired++;
            }
        }
        return expired;
    }

    /** Live sessions. */
    synchronized int size() {
        return sessions.size();
    }

    private static boolean expired(Session s, long now) {
        return s.owner == null && now - s.disconnectedAtNanos > s.timeoutMs * 1_000_000L;
    }
}
