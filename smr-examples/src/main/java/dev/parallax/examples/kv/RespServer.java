package dev.parallax.examples.kv;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.net.tls.TlsGate;
import dev.parallax.core.net.tls.TlsRefusals;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
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
 * <p><b>Threads.</b> The server owns one acceptor thread and {@link RespServerConfig#ioThreads()}
 * event loop threads (non-daemon, named {@code parallax-resp-*}); connection work, including the
 * translation of replies, runs on the connection's event loop. {@link #start()} and {@link
 * #close()} are thread-safe and block; {@link #port()} does not.
 */
public final class RespServer implements AutoCloseable {
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 5;

    private final RespServerConfig config;
    private final CommandInvoker invoker;
    private final RespCommands commands = new RespCommands();
    private final AtomicLong connectionIds = new AtomicLong();
    private final ChannelGroup connections = new DefaultChannelGroup("parallax-resp", ImmediateEventExecutor.INSTANCE);
    private final RespMetrics metrics;
    /** Counts refused TLS connections; {@code null} without TLS. */
    private final TlsRefusals refusals;
    private EventLoopGroup acceptor;
    private EventLoopGroup workers;
    private Channel serverChannel;
    private boolean started;
    private boolean closed;

    /**
     * A server that records its meters in {@code registry}; nothing runs until {@link #start()}.
     *
     * @param invoker executes data commands; must not block in {@code invoke}
     */
    public RespServer(RespServerConfig config, CommandInvoker invoker, MeterRegistry registry) {
        this.config = Objects.requireNonNull(config, "config");
        this.invoker = Objects.requireNonNull(invoker, "invoker");
        this.metrics = new RespMetrics(Objects.requireNonNull(registry, "registry"), commands.names(), connections::size);
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
        if (started || closed) {
            throw new IllegalStateException(closed ? "RESP server closed" : "RESP server already started");
        }
        started = true;
        acceptor = new NioEventLoopGroup(1, new DefaultThreadFactory("parallax-resp-accept"));
        workers = new NioEventLoopGroup(config.ioThreads(), new DefaultThreadFactory("parallax-resp-io"));
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptor, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        if (config.tls() != null) {
                            ch.pipeline().addLast("tls", config.tls().handler(config.tls().clientServer(), ch))
                                    .addLast("tls-gate", new TlsGate(refusals, null));
                        }
                        ch.pipeline()
                                .addLast("resp-decoder", new RespRequestDecoder(config.limits()))
                                .addLast("resp-handler", new RespConnectionHandler(invoker, commands, metrics,
                                        config.maxPendingPerConnection(), connectionIds.incrementAndGet()));
                    }
                });
        ChannelFuture bind = bootstrap.bind(config.host(), config.port()).awaitUninterruptibly();
        if (!bind.isSuccess()) {
            close();
            throw new IOException("cannot bind the RESP server to " + config.host() + ":" + config.port(), bind.cause());
        }
        serverChannel = bind.channel();
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
    public synchronized InetSocketAddress localAddress() {
        if (serverChannel == null || closed) {
            throw new IllegalStateException("RESP server not running");
        }
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /**
     * Stops accepting, closes every connection (replies still in flight are dropped), stops the
     * threads and waits for them, a few seconds at most, and removes the meters. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly();
        }
        connections.close().awaitUninterruptibly();
        if (acceptor != null) {
            acceptor.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            acceptor.terminationFuture().awaitUninterruptibly();
            workers.terminationFuture().awaitUninterruptibly();
        }
        metrics.close();
    }
}
