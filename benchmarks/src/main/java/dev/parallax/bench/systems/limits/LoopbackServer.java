package dev.parallax.bench.systems.limits;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A Netty NIO server on 127.0.0.1 (TCP_NODELAY, pooled buffers) whose accepted connections each get
 * one handler; the servers of the limit systems. {@link #close} may be called from any thread and
 * blocks until the loops stopped.
 */
final class LoopbackServer implements AutoCloseable {
    private final NioEventLoopGroup boss;
    private final NioEventLoopGroup workers;
    private final Channel channel;

    private LoopbackServer(NioEventLoopGroup boss, NioEventLoopGroup workers, Channel channel) {
        this.boss = boss;
        this.workers = workers;
        this.channel = channel;
    }

    /** Event loops for a server of {@code threads} threads named after {@code name}. */
    static NioEventLoopGroup loops(String name, int threads) {
        return new NioEventLoopGroup(threads, new DefaultThreadFactory(name + "-io", true));
    }

    /**
     * Binds {@code port} with connections on {@code workers} (owned from now on), each getting the
     * handler {@code handlers} makes for it; blocks until bound.
     *
     * @throws InterruptedException if interrupted while binding (the loops are stopped)
     */
    static LoopbackServer bind(String name, int port, NioEventLoopGroup workers,
                               Function<SocketChannel, ChannelHandler> handlers) throws InterruptedException {
        NioEventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory(name + "-accept", true));
        ServerBootstrap b = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(handlers.apply(ch));
                    }
                });
        try {
            return new LoopbackServer(boss, workers, b.bind("127.0.0.1", port).sync().channel());
        } catch (InterruptedException | RuntimeException e) {
            shutdown(boss, workers);
            throw e;
        }
    }

    /** Blocks until the server channel closes (for a server JVM's main thread). */
    void awaitClose() throws InterruptedException {
        channel.closeFuture().sync();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        shutdown(boss, workers);
    }

    private static void shutdown(NioEventLoopGroup boss, NioEventLoopGroup workers) {
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
