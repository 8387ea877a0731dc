package dev.parallax.core.net;

import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.stage.Stage;
import dev.parallax.core.stage.StageRunner;
import dev.parallax.core.stage.WaitStrategy;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Replica-to-replica messaging over TCP (ReplicaIO, seed 000 §V-B). Every replica listens on its
 * member address and opens one outbound connection to each peer. Per peer, a dedicated sender stage
 * drains a bounded send queue, encodes a batch of messages and writes it with one flush, so the
 * protocol thread never blocks on a socket; a reader (a Netty IO thread) decodes frames and hands
 * messages to the {@link MessageHandler}. Outbound connections reconnect with exponential back-off
 * (10 ms to 1 s). The first frame on a connection is a hello naming the sender.
 *
 * <p>Loss: messages to a peer whose connection is down are dropped (as TCP loses them when a
 * connection breaks) and counted; protocols retransmit. A full send queue refuses the message.
 * A malformed frame closes its connection with a log line and the {@code parallax.net.bad.frames}
 * metric; the other connections go on. So does a frame left incomplete for longer than
 * {@link ReplicaConfig#partialFrameTimeout()} ({@code parallax.net.stale.partial.frames}).
 *
 * <p>Threads: {@link #send} from any thread, never blocking; {@link #start} and {@link #close} once.
 */
public final class NettyReplicaTransport<M> implements Transport<M> {
    /** Frame type of the hello frame; codecs must not use it. */
    public static final int HELLO = 0;
    private static final Logger LOG = LoggerFactory.getLogger(NettyReplicaTransport.class);

    private final ReplicaConfig config;
    private final MessageCodec<M> codec;
    private final MeterRegistry registry;
    private final WaitStrategy.Factory waitStrategy;
    private final Clock clock;
    private final NetMetrics metrics;
    private final List<PeerSender> senders = new ArrayList<>();
    private final List<StageRunner> runners = new ArrayList<>();
    private volatile MessageHandler<M> handler;
    private volatile dev.parallax.core.liveness.PeerLiveness liveness;
    private volatile boolean closed;
    private NioEventLoopGroup group;
    private Channel server;

    public NettyReplicaTransport(ReplicaConfig config, MessageCodec<M> codec, MeterRegistry registry,
                                 WaitStrategy.Factory waitStrategy, Clock clock) {
        this.config = Objects.requireNonNull(config);
        this.codec = Objects.requireNonNull(codec);
        this.registry = Objects.requireNonNull(registry);
        this.waitStrategy = Objects.requireNonNull(waitStrategy);
        this.clock = Objects.requireNonNull(clock);
        this.metrics = new NetMetrics(registry, "replica");
    }

    @Override
    public int localId() {
        return config.id();
    }

    /** Network meters of this transport. */
    public NetMetrics metrics() {
        return metrics;
    }

    /** Starts, stamping {@code peerLiveness} on every frame a peer's connection delivers (hello included). */
    @Override
    public synchronized void start(MessageHandler<M> messageHandler, dev.parallax.core.liveness.PeerLiveness peerLiveness) {
        if (handler != null || closed) {
            throw new IllegalStateException("already started or closed");
        }
        liveness = Objects.requireNonNull(peerLiveness);
        start(messageHandler);
    }

    @Override
    public synchronized void start(MessageHandler<M> messageHandler) {
        if (handler != null || closed) {
            throw new IllegalStateException("already started or closed");
        }
        handler = Objects.requireNonNull(messageHandler);
        group = new NioEventLoopGroup(config.replicaIoThreads(), new DefaultThreadFactory("replica-io-" + config.id(), true));
        Member self = config.self();
        ServerBootstrap sb = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_RCVBUF, 1 << 20)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        metrics.connected();
                        ch.pipeline().addLast(new FrameDecoder(config.maxFrameBytes(),
                                config.partialFrameTimeout().toNanos(), metrics), new Inbound());
                    }
                });
        try {
            server = sb.bind(new InetSocketAddress(self.host(), self.port())).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot listen on replica address " + self + ": " + e.getMessage(), e);
        }
        Bootstrap client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_SNDBUF, 1 << 20)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 1000)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 4 << 20))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        // Outbound connections carry no inbound traffic; anything received is discarded.
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                            }
                        });
                    }
                });
        for (Member peer : config.members().members()) {
            if (peer.id() == config.id()) {
                senders.add(null);
                continue;
            }
            PeerSender s = new PeerSender(peer, client);
            senders.add(s);
            StageRunner r = StageRunner.builder(s).waitStrategy(waitStrategy).clock(clock).meterRegistry(registry).build();
            runners.add(r);
            r.start();
        }
    }

    @Override
    public boolean send(int to, M message) {
        if (to < 0 || to >= config.members().size()) {
            throw new IllegalArgumentException("no member " + to);
        }
        if (closed) {
            return false;
        }
        if (to == config.id()) {
            handler.onMessage(to, message);
            return true;
        }
        if (!senders.get(to).queue.offer(message)) {
            metrics.dropped();
            return false;
        }
        return true;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        runners.forEach(StageRunner::close);
        for (PeerSender s : senders) {
            if (s != null) {
                s.closeChannel();
            }
        }
        if (server != null) {
            server.close().syncUninterruptibly();
        }
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** Decodes frames from one inbound peer connection. */
    private final class Inbound extends SimpleChannelInboundHandler<ByteBuf> {
        private int peer = -1;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            int type = Frames.readType(frame);
            if (peer >= 0) {
                stamp(peer);
            } else {
                if (type != HELLO) {
                    throw new BadFrameException("first frame must be a hello, got type " + type);
                }
                int id = BodyReader.readInt(frame);
                int size = BodyReader.readInt(frame);
                BodyReader.end(frame);
                if (size != config.members().size() || id < 0 || id >= size || id == config.id()) {
                    throw new BadFrameException("hello from member " + id + " of a " + size + "-member cluster; this is member "
                            + config.id() + " of " + config.members().size());
                }
                peer = id;
                stamp(peer);
                return;
            }
            M message;
            try {
                message = codec.decode(type, frame);
            } catch (BadFrameException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new BadFrameException("undecodable frame of type " + type + ": " + e, e);
            }
            handler.onMessage(peer, message);
        }

        private void stamp(int from) {
            dev.parallax.core.liveness.PeerLiveness l = liveness;
            if (l != null) {
                l.heard(from);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof java.io.IOException) {
                LOG.debug("replica {}: connection from {} failed: {}", config.id(), ctx.channel().remoteAddress(), cause.toString());
                ctx.close();
                return;
            }
            metrics.badFrame();
            LOG.warn("replica {}: closing connection from {} (peer {}): {}", config.id(), ctx.channel().remoteAddress(),
                    peer, cause.toString());
            ctx.close();
        }
    }

    /** The sender stage of one peer: owns its outbound connection and bounded send queue. */
    private final class PeerSender implements Stage {
        private static final long MIN_BACKOFF = TimeUnit.MILLISECONDS.toNanos(10);
        private static final long MAX_BACKOFF = TimeUnit.SECONDS.toNanos(1);
        private static final int BATCH = 256;

        final BoundedQueue<M> queue = Queues.mpsc(config.sendQueueCapacity());
        private final Member peer;
        private final Bootstrap bootstrap;
        private volatile Channel channel;
        /*
         * Written by the Netty listener of a connection attempt (an IO thread), read by the sender
         * thread: volatile. The listener writes nextAttempt/backoff/channel first and clears
         * attemptInFlight last, so a sender that sees no attempt in flight also sees its outcome
         * (a future that is merely done could be seen before its listener ran: no back-off).
         */
        private volatile boolean attemptInFlight;
        private volatile ChannelFuture connecting;
        private volatile long nextAttempt;
        private volatile long backoff = MIN_BACKOFF;
        private ByteBuf batch;

        PeerSender(Member peer, Bootstrap bootstrap) {
            this.peer = peer;
            this.bootstrap = bootstrap;
        }

        @Override
        public String name() {
            return "replica-send-" + config.id() + "-to-" + peer.id();
        }

        @Override
        public List<? extends BoundedQueue<?>> inputQueues() {
            return List.of(queue);
        }

        @Override
        public int doWork() {
            Channel ch = channel;
            if (ch == null || !ch.isActive()) {
                int dropped = queue.drain(m -> metrics.dropped(), BATCH);
                connect();
                return dropped;
            }
            if (!ch.isWritable()) {
                return 0; // the peer reads slowly: keep messages queued; senders see the queue fill up
            }
            batch = ch.alloc().ioBuffer(16 * 1024);
            int n = queue.drain(this::encode, BATCH);
            if (n > 0) {
                ch.writeAndFlush(batch, ch.voidPromise());
            } else {
                batch.release();
            }
            batch = null;
            return n;
        }

        private void encode(M message) {
            int at = Frames.startFrame(batch, codec.type(message));
            codec.encode(message, batch);
            Frames.finishFrame(batch, at);
        }

        private void connect() {
            if (attemptInFlight || closed) {
                return;
            }
            long now = clock.nanoTime();
            if (now - nextAttempt < 0) {
                return;
            }
            attemptInFlight = true;
            ChannelFuture attempt = bootstrap.connect(peer.host(), peer.port());
            connecting = attempt;
            attempt.addListener((ChannelFuture f) -> {
                if (f.isSuccess()) {
                    ByteBuf hello = f.channel().alloc().buffer(14);
                    Frames.writeHeader(hello, HELLO, 8);
                    hello.writeInt(config.id()).writeInt(config.members().size());
                    f.channel().writeAndFlush(hello);
                    backoff = MIN_BACKOFF;
                    channel = f.channel();
                } else {
                    metrics.connectFailed();
                    long wait = backoff;
                    nextAttempt = clock.nanoTime() + wait;
                    backoff = Math.min(MAX_BACKOFF, wait * 2);
                }
                attemptInFlight = false;
            });
        }

        void closeChannel() {
            Channel ch = channel;
            if (ch != null) {
                ch.close().syncUninterruptibly();
            }
            ChannelFuture attempt = connecting;
            if (attempt != null) {
                attempt.cancel(false);
            }
        }
    }
}
