package dev.parallax.bench.systems.framed;

import dev.parallax.core.client.CommandInvoker;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * A client for the length-prefixed request/reply protocol of {@link FramedServer}: each command is
 * sent as {@code [int length][bytes]}, and the server answers every command, in order, with one
 * frame of the same shape. Used by the systems that have no client of their own (echo, bare
 * forwarder, the jgroups-raft front end), so they are all driven the same way.
 *
 * <p>Threads: {@link #invoke} from any thread, never blocking; writes are flushed once per event
 * loop turn, so a pipeline of commands leaves in few packets. Replies complete futures on the
 * connection's event loop. No retries: a broken connection fails every outstanding command.
 */
public final class FramedClient implements CommandInvoker, AutoCloseable {
    private final Channel channel;
    private final ArrayDeque<CompletableFuture<ByteBuffer>> awaiting = new ArrayDeque<>();
    private boolean flushScheduled;

    private FramedClient(Channel channel) {
        this.channel = channel;
    }

    /**
     * Connects to {@code host:port} on {@code group}; blocks until connected.
     *
     * @throws IOException if the connection fails
     */
    public static FramedClient connect(EventLoopGroup group, String host, int port) throws IOException {
        FramedClient[] self = new FramedClient[1];
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(FramedServer.MAX_FRAME, 0, 4, 0, 4),
                                new SimpleChannelInboundHandler<ByteBuf>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf reply) {
                                        self[0].onReply(reply);
                                    }

                                    @Override
                                    public void channelInactive(ChannelHandlerContext ctx) {
                                        self[0].failAll(new IOException("connection closed"));
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        ctx.close();
                                    }
                                });
                    }
                });
        try {
            Channel ch = b.connect(host, port).sync().channel();
            self[0] = new FramedClient(ch);
            return self[0];
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to " + host + ":" + port, e);
        } catch (Exception e) {
            throw new IOException("cannot connect to " + host + ":" + port, e);
        }
    }

    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
        ByteBuf frame = channel.alloc().buffer(4 + command.remaining());
        frame.writeInt(command.remaining()).writeBytes(command.duplicate());
        if (channel.eventLoop().inEventLoop()) {
            send(f, frame);
        } else {
            channel.eventLoop().execute(() -> send(f, frame));
        }
        return f;
    }

    private void send(CompletableFuture<ByteBuffer> f, ByteBuf frame) {
        if (!channel.isActive()) {
            frame.release();
            f.completeExceptionally(new IOException("connection closed"));
            return;
        }
        awaiting.add(f);
        channel.write(frame, channel.voidPromise());
        if (!flushScheduled) {
            flushScheduled = true;
            channel.eventLoop().execute(this::flush);
        }
    }

    private void flush() {
        flushScheduled = false;
        channel.flush();
    }

    private void onReply(ByteBuf reply) {
        CompletableFuture<ByteBuffer> f = awaiting.poll();
        if (f != null) {
            ByteBuffer copy = ByteBuffer.allocate(reply.readableBytes());
            reply.readBytes(copy);
            f.complete(copy.flip());
        }
    }

    private void failAll(Throwable cause) {
        CompletableFuture<ByteBuffer> f;
        while ((f = awaiting.poll()) != null) {
            f.completeExceptionally(cause);
        }
    }

    /** Closes the connection; outstanding commands fail. Blocks until closed. */
    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
