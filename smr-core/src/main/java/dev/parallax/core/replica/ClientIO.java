package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.config.Member;
import dev.parallax.core.net.BadFrameException;
import dev.parallax.core.net.ClientWire;
import dev.parallax.core.net.Frames;
import dev.parallax.core.net.NetMetrics;
import dev.parallax.core.stage.BoundedQueue;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * ClientIO (seed 000 §V-A): k Netty event loops accept client connections, decode requests and put
 * them on the bounded RequestQueue. When the queue is full, the connection's surplus requests wait
 * in a small per-connection backlog and the connection stops reading its socket until the backlog
 * drains — back-pressure reaches the client through TCP. A replica that does not lead answers
 * requests with a redirect to the leader it believes in. A malformed or oversized frame closes
 * that connection with a logged reason and a metric.
 *
 * <p>Threads: Netty's; each connection is handled by one event loop. {@link #start} and
 * {@link #close} once each.
 */
final class ClientIO {
    private static final Logger LOG = LoggerFactory.getLogger(ClientIO.class);
    private static final long RETRY_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final int self;
    private final Member address;
    private final int threads;
    private final int maxFrameBytes;
    private final int maxCommandBytes;
    private final BoundedQueue<Command> requests;
    private final IntSupplier leader;
    private final ReplyRouter router;
    private final NetMetrics metrics;
    private final java.util.concurrent.atomic.AtomicInteger stalled = new java.util.concurrent.atomic.AtomicInteger();
    private volatile SnapshotTransfer snapshots;
    private NioEventLoopGroup boss;
    private NioEventLoopGroup workers;
    private Channel server;

    ClientIO(int self, Member address, int threads, int maxFrameBytes, int maxCommandBytes,
             BoundedQueue<Command> requests, IntSupplier leader, ReplyRouter router, NetMetrics metrics) {
        this.self = self;
        this.address = address;
        this.threads = threads;
        this.maxFrameBytes = maxFrameBytes;
        this.maxCommandBytes = maxCommandBytes;
        this.requests = requests;
        this.leader = leader;
        this.router = router;
        this.metrics = metrics;
    }

    /** Serves snapshot requests from peers with {@code transfer}. */
    void serveSnapshots(SnapshotTransfer transfer) {
        this.snapshots = transfer;
    }

    /** Connections that currently do not read their socket because the RequestQueue is full. */
    int stalledConnections() {
        return stalled.get();
    }

    /** Binds the client port. @return the bound port (useful with port 0) */
    int start() {
        boss = new NioEventLoopGroup(1, new DefaultThreadFactory("client-accept-" + self, true));
        workers = new NioEventLoopGroup(threads, new DefaultThreadFactory("client-io-" + self, true));
        ServerBootstrap b = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        metrics.connected();
                        ch.pipeline().addLast(Frames.decoder(maxFrameBytes), new io.netty.handler.stream.ChunkedWriteHandler(),
                                new Connection());
                    }
                });
        try {
            server = b.bind(new InetSocketAddress(address.host(), address.port())).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            close();
            throw new IllegalStateException("cannot listen on client address " + address + ": " + e.getMessage(), e);
        }
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    void close() {
        if (server != null) {
            server.close().syncUninterruptibly();
        }
        if (boss != null) {
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** One client connection; all its state is touched only by its event loop. */
    private final class Connection extends SimpleChannelInboundHandler<ByteBuf> {
        private final ArrayDeque<Command> backlog = new ArrayDeque<>();
        private long clientId;
        private boolean bound;
        private boolean retryScheduled;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            int type = Frames.readType(frame);
            if (type == ClientWire.SNAPSHOT_REQUEST) {
                long atLeast = dev.parallax.core.net.BodyReader.readLong(frame);
                SnapshotTransfer t = snapshots;
                if (t == null) {
                    throw new BadFrameException("this replica keeps no snapshots");
                }
                t.serve(ctx, atLeast);
                return;
            }
            ClientWire.Request r = ClientWire.readRequest(type, frame, maxCommandBytes);
            if (!bound || r.clientId() != clientId) {
                if (bound) {
                    router.unbind(clientId, ctx.channel());
                }
                clientId = r.clientId();
                bound = true;
                router.bind(clientId, ctx.channel());
            }
            int leaderId = leader.getAsInt();
            if (leaderId != self && leaderId >= 0) {
                ReplyRouter.redirect(ctx.channel(), r.sequence(), leaderId);
                return;
            }
            Command c = new Command(new CommandId(r.clientId(), r.sequence()), r.payload());
            if (!backlog.isEmpty() || !requests.offer(c)) {
                backlog.add(c);
                stall(ctx);
            }
        }

        /** Stops reading the socket and retries the backlog shortly. */
        private void stall(ChannelHandlerContext ctx) {
            if (ctx.channel().config().isAutoRead()) {
                ctx.channel().config().setAutoRead(false);
                stalled.incrementAndGet();
            }
            if (!retryScheduled) {
                retryScheduled = true;
                ctx.executor().schedule(() -> retry(ctx), RETRY_NANOS, TimeUnit.NANOSECONDS);
            }
        }

        private void retry(ChannelHandlerContext ctx) {
            retryScheduled = false;
            while (!backlog.isEmpty() && requests.offer(backlog.peek())) {
                backlog.poll();
            }
            if (backlog.isEmpty()) {
                ctx.channel().config().setAutoRead(true);
                stalled.decrementAndGet();
            } else if (ctx.channel().isActive()) {
                stall(ctx);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (bound) {
                router.unbind(clientId, ctx.channel());
            }
            if (!backlog.isEmpty()) {
                backlog.clear();
                stalled.decrementAndGet();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof BadFrameException || cause instanceof io.netty.handler.codec.DecoderException) {
                metrics.badFrame();
                LOG.warn("replica {}: closing client connection {}: {}", self, ctx.channel().remoteAddress(), cause.toString());
            } else if (cause instanceof java.io.IOException) {
                LOG.debug("replica {}: client connection {} failed: {}", self, ctx.channel().remoteAddress(), cause.toString());
            } else {
                LOG.warn("replica {}: closing client connection {} after an error", self, ctx.channel().remoteAddress(), cause);
            }
            ctx.close();
        }
    }
}
