package dev.parallax.bench.systems.framed;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.function.Supplier;

/**
 * The server side of the length-prefixed request/reply protocol {@link FramedClient} speaks. Each
 * accepted connection gets its own {@link Handler} (from the factory) that sees every command frame
 * (length prefix stripped) and must answer each command exactly once, in order, with
 * {@link Replies#reply}. Replies written during one read burst are flushed together at its end.
 *
 * <p>Threads: handlers run on the connection's event loop; {@link Replies} may be called from
 * other threads (it hops to the event loop).
 */
public final class FramedServer implements AutoCloseable {
    /** Largest frame either side accepts. */
    public static final int MAX_FRAME = 1 << 20;

    /** Answers commands on one connection. */
    public interface Replies {
        /** Sends {@code reply} (length prefix is added here); any thread. Takes ownership of {@code reply}. */
        void reply(ByteBuf reply);

        /** Allocator-backed buffer for a reply of {@code bytes}. */
        ByteBuf allocate(int bytes);
    }

    /** Per-connection command handler; called on the connection's event loop. */
    public interface Handler {
        /**
         * One command frame. The buffer is released after the call returns: retain it to keep it.
         */
        void onCommand(ByteBuf command, Replies replies);

        /** The connection closed. */
        default void onClose() {
        }
    }

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel server;

    private FramedServer(EventLoopGroup boss, EventLoopGroup workers, Channel server) {
        this.boss = boss;
        this.workers = workers;
        this.server = server;
    }

    /**
     * Binds {@code port} on 127.0.0.1 with {@code threads} event loops; blocks until bound.
     *
     * @throws InterruptedException if interrupted while binding
     */
    public static FramedServer start(int port, int threads, Supplier<Handler> handlers) throws InterruptedException {
        EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("framed-accept", true));
        EventLoopGroup workers = new NioEventLoopGroup(threads, new DefaultThreadFactory("framed-io", true));
        ServerBootstrap b = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4),
                                new Connection(ch, handlers.get()));
                    }
                });
        return new FramedServer(boss, workers, b.bind("127.0.0.1", port).sync().channel());
    }

    /** Unbinds and stops the event loops; blocks until done. */
    @Override
    public void close() {
        server.close().syncUninterruptibly();
        boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static final class Connection extends ChannelInboundHandlerAdapter implements Replies {
        private final Channel channel;
        private final Handler handler;
        private boolean inRead;
        private boolean flushScheduled;

        Connection(Channel channel, Handler handler) {
            this.channel = channel;
            this.handler = handler;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            inRead = true;
            try {
                handler.onCommand(frame, this);
            } finally {
                frame.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            inRead = false;
            ctx.flush();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            handler.onClose();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        @Override
        public void reply(ByteBuf reply) {
            if (channel.eventLoop().inEventLoop()) {
                write(reply);
            } else {
                channel.eventLoop().execute(() -> write(reply));
            }
        }

        private void write(ByteBuf reply) {
            ByteBuf prefix = channel.alloc().buffer(4).writeInt(reply.readableBytes());
            channel.write(prefix, channel.voidPromise());
            channel.write(reply, channel.voidPromise());
            if (!inRead && !flushScheduled) {
                flushScheduled = true;
                channel.eventLoop().execute(this::flush);
            }
        }

        private void flush() {
            flushScheduled = false;
            channel.flush();
        }

        @Override
        public ByteBuf allocate(int bytes) {
            return channel.alloc().buffer(bytes);
        }
    }
}
