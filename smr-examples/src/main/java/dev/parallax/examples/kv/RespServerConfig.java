package dev.parallax.examples.kv;

import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.examples.net.ListenerSettings;

import java.util.Objects;

/**
 * Settings of a {@link RespServer}. Immutable and thread-safe; the {@code with} methods return
 * modified copies.
 *
 * @param host                    the address to bind, e.g. {@code "127.0.0.1"} or {@code "0.0.0.0"}
 * @param port                    the port to bind; 0 picks a free one ({@link RespServer#port()} tells)
 * @param ioThreads               Netty event loops serving the connections
 * @param maxPendingPerConnection commands of one connection waiting for their replies past which
 *                                the server stops reading that connection until half have drained
 * @param limits                  request size limits
 * @param maxConnections          connections open at once; one beyond gets
 *                                {@code -ERR max number of clients reached} and is closed (closed at
 *                                once with TLS, where nothing can be said before a handshake)
 * @param tls                     TLS for the connections (the replica's certificate, no client
 *                                certificate asked: {@code redis-cli --tls --cacert ca.crt}), or
 *                                {@code null} for plain TCP
 */
public record RespServerConfig(String host, int port, int ioThreads, int maxPendingPerConnection, RespLimits limits,
                               int maxConnections, TlsContexts tls) {

    /** The default pending-command bound per connection. */
    public static final int DEFAULT_MAX_PENDING = 1024;
    /** The default bound on open connections: Redis's own {@code maxclients} default. */
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    /** The cluster-file key of {@link #maxConnections()}, named in the refusal's log line. */
    public static final String MAX_CONNECTIONS_KEY = "redis.max.connections";

    /** @throws IllegalArgumentException if a number is out of range */
    public RespServerConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(limits, "limits");
        ListenerSettings.check(port, ioThreads, maxPendingPerConnection);
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be positive: " + maxConnections);
        }
    }

    /**
     * Defaults for {@code host:port}: one event loop per available processor, {@value
     * #DEFAULT_MAX_PENDING} pending commands per connection, {@link RespLimits#DEFAULTS}, {@value
     * #DEFAULT_MAX_CONNECTIONS} connections, plain TCP.
     */
    public static RespServerConfig of(String host, int port) {
        return new RespServerConfig(host, port, Runtime.getRuntime().availableProcessors(), DEFAULT_MAX_PENDING,
                RespLimits.DEFAULTS, DEFAULT_MAX_CONNECTIONS, null);
    }

    /**
     * This configuration with {@code threads} event loops.
     *
     * @throws IllegalArgumentException if {@code threads} is not positive
     */
    public RespServerConfig withIoThreads(int threads) {
        return new RespServerConfig(host, port, threads, maxPendingPerConnection, limits, maxConnections, tls);
    }

    /**
     * This configuration with another bound on pending commands per connection.
     *
     * @throws IllegalArgumentException if {@code maxPending} is not positive
     */
    public RespServerConfig withMaxPendingPerConnection(int maxPending) {
        return new RespServerConfig(host, port, ioThreads, maxPending, limits, maxConnections, tls);
    }

    /** This configuration with other request limits. */
    public RespServerConfig withLimits(RespLimits newLimits) {
        return new RespServerConfig(host, port, ioThreads, maxPendingPerConnection, newLimits, maxConnections, tls);
    }

    /**
     * This configuration with another bound on open connections.
     *
     * @throws IllegalArgumentException if {@code connections} is not positive
     */
    public RespServerConfig withMaxConnections(int connections) {
        return new RespServerConfig(host, port, ioThreads, maxPendingPerConnection, limits, connections, tls);
    }

    /**
     * This configuration serving TLS with {@code contexts}' client-facing server context (the
     * replica's certificate; handshakes bounded by its time-out); {@code null} for plain TCP.
     */
    public RespServerConfig withTls(TlsContexts contexts) {
        return new RespServerConfig(host, port, ioThreads, maxPendingPerConnection, limits, maxConnections, contexts);
    }
}
