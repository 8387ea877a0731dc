package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.ReplicaKeys;
import dev.parallax.core.wire.BadFrameException;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.ConnectionLimit;
import dev.parallax.core.wire.FrameDecoder;
import dev.parallax.core.wire.LogRateLimiter;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.wire.NetMetrics;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.wire.tls.TlsGate;
import dev.parallax.core.wire.tls.TlsRefusals;
import dev.parallax.core.stage.BoundedQueue;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * ClientIO (seed 000 §V-A): k Netty event loops accept client connections, decode requests and put
 * them on the bounded RequestQueue. When the queue is full, the connection's surplus requests wait
 * in a small per-connection backlog and the connection stops reading its socket until the backlog
 * drains — back-pressure reaches the client through TCP. The same happens while a connection's
 * replies (and redirects) pile up unsent because its client does not read them: past the high
 * write-buffer water mark the connection stops reading requests, and it resumes below the low
 * mark, so a client that pipelines without reading holds a bounded amount of replica memory. A
 * replica that does not lead answers requests with a redirect to the leader it believes in
 * (counted: {@code parallax.client.redirects}), and one that stops leading redirects its clients'
 * connections at once ({@link LeaderChangeRedirects}). A
 * malformed or oversized frame, or one left incomplete past the partial-frame timeout, closes that
 * connection with a logged reason and a metric. Every byte of a reply, redirect or snapshot
 * control frame written to a client connection is counted ({@code parallax.client.bytes.sent};
 * snapshot file chunks are not), so a benchmark can tell how the work of answering clients is
 * spread over the replicas. At most {@link ReplicaConfig#clientMaxConnections()} connections are
 * open at once ({@link ConnectionLimit}): one beyond is closed at once (the client protocol has no
 * connection-level error), counted ({@code parallax.client.connections.refused}) and logged.
 *
 * <p>With {@link dev.parallax.core.config.TlsConfig#clientPorts()} on, every connection runs TLS
 * with this replica's certificate (no client certificate asked); a failed handshake, or bytes
 * that are not TLS, close the connection and count
 * {@code parallax.net.refused{kind=client,reason=tls}} ({@link TlsGate}). Snapshot requests from
 * peers arrive over the same TLS.
 *
 * <p>Each command's read time goes to a {@link ClientLatency}, which the {@link ReplyRouter}
 * tells when the reply is written ({@code parallax.client.command.latency}).
 *
 * <p>Threads: Netty's; each connection is handled by one event loop. {@link #start} and
 * {@link #close} once each.
 */
final class ClientIO {
    private static final Logger LOG = LoggerFactory.getLogger(ClientIO.class);
    /** Warnings of closed client connections, process-wide; {@code parallax.net.bad.frames} counts each bad frame. */
    private static final LogRateLimiter CLOSE_WARNINGS = LogRateLimiter.withDefaults("client connections closed");
    private static final long RETRY_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    /** How often the redirect hint is looked at for a leadership this replica lost ({@link LeaderChangeRedirects}). */
    private static final long LEADER_CHECK_MILLIS = 5;

    private final int self;
    private final Member address;
    private final int threads;
    private final int maxFrameBytes;
    private final int maxCommandBytes;
    private final WriteBufferWaterMark waterMark;
    private final long partialFrameTimeoutNanos;
    private final BoundedQueue<Command> requests;
    private final IntSupplier leader;
    private final ReplyRouter router;
    private final QueryPath queries;
    private final NetMetrics metrics;
    /** Times commands from request to reply; null: not timed. */
    private final ClientLatency latency;
    /** TLS contexts of the client port, or {@code null} without TLS. */
    private final TlsContexts tls;
    private final TlsRefusals refusals;
    private final AtomicInteger stalled = new AtomicInteger();
    private final AtomicInteger writeStalled = new AtomicInteger();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder redirects = new LongAdder();
    private final BytesSentCounter bytesSentCounter = new BytesSentCounter();
    private final Set<Channel> open = ConcurrentHashMap.newKeySet();
    private final LeaderChangeRedirects leaderChanges;
    private final ConnectionLimit connections;
    private volatile SnapshotServer snapshots;
    private NioEventLoopGroup boss;
    private NioEventLoopGroup workers;
    private Channel server;

    ClientIO(ReplicaConfig config, BoundedQueue<Command> requests, IntSupplier leader, ReplyRouter router, QueryPath queries,
             NetMetrics metrics) {
        this(config, requests, leader, router, queries, metrics, null);
    }

    /** As above, noting each request's read time in {@code latency} (null: not timed). */
    ClientIO(ReplicaConfig config, BoundedQueue<Command> requests, IntSupplier leader, ReplyRouter router, QueryPath queries,
             NetMetrics metrics, ClientLatency latency) {
        this.latency = latency;
        this.queries = queries;
        this.self = config.id();
        this.address = config.clientAddress();
        this.threads = config.clientIoThreads();
        this.maxFrameBytes = config.maxFrameBytes();
        this.maxCommandBytes = config.maxCommandBytes();
        this.waterMark = new WriteBufferWaterMark(config.clientWriteLowBytes(), config.clientWriteHighBytes());
        this.partialFrameTimeoutNanos = config.partialFrameTimeout().toNanos();
        this.requests = requests;
        this.leader = leader;
        this.leaderChanges = new LeaderChangeRedirects(self, leader, redirects);
        this.router = router;
        this.metrics = metrics;
        this.connections = new ConnectionLimit("replica " + self + ": client port", ReplicaKeys.CLIENT_MAX_CONNECTIONS.name(),
                config.clientMaxConnections(), new byte[0]);
        if (config.tls().clientPorts()) {
            this.tls = TlsContexts.load(config.tls());
            this.refusals = metrics.tlsRefusals("replica " + self);
        } else {
            this.tls = null;
            this.refusals = null;
        }
    }

    /** Answers snapshot requests from peers with {@code server}. */
    void serveSnapshots(SnapshotServer server) {
        this.snapshots = server;
    }

    /** Connections that currently do not read their socket because the RequestQueue is full. */
    int stalledConnections() {
        return stalled.get();
    }

    /** Connections that currently do not read their socket because their client does not read its replies. */
    int writeStalledConnections() {
        return writeStalled.get();
    }

    /** Reply and redirect bytes written to client connections and not yet taken by their sockets, in all. */
    long pendingReplyBytes() {
        long sum = 0;
        for (Channel ch : open) {
            ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
            if (out != null) {
                sum += out.totalPendingWriteBytes();
            }
        }
        return sum;
    }

    /** Requests answered with a redirect so far. */
    long redirects() {
        return redirects.sum();
    }

    /** Bytes written to client connections so far (replies, redirects, snapshot control frames). */
    long bytesSent() {
        return bytesSent.sum();
    }

    /** Connections open now (admitted by the connection limit and not yet closed). */
    int openConnections() {
        return connections.open();
    }

    /** Registers the back-pressure and connection gauges and the bytes-sent and refused counters of this ClientIO in {@code registry}. */
    void registerMeters(MeterRegistry registry) {
        String replica = Integer.toString(self);
        connections.register(registry, "parallax.client.connections", Tags.of("replica", replica));
        Gauge.builder("parallax.client.connections.stalled", this, ClientIO::stalledConnections)
                .description("client connections not being read because the RequestQueue is full")
                .tag("replica", replica).register(registry);
        Gauge.builder("parallax.client.connections.write.stalled", this, ClientIO::writeStalledConnections)
                .description("client connections not being read because their client does not read its replies")
                .tag("replica", replica).register(registry);
        Gauge.builder("parallax.client.pending.reply.bytes", this, ClientIO::pendingReplyBytes)
                .description("reply bytes waiting in the replica for slow client sockets, in all")
                .baseUnit("bytes").tag("replica", replica).register(registry);
        FunctionCounter.builder("parallax.client.redirects", redirects, LongAdder::sum)
                .description("requests answered with a redirect to the leader, and client connections redirected when "
                        + "this replica stopped leading (never with an ordering that serves clients at every replica, such as S-Paxos)")
                .tag("replica", replica).register(registry);
        FunctionCounter.builder("parallax.client.bytes.sent", bytesSent, LongAdder::sum)
                .description("bytes written to client connections: replies, redirects, snapshot control frames")
                .tag("replica", replica).register(registry);
    }

    /** Binds the client port. @return the bound port (useful with port 0) */
    int start() {
        boss = new NioEventLoopGroup(1, new DefaultThreadFactory("client-accept-" + self, true));
        workers = new NioEventLoopGroup(threads, new DefaultThreadFactory("client-io-" + self, true));
        ServerBootstrap b = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!connections.admit(ch)) {
                            return;
                        }
                        metrics.connected();
                        if (tls != null) {
                            ch.pipeline().addLast(tls.handler(tls.clientServer(), ch), new TlsGate(refusals, null));
                        }
                        ch.pipeline().addLast(new FrameDecoder(maxFrameBytes, partialFrameTimeoutNanos, metrics),
                                new io.netty.handler.stream.ChunkedWriteHandler(), bytesSentCounter, new Connection());
                    }
                });
        boss.scheduleAtFixedRate(leaderChanges::check, LEADER_CHECK_MILLIS, LEADER_CHECK_MILLIS, TimeUnit.MILLISECONDS);
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

    /** Counts the bytes of every buffer written toward a client connection's socket; shared by all connections. */
    @ChannelHandler.Sharable
    private final class BytesSentCounter extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (msg instanceof ByteBuf b) {
                bytesSent.add(b.readableBytes());
            }
            super.write(ctx, msg, promise);
        }
    }

    /**
     * One client connection; all its state is touched only by its event loop. It reads its socket
     * only while neither reason to pause holds: requests waiting for room in the RequestQueue, or
     * replies waiting for the client to read them.
     */
    private final class Connection extends SimpleChannelInboundHandler<ByteBuf> {
        private final ArrayDeque<Command> backlog = new ArrayDeque<>();
        private long clientId;
        private boolean bound;
        private boolean retryScheduled;
        private boolean queueStalled;
        private boolean repliesStalled;

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            open.add(ctx.channel());
            super.channelActive(ctx);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            int type = Frames.readType(frame);
            if (type == ClientWire.SNAPSHOT_REQUEST) {
                SnapshotServer s = snapshots;
                if (s == null) {
                    throw new BadFrameException("this replica serves no snapshots");
                }
                s.handle(ctx, frame);
                return;
            }
            if (type == ClientWire.QUERY) {
                if (queries == null) {
                    throw new BadFrameException("this replica answers no queries");
                }
                // Any replica answers a query (read-index), leader or not: no redirect here.
                ClientWire.Query q = ClientWire.readQuery(frame, maxCommandBytes);
                queries.submit(ctx.channel(), q.query(), q.payload());
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
                leaderChanges.bound(ctx.channel());
            }
            int leaderId = leader.getAsInt();
            if (leaderId != self && leaderId >= 0) {
                // Counts against the write buffer like a reply: an unread stream of redirects pauses reading too.
                ReplyRouter.redirect(ctx.channel(), r.sequence(), leaderId);
                redirects.increment();
                return;
            }
            Command c = new Command(new CommandId(r.clientId(), r.groups(), r.sequence()), r.payload());
            if (latency != null) {
                latency.received(ctx.channel(), c.groups().bits(), r.sequence());
            }
            if (!backlog.isEmpty() || !requests.offer(c)) {
                backlog.add(c);
                stall(ctx);
            }
        }

        /** Stops reading the socket and retries the backlog shortly. */
        private void stall(ChannelHandlerContext ctx) {
            if (!queueStalled) {
                queueStalled = true;
                stalled.incrementAndGet();
                updateReading(ctx);
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
                if (queueStalled) {
                    queueStalled = false;
                    stalled.decrementAndGet();
                    updateReading(ctx);
                }
            } else if (ctx.channel().isActive()) {
                stall(ctx);
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
            boolean stall = !ctx.channel().isWritable();
            if (stall != repliesStalled) {
                repliesStalled = stall;
                if (stall) {
                    writeStalled.incrementAndGet();
                } else {
                    writeStalled.decrementAndGet();
                }
                updateReading(ctx);
            }
            super.channelWritabilityChanged(ctx);
        }

        private void updateReading(ChannelHandlerContext ctx) {
            ctx.channel().config().setAutoRead(!queueStalled && !repliesStalled);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            open.remove(ctx.channel());
            leaderChanges.closed(ctx.channel());
            if (bound) {
                router.unbind(clientId, ctx.channel());
            }
            backlog.clear();
            if (queueStalled) {
                queueStalled = false;
                stalled.decrementAndGet();
            }
            if (repliesStalled) {
                repliesStalled = false;
                writeStalled.decrementAndGet();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof BadFrameException || cause instanceof io.netty.handler.codec.DecoderException) {
                metrics.badFrame();
                CLOSE_WARNINGS.warn(LOG, "replica {}: closing client connection {}: {}", self, ctx.channel().remoteAddress(), cause.toString());
            } else if (cause instanceof java.io.IOException) {
                LOG.debug("replica {}: client connection {} failed: {}", self, ctx.channel().remoteAddress(), cause.toString());
            } else {
                CLOSE_WARNINGS.warn(LOG, "replica {}: closing client connection {} after an error", self, ctx.channel().remoteAddress(), cause);
            }
            ctx.close();
        }
    }
}
