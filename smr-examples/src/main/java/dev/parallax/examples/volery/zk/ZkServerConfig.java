package dev.parallax.examples.volery.zk;

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
 */
public record ZkServerConfig(String host, int port, int ioThreads, int maxPendingPerConnection, int maxFrameBytes,
                             int minSessionTimeoutMs, int maxSessionTimeoutMs, int maxSessions, int serverId) {

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

    /** @throws IllegalArgumentException if a number is out of range */
    public ZkServerConfig {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads must be positive: " + ioThreads);
        }
        if (maxPendingPerConnection < 1) {
            throw new IllegalArgumentException("maxPendingPerConnection must be positive: " + maxPendingPerConnection);
        }
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
    }

    /**
     * Defaults for {@code host:port}: one event loop per available processor, {@value #DEFAULT_MAX_PENDING}
     * pending requests per connection, frames up to {@link #DEFAULT_MAX_FRAME_BYTES}, session time-outs
     * in [{@value #DEFAULT_MIN_SESSION_TIMEOUT_MS}, {@value #DEFAULT_MAX_SESSION_TIMEOUT_MS}] ms,
     * {@value #DEFAULT_MAX_SESSIONS} sessions, server id 0.
     */
    public static ZkServerConfig of(String host, int port) {
        return new ZkServerConfig(host, port, Runtime.getRuntime().availableProcessors(), DEFAULT_MAX_PENDING,
                DEFAULT_MAX_FRAME_BYTES, DEFAULT_MIN_SESSION_TIMEOUT_MS, DEFAULT_MAX_SESSION_TIMEOUT_MS,
                DEFAULT_MAX_SESSIONS, 0);
    }

    /** This configuration with {@code threads} event loops. */
    public ZkServerConfig withIoThreads(int threads) {
        return new ZkServerConfig(host, port, threads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId);
    }

    /** This configuration with another bound on pending requests per connection. */
    public ZkServerConfig withMaxPendingPerConnection(int maxPending) {
        return new ZkServerConfig(host, port, ioThreads, maxPending, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId);
    }

    /** This configuration with another frame bound. */
    public ZkServerConfig withMaxFrameBytes(int bytes) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, bytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, serverId);
    }

    /** This configuration granting session time-outs in [{@code minMs}, {@code maxMs}]. */
    public ZkServerConfig withSessionTimeouts(int minMs, int maxMs) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minMs, maxMs,
                maxSessions, serverId);
    }

    /** This configuration with another bound on live sessions. */
    public ZkServerConfig withMaxSessions(int sessions) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, sessions, serverId);
    }

    /** This configuration with another server id (0..255). */
    public ZkServerConfig withServerId(int id) {
        return new ZkServerConfig(host, port, ioThreads, maxPendingPerConnection, maxFrameBytes, minSessionTimeoutMs,
                maxSessionTimeoutMs, maxSessions, id);
    }

    /** The time-out granted to a client asking for {@code requestedMs}: clamped into the configured range. */
    public int negotiateTimeout(int requestedMs) {
        return Math.max(minSessionTimeoutMs, Math.min(maxSessionTimeoutMs, requestedMs));
    }
}
