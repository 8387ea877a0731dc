package dev.parallax.examples.volery.zk;

import dev.parallax.core.wire.ConnectionLimit;
import dev.parallax.core.wire.tls.TlsGate;
import dev.parallax.core.wire.tls.TlsRefusals;
import dev.parallax.examples.net.TcpFrontEnd;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Volery's ZooKeeper front end (seed 004 (S-SMR / Eyrie / Volery) §V-B: "Volery ... implements
 * ZooKeeper's API"): a Netty server speaking ZooKeeper's own client wire protocol, so that the
 * official ZooKeeper client, zkCli and Apache Curator work against it unmodified. Requests and
 * responses are zookeeper-jute's records with jute's binary archives, framed by a 4-byte big-endian
 * length. Znode operations go to a {@link VoleryBackend} as {@link dev.parallax.examples.volery.VoleryCommand}s,
 * each connection's through its {@link VoleryBackend.Lane}: reads that set no watch as queries (outside
 * the order, linearizable) where the session's FIFO order allows, everything else ordered.
 *
 * <p>Implemented: the session handshake (create, resume, expiry; sessions portable between the
 * servers of a cluster that share a {@linkplain ZkServerConfig#withSessionSecret session secret};
 * expiry of the sessions that own ephemeral nodes decided in the order, {@link ZkSessionTicker}),
 * ping, closeSession, create and create2 (persistent, persistent-sequential, ephemeral and
 * ephemeral-sequential, open ACL), multi (check, create, delete, setData: {@link ZkMulti}), delete,
 * exists, getData, setData,
 * getChildren, getChildren2 (with version checks and ZooKeeper's error codes), sync, getACL (the
 * open ACL), digest authentication (accepted; every znode is open), and watches (exists, getData and
 * getChildren with watch=true, addWatch persistent and persistent recursive, removeWatches,
 * checkWatches, setWatches and setWatches2 on reconnection: {@link ZkWatchHub}). Not implemented,
 * with the code ZooKeeper uses: container and TTL nodes, setACL, a lone check, multiRead, reconfig and
 * the other 3.5+ operations: UNIMPLEMENTED;
 * a create with another ACL: INVALIDACL; another authentication scheme: AUTHFAILED and a closed
 * connection; a request type ZooKeeper does not define: UNIMPLEMENTED and a closed connection.
 * Backend failures: CONNECTIONLOSS (unavailable cluster, unknown outcome) — the official client
 * raises ConnectionLossException, which its users already treat as "may or may not have happened",
 * and Curator's retry loop retries it — or SYSTEMERROR (anything else); the connection stays open.
 * With {@link ZkServerConfig#tls()} every connection runs TLS from its first byte (ZooKeeper's
 * {@code secureClientPort}; the official client with {@code zookeeper.client.secure=true} and its
 * Netty socket); a connection that does not complete a handshake is closed and counted in
 * {@code parallax.net.refused{kind=zookeeper,reason=tls}}. Past {@link ZkServerConfig#maxConnections()}
 * open connections a new one is closed at once ({@link ConnectionLimit}, exact across event loops), counted in
 * {@code parallax.volery.zk.refused{reason=too-many-connections}}, with a WARN now and then.
 * See {@link ZkConnectionHandler} for the handshake, pipelining, back-pressure and bad input, and
 * {@link ZkMetrics} for the meters ({@code parallax.volery.zk.*}).
 *
 * <p><b>Threads.</b> The server owns one acceptor thread (which also sweeps expired sessions and ticks the order's sessions, once a
 * second, and starts the watch polls every {@link ZkWatchHub#POLL_INTERVAL_MS} ms) and {@link ZkServerConfig#ioThreads()} event loop threads (non-daemon, named
 * {@code parallax-zk-*}); connection work, including the translation of replies, runs on the
 * connection's event loop. {@link #start()} and {@link #close()} are thread-safe and block;
 * {@link #port()} does not.
 */
public final class ZkServer implements AutoCloseable {
    private static final long SWEEP_INTERVAL_MS = 1000;
    private static final Logger LOG = LoggerFactory.getLogger(ZkServer.class);

    private final ZkServerConfig config;
    private final ZkSessions sessions;
    private final ZkOperations operations;
    private final ZkWatchHub watches;
    private final ZkSessionTicker ticker;
    private final ZkMetrics metrics;
    private final ConnectionLimit connectionLimit;
    private final AtomicLong connectionIds = new AtomicLong();
    private final TcpFrontEnd server = new TcpFrontEnd("ZooKeeper server", "parallax-zk");
    private final TlsRefusals tlsRefusals;

    /**
     * A server that records its meters in {@code registry}; nothing runs until {@link #start()}.
     *
     * @param backend executes znode operations; must not block in {@code submit}
     */
    public ZkServer(ZkServerConfig config, VoleryBackend backend, MeterRegistry registry) {
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(backend, "backend");
        this.sessions = new ZkSessions(config, System::nanoTime);
        this.connectionLimit = new ConnectionLimit("ZooKeeper front end", ZkServerConfig.MAX_CONNECTIONS_KEY,
                config.maxConnections(), new byte[0]);
        this.metrics = new ZkMetrics(Objects.requireNonNull(registry, "registry"), server::connectionCount, sessions::size);
        this.watches = new ZkWatchHub(config.serverId(), backend, sessions, metrics);
        this.operations = new ZkOperations(backend, metrics, watches, sessions);
        this.ticker = new ZkSessionTicker(backend, sessions, watches, metrics);
        this.tlsRefusals = config.tls() == null ? null
                : TlsRefusals.counted(registry, "zookeeper", "zookeeper port " + config.port());
    }

    /** A server without metrics; nothing runs until {@link #start()}. */
    public ZkServer(ZkServerConfig config, VoleryBackend backend) {
        this(config, backend, new CompositeMeterRegistry());
    }

    /**
     * Starts the event loops and binds the port; returns once the server accepts connections.
     *
     * @throws IOException           if the address cannot be bound (the threads are released again)
     * @throws IllegalStateException if already started or closed
     */
    public synchronized void start() throws IOException {
        server.start(config.host(), config.port(), config.ioThreads(), this::initialize);
        server.every(SWEEP_INTERVAL_MS, this::sweep);
        server.every(SWEEP_INTERVAL_MS, ticker::tick);
        server.every(ZkWatchHub.POLL_INTERVAL_MS, watches::pollAll);
    }

    /** A new connection's pipeline, or its refusal past the bound on connections (it counts itself). */
    private void initialize(SocketChannel ch) {
        if (!connectionLimit.admit(ch)) {
            metrics.refused(ZkMetrics.Refusal.TOO_MANY_CONNECTIONS);
            return;
        }
        if (config.tls() != null) {
            ch.pipeline().addLast("tls", config.tls().handler(config.tls().clientServer(), ch))
                    .addLast("tls-gate", new TlsGate(tlsRefusals, null));
        }
        ch.pipeline()
                .addLast(ZkConnectionHandler.IDLE, new IdleStateHandler(config.maxSessionTimeoutMs(), 0, 0,
                        TimeUnit.MILLISECONDS))
                .addLast("zk-frames", new ZkFrameDecoder(config.maxFrameBytes()))
                .addLast("zk-handler", new ZkConnectionHandler(config, sessions, operations, watches, ticker, metrics,
                        connectionIds.incrementAndGet()));
    }

    private void sweep() {
        List<Long> expired = new ArrayList<>();
        sessions.sweep(expired::add);
        for (long session : expired) {
            metrics.session(ZkMetrics.SessionEvent.EXPIRED);
            watches.sessionEnded(session);
        }
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

    /** The live sessions (connected, or disconnected and not yet expired). */
    public int sessionCount() {
        return sessions.size();
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
