package dev.parallax.examples.volery.zk;

import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.examples.net.ListenerSettings;

import java.util.Arrays;
import java.util.Objects;

/**
 * Settings of a {@link ZkServer}. Immutable and thread-safe; the {@code with} methods return modified
 * copies.
 *
 * @param host                    the address to bind, e.g. {@code "127.0.0.1"} or {@code "0.0.0.0"}
 * @param port                    the port to bind; 0 picks a free one ({@link ZkServer#port()} tells)
 * @param ioThreads               Netty event loops serving the connections
 * @param maxPendingPerConnection requests of one connection waiting for their replies past which the
 *                                server stops reading that connection until half have drained
 * @param maxFrameBytes           the largest request frame, length prefix excluded; a longer one closes
 *                                the connection (ZooKeeper: {@code jute.maxbuffer} plus header room)
 * @param minSessionTimeoutMs     the shortest session time-out granted (a client asking less gets this)
 * @param maxSessionTimeoutMs     the longest session time-out granted (a client asking more gets this);
 *                                also how long a new connection may wait before sending its ConnectRequest
 * @param maxSessions             live sessions (connected, or disconnected and not yet expired) past
 *                                which a new session is refused
 * @param serverId                0..255, the high byte of every session id this server hands out, so
 *                                servers of one cluster never hand out the same id
 * @param sessionSecret           null (the default): each server makes its passwords under a random
 *                                secret of its own, and a session lives on the server that created it;
 *                                or a secret (at least 16 bytes; copied in and out) shared by the servers
 *                                of one cluster, which makes sessions portable: any of them accepts a
 *                                session id and password another one handed out (see
 *                                {@link #withSessionSecret(byte[])}). Never printed by {@link #toString()}.
 * @param maxConnections          open connections past which a new one is closed at once (a WARN, rate-limited,
 *                                and {@code parallax.volery.zk.refused{reason=too-many-connections}})
 * @param tls                     null (the default): plain TCP; or the contexts whose
 *                                {@link TlsContexts#clientServer() client-port side} every connection runs
 *                                (ZooKeeper's {@code secureClientPort}: TLS from the first byte, no client
 *                                certificate asked)
 */
