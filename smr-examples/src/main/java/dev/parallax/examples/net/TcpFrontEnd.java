package dev.parallax.examples.net;

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
import java.util.function.Consumer;

/**
 * The life cycle of a client-facing Netty TCP server, as the examples' front ends run it (the Redis
 * front end and Volery's ZooKeeper front end): one acceptor thread and a number of event loop threads
 * (non-daemon, named {@code <threadPrefix>-accept-*} / {@code <threadPrefix>-io-*}), TCP_NODELAY,
 * keep-alive and half-closure on every connection (a client that shuts down its sending side still
 * gets its replies), every open connection tracked so that {@link #close()} closes it.
 *
 * <p><b>Threads.</b> {@link #start}, {@link #localAddress()} and {@link #close()} are thread-safe;
 * start and close block (close waits a few seconds at most for the threads). The connection
 * initializer runs on the connection's event loop.
 */
public final class TcpFrontEnd implements AutoCloseable {
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 5;

    private final String description;
    private final String threadPrefix;
    private final ChannelGroup connections;
    private EventLoopGroup acceptor;
    private EventLoopGroup workers;
    private Channel serverChannel;
    private boolean started;
    private boolean closed;

    /**
     * A server not yet started.
     *
     * @param description  what it is, for messages ("RESP server")
     * @param threadPrefix the prefix of its thread names ("parallax-resp")
     */
    public TcpFrontEnd(String description, String threadPrefix) {
        this.description = Objects.requireNonNull(description, "description");
        this.threadPrefix = Objects.requireNonNull(threadPrefix, "threadPrefix");
        this.connections = new DefaultChannelGroup(threadPrefix, ImmediateEventExecutor.INSTANCE);
    }

    /**
     * Starts the threads and binds {@code host:port}; returns once the server accepts connections.
     *
     * @param ioThreads  event loop threads serving the connections
     * @param initialize builds each accepted connection's pipeline
     * @throws IOException           if the address cannot be bound (the threads are released again)
     * @throws IllegalStateException if already started or closed
     */
    public synchronized void start(String host, int port, int ioThreads, Consumer<SocketChannel> initialize)
            throws IOException {
        if (started || closed) {
            throw new IllegalStateException(description + (closed ? " closed" : " already started"));
        }
        started = true;
        acceptor = new NioEventLoopGroup(1, new DefaultThreadFactory(threadPrefix + "-accept"));
        workers = new NioEventLoopGroup(ioThreads, new DefaultThreadFactory(threadPrefix + "-io"));
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
                        initialize.accept(ch);
                    }
                });
        ChannelFuture bind = bootstrap.bind(host, port).awaitUninterruptibly();
        if (!bind.isSuccess()) {
            close();
            throw new IOException("cannot bind the " + description + " to " + host + ":" + port, bind.cause());
        }
        serverChannel = bind.channel();
    }

    /**
     * Runs {@code task} on the acceptor thread every {@code periodMs} milliseconds until close (for
     * housekeeping such as expiring sessions). The task must not block.
     *
     * @throws IllegalStateException if the server is not running
     */
    public synchronized void every(long periodMs, Runnable task) {
        if (serverChannel == null || closed) {
            throw new IllegalStateException(description + " not running");
        }
        acceptor.scheduleAtFixedRate(task, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /**
     * The bound address (with the chosen port when bound to port 0).
     *
     * @throws IllegalStateException if the server is not running
     */
    public synchronized InetSocketAddress localAddress() {
        if (serverChannel == null || closed) {
            throw new IllegalStateException(description + " not running");
        }
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Open connections. */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * Stops accepting, closes every connection (replies still in flight are dropped), stops the
     * threads and waits for them, a few seconds at most. Idempotent.
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
    }
}
