package dev.parallax.examples.volery.zk;

import io.netty.channel.Channel;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The server's ZooKeeper sessions: id and negotiated time-out, the connection that holds each one,
 * and when a session lost its connection. A session whose client stays away longer than its time-out
 * expires here ({@link #sweep}); a connected one that stays silent that long is expired by its
 * connection.
 *
 * <p><b>Passwords and portable sessions.</b> A password is the session's time-out and a MAC of the
 * session id and time-out ({@link ZkSessionPasswords}). With a secret shared by the servers of a
 * cluster ({@link ZkServerConfig#withSessionSecret}), a server accepts a session id and password it
 * did not create — the client's server died or became unreachable and the client moved — and adopts
 * the session: from then on this server keeps it by its own clock, as if it had created it. A client
 * that moves re-arms its watches with setWatches ({@link ZkWatchHub}).
 *
 * <p><b>Sessions in the order.</b> A session that creates an ephemeral node enters Volery's
 * replicated session table ({@link dev.parallax.examples.volery.ZnodeSessions}), where its expiry is
 * decided in the order, once for every partition and front end. Such a session is marked
 * {@link #ordered}: the server's ticks list it while it is connected here, which keeps it alive in
 * the order. A session resumed or adopted here is first checked against the order (the connection
 * handler's tick of that one session): one the order ended is refused as expired, wherever it
 * reconnects. Without a shared secret each server uses a random one of its own and never adopts: a
 * session lives on one server, and an unknown or expired id gets "expired".
 *
 * <p>Session ids ({@link ZkSessionIds}): the server id in the high byte, as ZooKeeper's, so servers
 * of one cluster (distinct server ids) never hand out the same id; the rest a keyed permutation of a
 * counter, unique on this server and unpredictable to anyone who sees other ids. An adopted session
 * keeps its id.
 *
 * <p><b>Threads.</b> Thread-safe (one lock; connects and disconnects are rare next to requests); never
 * blocks beyond that lock. Closing a displaced connection is asynchronous.
 */
final class ZkSessions {
    /** How a handshake went. */
    enum Outcome {
        /** A new session. */
        CREATED,
        /** A session this server knew, now on the new connection. */
        RESUMED,
        /** A session another server created (a valid password under the shared secret), taken over. */
        ADOPTED,
        /** A wrong password, or an unknown or expired id without a shared secret: "session expired". */
        REJECTED,
        /** No room for one more live session. */
        FULL
    }

    /**
     * The result of a handshake: the outcome and, unless REJECTED or FULL, the session's id, time-out
     * and password (for the ConnectResponse). Immutable.
     */
    record Grant(Outcome outcome, long id, int timeoutMs, byte[] password) {
        /** Whether the connection now holds a session. */
        boolean granted() {
            return outcome == Outcome.CREATED || outcome == Outcome.RESUMED || outcome == Outcome.ADOPTED;
        }

        /** A copy of the password. */
        @Override
        public byte[] password() {
            return password == null ? null : password.clone();
        }
    }

    private static final Grant REJECTED = new Grant(Outcome.REJECTED, 0, 0, null);
    private static final Grant FULL = new Grant(Outcome.FULL, 0, 0, null);

    /** One session. Mutable fields are guarded by the registry's lock. */
    private static final class Session {
        final long id;
        int timeoutMs;
        Channel owner;
        long disconnectedAtNanos;
        /** Whether the replicated session table may hold it (it sent an ephemeral create, or a tick found it live). */
        boolean ordered;

        Session(long id, int timeoutMs, Channel owner) {
            this.id = id;
            this.timeoutMs = timeoutMs;
            this.owner = owner;
        }
    }

    private final Map<Long, Session> sessions = new HashMap<>();
    private final ZkServerConfig config;
    private final ZkSessionPasswords passwords;
    private final boolean portable;
    private final LongSupplier nanoClock;
    private final ZkSessionIds ids;

    ZkSessions(ZkServerConfig config, LongSupplier nanoClock) {
        this.config = config;
        this.nanoClock = nanoClock;
        byte[] secret = config.sessionSecret();
        this.portable = secret != null;
        this.passwords = portable ? new ZkSessionPasswords(secret) : ZkSessionPasswords.random();
        this.ids = new ZkSessionIds(config.serverId());
    }

    /** A new session held by {@code owner} with the time-out negotiated from {@code requestedMs}; FULL if no room. */
    synchronized Grant create(int requestedMs, Channel owner) {
        if (sessions.size() >= config.maxSessions()) {
            return FULL;
        }
        long id = ids.next();
        while (sessions.containsKey(id)) { // an adopted session's id: another server handed it out
            id = ids.next();
        }
        Session s = new Session(id, config.negotiateTimeout(requestedMs), owner);
        sessions.put(id, s);
        return grant(Outcome.CREATED, s);
    }

    /**
     * Session {@code id}, now held by {@code owner} (a connection of this server still holding it is
     * closed, as ZooKeeper closes a session's old connection when it moves): RESUMED if this server
     * knows the session, ADOPTED if it does not but the password is valid under the shared secret,
     * REJECTED for a wrong password or (without a shared secret) an unknown or expired session, FULL
     * if adopting it would exceed the session bound. The time-out is the one the password carries,
     * clamped into this server's range (the answer then carries a new password for it).
     */
    synchronized Grant reopen(long id, byte[] password, Channel owner) {
        int timeoutMs = passwords.timeoutOf(id, password);
        Session s = sessions.get(id);
        if (s != null && expired(s, nanoClock.getAsLong())) {
            sessions.remove(id); // the sweep would have; counted as rejected or adopted below
            s = null;
        }
        if (timeoutMs < 0 || s == null && !portable) {
            return REJECTED;
        }
        if (s == null) {
            if (sessions.size() >= config.maxSessions()) {
                return FULL;
            }
            s = new Session(id, config.negotiateTimeout(timeoutMs), owner);
            sessions.put(id, s);
            return grant(Outcome.ADOPTED, s);
        }
        s.timeoutMs = config.negotiateTimeout(timeoutMs);
        Channel previous = s.owner;
        s.owner = owner;
        if (previous != null && previous != owner) {
            previous.close();
        }
        return grant(Outcome.RESUMED, s);
    }

    /** The connection {@code ch} holding session {@code id} closed: the session's expiry clock starts. */
    synchronized void disconnected(long id, Channel ch) {
        Session s = sessions.get(id);
        if (s != null && s.owner == ch) {
            s.owner = null;
            s.disconnectedAtNanos = nanoClock.getAsLong();
        }
    }

    /** Ends session {@code id} here (closeSession, or expiry by its silent connection); true if it was live. */
    synchronized boolean remove(long id) {
        return sessions.remove(id) != null;
    }

    /**
     * Forgets every disconnected session whose time-out has passed, telling {@code expired} each id
     * (under the lock: it must not block); returns how many.
     */
    synchronized int sweep(java.util.function.LongConsumer expired) {
        long now = nanoClock.getAsLong();
        int count = 0;
        for (Iterator<Session> it = sessions.values().iterator(); it.hasNext(); ) {
            Session s = it.next();
            if (expired(s, now)) {
                it.remove();
                expired.accept(s.id);
                count++;
            }
        }
        return count;
    }

    /** The connection holding session {@code id} now, or null (unknown, or disconnected). */
    synchronized Channel channelOf(long id) {
        Session s = sessions.get(id);
        return s == null ? null : s.owner;
    }

    /**
     * Marks session {@code id} as one the replicated session table may hold
     * ({@link dev.parallax.examples.volery.ZnodeSessions}): this server's ticks list it from now on
     * while it is connected.
     */
    synchronized void ordered(long id) {
        Session s = sessions.get(id);
        if (s != null) {
            s.ordered = true;
        }
    }

    /** Whether session {@code id} is marked {@link #ordered}. */
    synchronized boolean isOrdered(long id) {
        Session s = sessions.get(id);
        return s != null && s.ordered;
    }

    /** The {@link #ordered} sessions connected here now, for a tick. */
    synchronized long[] orderedConnected() {
        return sessions.values().stream().filter(s -> s.ordered && s.owner != null).mapToLong(s -> s.id).toArray();
    }

    /**
     * Ends session {@code id} here because the order ended it, closing its connection; true if it
     * was live here.
     */
    synchronized boolean endedByOrder(long id) {
        Session s = sessions.remove(id);
        if (s == null) {
            return false;
        }
        if (s.owner != null) {
            s.owner.close();
        }
        return true;
    }

    /** Live sessions. */
    synchronized int size() {
        return sessions.size();
    }

    private Grant grant(Outcome outcome, Session s) {
        return new Grant(outcome, s.id, s.timeoutMs, passwords.password(s.id, s.timeoutMs));
    }

    private static boolean expired(Session s, long now) {
        return s.owner == null && now - s.disconnectedAtNanos > s.timeoutMs * 1_000_000L;
    }
}