public record ZkServerConfig(String host, int port, int ioThreads, int maxPendingPerConnection, int maxFrameBytes,
                             int minSessionTimeoutMs, int maxSessionTimeoutMs, int maxSessions, int serverId,
                             byte[] sessionSecret, int maxConnections, TlsContexts tls) {

    /** ZooKeeper's default {@code jute.maxbuffer}: the largest znode data. */
    public static final int JUTE_MAX_BUFFER = 0xfffff;
    /** The default frame bound: {@link #JUTE_MAX_BUFFER} plus 1 KiB for the headers and path. */
    public static final int DEFAULT_MAX_FRAME_BYTES = JUTE_MAX_BUFFER + 1024;
    /** The default pending-request bound per connection. */
    public static final int DEFAULT_MAX_PENDING = 1024;
    /** ZooKeeper's default minimum session time-out (2 × tickTime of 2 s). */
    public static final int DEFAULT_MIN_SESSION_TIMEOUT_MS = 4_000;
    /** ZooKeeper's default maximum session time-out (20 × tickTime of 2 s). */
    public static final int DEFAULT_MAX_SESSION_TIMEOUT_MS = 40_000;
    /** The default bound on live sessions. */
    public static final int DEFAULT_MAX_SESSIONS = 10_000;
    /** The default bound on open connections (ZooKeeper bounds them per client address, {@code maxClientCnxns}). */
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;
    /** The configuration key of {@link #maxConnections()} in a cluster file. */
    public static final String MAX_CONNECTIONS_KEY = "zookeeper.max.connections";
    /** The shortest session secret accepted (128 bits). */
    public static final int MIN_SESSION_SECRET_BYTES = 16;

    /** @throws IllegalArgumentException if a number is out of range */
    public ZkServerConfig {
        Objects.requireNonNull(host, "host");
        ListenerSettings.check(port, ioThreads, maxPendingPerConnection);
        if (maxFrameBytes < 64 || maxFrameBytes > Integer.MAX_VALUE - 4) {
            throw new IllegalArgumentException("maxFrameBytes out of range: " + maxFrameBytes);
        }
        if (minSessionTimeoutMs < 1 || maxSessionTimeoutMs < minSessionTimeoutMs) {
            throw new IllegalArgumentException("need 0 < minSessionTimeoutMs <= maxSessionTimeoutMs: "
                    + minSessionTimeoutMs + ", " + maxSessionTimeoutMs);
        }
        if (maxSessions < 1) {
            throw new IllegalArgumentException("maxSessions must be positive: " + maxSessions);
        }
        if (serverId < 0 || serverId > 255) {
            throw new IllegalArgumentException("serverId must be in 0..255: " + serverId);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be positive: " + maxConnections);
        }
        if (sessionSecret != null) {
            if (sessionSecret.length < MIN_SESSION_SECRET_BYTES) {
                throw new IllegalArgumentException("a session secret needs " + MIN_SESSION_SECRET_BYTES
                        + " bytes at least: " + sessionSecret.length);
            }
            sessionSecret = sessionSecret.clone();
        }
    }

    /** The configuration without a session secret (sessions not portable between servers). */
    public ZkServerConfig(String host, int port, int ioThreads, int maxPendingPerConnection, int maxFrameBytes,
                          int minSessionTimeoutMs, int maxSessionTimeoutMs, int maxSessions, int serverId) {
        this(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs, maxSessionTimeoutMs,
                maxSessions, serverId, null, DEFAULT_MAX_CONNECTIONS, null);
    }

    /**
     * Defaults for {@code host:port}: one event loop per available processor, {@value #DEFAULT_MAX_PENDING}
     * pending requests per connection, frames up to {@link #DEFAULT_MAX_FRAME_BYTES}, session time-outs
     * in [{@value #DEFAULT_MIN_SESSION_TIMEOUT_MS}, {@value #DEFAULT_MAX_SESSION_TIMEOUT_MS}] ms,
     * {@value #DEFAULT_MAX_SESSIONS} sessions, server id 0, no session secret, {@value #DEFAULT_MAX_CONNECTIONS}
     * connections, plain TCP.
     */
    public static ZkServerConfig of(String host, int port) {
        return new ZkServerConfig(host, port, Runtime.getRuntime().availableProcessors(), DEFAULT_MAX_PENDING,
                DEFAULT_MAX_FRAME_BYTES, DEFAULT_MIN_SESSION_TIMEOUT_MS, DEFAULT_MAX_SESSION_TIMEOUT_MS,
                DEFAULT_MAX_SESSIONS, 0, null, DEFAULT_MAX_CONNECTIONS, null);
    }

    /** This configuration with {@code threads} event loops. */
    public ZkServerConfig withIoThreads(int threads) {
        return new ZkServerConfig(host, port, threads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId, sessionSecret, maxConnections, tls);
    }

    /** This configuration with another bound on pending requests per connection. */
    public ZkServerConfig withMaxPendingPerConnection(int maxPending) {
        return new ZkServerConfig(host, port, ioThreads, maxPending, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId, sessionSecret, maxConnections, tls);
    }

    /** This configuration with another frame bound. */
    public ZkServerConfig withMaxFrameBytes(int bytes) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, bytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId, sessionSecret, maxConnections, tls);
    }

    /** This configuration granting session time-outs in [{@code minMs}, {@code maxMs}]. */
    public ZkServerConfig withSessionTimeouts(int minMs, int maxMs) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minMs, maxMs,
                maxSessions, serverId, sessionSecret, maxConnections, tls);
    }

    /** This configuration with another bound on live sessions. */
    public ZkServerConfig withMaxSessions(int sessions) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, sessions, serverId, sessionSecret, maxConnections, tls);
    }

    /** This configuration with another server id (0..255). */
    public ZkServerConfig withServerId(int id) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, id, sessionSecret, maxConnections, tls);
    }

    /**
     * This configuration with a session secret shared by the servers of one cluster (null: none), which
     * makes sessions portable between them: a session's password is its time-out and an HmacSHA256 of
     * its id and time-out under the secret, so a server accepts a session id and password another
     * server of the cluster handed out — a client whose server died reconnects to another one and
     * keeps its session — and from then on expires it by its own clock. There is no global expiry: a
     * session is alive wherever its client reconnects with a valid password (this matters only for
     * ephemeral nodes, which Volery does not have). Give every server a distinct {@link #serverId()}
     * so that session ids stay unique.
     *
     * @param secret at least {@value #MIN_SESSION_SECRET_BYTES} bytes (copied), or null
     * @throws IllegalArgumentException if the secret is shorter
     */
    public ZkServerConfig withSessionSecret(byte[] secret) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId, secret, maxConnections, tls);
    }

    /** This configuration with another bound on open connections. */
    public ZkServerConfig withMaxConnections(int connections) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId, sessionSecret, connections, tls);
    }

    /**
     * This configuration with TLS on its port (null: plain TCP), ZooKeeper's {@code secureClientPort}:
     * the server side of {@code contexts}' client ports, its handshake bounded by their time-out.
     */
    public ZkServerConfig withTls(TlsContexts contexts) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId, sessionSecret, maxConnections, contexts);
    }

    /** A copy of the session secret, or null if none. */
    @Override
    public byte[] sessionSecret() {
        return sessionSecret == null ? null : sessionSecret.clone();
    }

    /** Equal settings, the session secrets compared by content, the TLS contexts by identity. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ZkServerConfig c && host.equals(c.host) && port == c.port && ioThreads == c.ioThreads
                && maxPendingPerConnection == c.maxPendingPerConnection && maxFrameBytes == c.maxFrameBytes
                && minSessionTimeoutMs == c.minSessionTimeoutMs && maxSessionTimeoutMs == c.maxSessionTimeoutMs
                && maxSessions == c.maxSessions && serverId == c.serverId
                && Arrays.equals(sessionSecret, c.sessionSecret) && maxConnections == c.maxConnections && tls == c.tls;
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId, Arrays.hashCode(sessionSecret),
                maxConnections, System.identityHashCode(tls));
    }

    /** The settings, the session secret shown only as set or not. */
    @Override
    public String toString() {
        return "ZkServerConfig[host=" + host + ", port=" + port + ", ioThreads=" + ioThreads
                + ", maxPendingPerConnection=" + maxPendingPerConnection + ", maxFrameBytes=" + maxFrameBytes
                + ", minSessionTimeoutMs=" + minSessionTimeoutMs + ", maxSessionTimeoutMs=" + maxSessionTimeoutMs
                + ", maxSessions=" + maxSessions + ", serverId=" + serverId + ", sessionSecret="
                + (sessionSecret == null ? "none" : "set") + ", maxConnections=" + maxConnections + ", tls="
                + (tls == null ? "off" : "on") + "]";
    }

    /** The time-out granted to a client asking for {@code requestedMs}: clamped into the configured range. */
    public int negotiateTimeout(int requestedMs) {
        return Math.max(minSessionTimeoutMs, Math.min(maxSessionTimeoutMs, requestedMs));
    }
}
