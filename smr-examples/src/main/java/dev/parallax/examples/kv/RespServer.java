package dev.parallax.examples.kv;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.wire.ConnectionLimit;
import dev.parallax.core.wire.tls.TlsGate;
import dev.parallax.core.wire.tls.TlsRefusals;
import dev.parallax.examples.net.TcpFrontEnd;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Redis-protocol (RESP2) front end for the replicated key-value store: a Netty server that
 * decodes requests, answers connection commands itself and sends data commands (GET, SET, DEL,
 * EXISTS, INCR, MGET, MSET, DBSIZE, FLUSHALL) as {@link KvCommand}s through a {@link CommandInvoker}. With the
 * replicated client as invoker, every replica can serve clients: the invoker finds the leader.
 *
 * <p>Pipelined requests are answered in request order whatever order the invoker completes them
 * in; a connection with too many commands in flight is not read until they drain. A malformed or
 * oversized request gets {@code -ERR Protocol error: ...} and its connection is closed; the server
 * keeps serving the others. Invoker failures become error replies: a rejection is sent with the
 * state machine's message ({@code -ERR value is not an integer or out of range}), an unavailable
 * cluster as {@code -CLUSTERDOWN ...}, anything else as {@code -ERR internal error} (and logged).
 *
 * <p>With {@link RespServerConfig#tls()} every connection runs TLS ({@code redis-cli --tls
 * --cacert ca.crt}); a failed handshake or bytes that are not TLS close the connection and count
 * {@code parallax.net.refused{kind=redis,reason=tls}}.
 *
 * <p>At most {@link RespServerConfig#maxConnections()} connections are open at once
 * ({@link ConnectionLimit}): as Redis does at {@code maxclients}, one beyond gets
 * {@code -ERR max number of clients reached} and is closed (with TLS, closed at once: nothing can be said
 * before a handshake), counted in {@code parallax.kv.resp.connections.refused} and logged.
 *
 * <p><b>Threads.</b> The server owns one acceptor thread and {@link RespServerConfig#ioThreads()}
 * event loop threads (non-daemon, named {@code parallax-resp-*}); connection work, including the
 * translation of replies, runs on the connection's event loop. {@link #start()} and {@link
 * #close()} are thread-safe and block; {@link #port()} does not.
 */
public final class RespServer implements AutoCloseable {
    /** Redis's answer to a connection beyond {@code maxclients}, sent as it is. */
    static final String MAX_CLIENTS_REACHED = "-ERR max number of clients reached\r\n";

    private final RespServerConfig config;
    private final CommandInvoker invoker;
    private final RespCommands commands = new RespCommands();
    private final AtomicLong connectionIds = new AtomicLong();
    private final TcpFrontEnd server = new TcpFrontEnd("RESP server", "parallax-resp");
    private final RespMetrics metrics;
    private final ConnectionLimit connectionLimit;
    /** Counts refused TLS connections; {@code null} without TLS. */
    private final TlsRefusals refusals;

    /**
     * A server that records its meters in {@code registry}; nothing runs until {@link #start()}.
     *
     * @param invoker executes data commands; must not block in {@code invoke}
     */
    public RespServer(RespServerConfig config, CommandInvoker invoker, MeterRegistry registry) {
        this.config = Objects.requireNonNull(config, "config");
        this.invoker = Objects.requireNonNull(invoker, "invoker");
        byte[] refusal = config.tls() == null ? MAX_CLIENTS_REACHED.getBytes(StandardCharsets.US_ASCII) : new byte[0];
        this.connectionLimit = new ConnectionLimit("redis port " + config.port(), RespServerConfig.MAX_CONNECTIONS_KEY,
                config.maxConnections(), refusal);
        this.metrics = new RespMetrics(Objects.requireNonNull(registry, "registry"), commands.names(), connectionLimit);
        this.refusals = config.tls() == null ? null : TlsRefusals.counted(registry, "redis", "redis port " + config.port());
    }

    /** A server without metrics; nothing runs until {@link #start()}. */
    public RespServer(RespServerConfig config, CommandInvoker invoker) {
        this(config, invoker, new CompositeMeterRegistry());
    }

    /**
     * Starts the event loops and binds the port; returns once the server accepts connections.
     *
     * @throws IOException           if the address cannot be bound (the threads are released again)
     * @throws IllegalStateException if already started or closed
     */
    public synchronized void start() throws IOException {
        server.start(config.host(), config.port(), config.ioThreads(), ch -> {
            if (!connectionLimit.admit(ch)) {
                return;
            }
            if (config.tls() != null) {
                ch.pipeline().addLast("tls", config.tls().handler(config.tls().clientServer(), ch))
                        .addLast("tls-gate", new TlsGate(refusals, null));
            }
            ch.pipeline()
                    .addLast("resp-decoder", new RespRequestDecoder(config.limits()))
                    .addLast("resp-handler", new RespConnectionHandler(invoker, commands, metrics,
                            config.maxPendingPerConnection(), connectionIds.incrementAndGet()));
        });
    }

    /**
     * The bound port (the chosen one when configured with port 0).
     *
     * @throws IllegalStateException if the server is not running
     */
    public int port() {
        return localAddress().getPort();
    }

    /**
     * The bound address.
     *
     * @throws IllegalStateException if the server is not running
     */
    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /**
     * Stops accepting, closes every connection (replies still in flight are dropped), stops the
     * threads and waits for them, a few seconds at most, and removes the meters. Idempotent.
     */
    @Override
    public synchronized void close() {
        server.close();
        metrics.close();
    }
}
