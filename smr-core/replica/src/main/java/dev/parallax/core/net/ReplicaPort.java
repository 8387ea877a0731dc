package dev.parallax.core.net;

import dev.parallax.core.wire.NetMetrics;
import dev.parallax.core.wire.BodyReader;
import dev.parallax.core.wire.BadFrameException;
import dev.parallax.core.wire.LogRateLimiter;
import dev.parallax.core.wire.FrameDecoder;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.Names;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.wire.tls.TlsGate;
import dev.parallax.core.wire.tls.TlsRefusals;
import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.stage.Stage;
import dev.parallax.core.stage.StageHandle;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.Counter;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The replica port (ReplicaIO, seed 000 (JPaxos staged replica) §V-B): replica-to-replica
 * messaging over TCP, shared by every protocol instance of the process through named
 * <b>channels</b> ({@link #channel}). Every replica listens on its member address and opens one
 * outbound connection to each peer; all channels share those connections.
 *
 * <h2>Wire</h2>
 * Frames are {@code length:4 version:1 type:1 channel:1 body} ({@link Frames}); channel 0 is the
 * port's own control channel: {@code HELLO} (type 0, {@code id:4 members:4}) opens every
 * connection, and {@code ANNOUNCE} (type 1, {@code number:1 name:bytes}) tells the receiver which
 * name the sender's channel number stands for, once per connection before the first frame of that
 * channel. Numbers are the sender's own, so two replicas need not open their channels in the same
 * order; they are matched by name.
 *
 * <h2>Sending</h2>
 * Per peer, one sender stage drains every channel's bounded send queue for that peer, encodes a
 * batch of frames and writes it with one flush, so protocol threads never block on a socket.
 * Messages to a peer whose connection is down are dropped and counted (TCP loses them too when a
 * connection breaks); a full send queue refuses the message. Outbound connections reconnect with
 * exponential back-off (10 ms to 1 s; a connection the peer closes within a second of opening
 * counts as a failed attempt, so a peer that refuses us is not redialled in a loop). Messages a
 * replica sends to itself are handed to the
 * channel's handler directly. The bytes of every frame written are counted per channel
 * ({@code parallax.net.bytes.sent{channel,replica}}, framing included, announcements not), so the
 * traffic of two protocols, or of two layers of one (S-Paxos' dissemination and ordering), is
 * measured apart.
 *
 * <h2>Receiving</h2>
 * A Netty IO thread per inbound connection decodes frames and hands each message to its channel's
 * {@link MessageHandler}, after stamping the sender's arrival ({@link ArrivalStamps}) for every
 * frame, whatever its channel. A frame for a channel this replica has not started (a protocol it
 * does not run, or not yet) is dropped and counted ({@code parallax.net.channel.unknown}). A
 * malformed frame, or a frame for a channel that was never announced, closes its connection with
 * a log line (rate-limited, {@link LogRateLimiter}) and {@code parallax.net.bad.frames} (exact); the other connections go on. So does a frame left
 * incomplete longer than {@link ReplicaConfig#partialFrameTimeout()}.
 *
 * <h2>Mutual TLS (issue 12 item 8)</h2>
 * With {@link TlsConfig#replicaPort()} on, every connection runs TLS under the frames, both ends
 * presenting their certificate and checking the other's against the CA ({@link TlsContexts}). The
 * accepting replica requires the peer's certificate to name the replica its HELLO announces
 * ({@code parallax-replica-<id>}, {@link dev.parallax.core.wire.tls.PeerIdentity}); the connecting
 * replica requires the accepting one's to name the peer it dialled, and sends nothing before that.
 * A failed handshake (no certificate, an untrusted one, bytes that are not TLS, a handshake past
 * {@link TlsConfig#handshakeTimeout()}) closes the connection and counts
 * {@code parallax.net.refused{kind=replica,reason=tls}}; a certificate naming another replica
 * counts {@code reason=identity} ({@link TlsRefusals}, logged rate-limited). So a process without
 * a certificate of the cluster's CA cannot join or send a single frame, and a replica cannot
 * speak as another.
 *
 * <h2>Lifecycle and threads</h2>
 * Channels are opened before the port starts (a replica's protocols open theirs while being
 * built); the port starts — binds, connects, starts its sender stages on the given
 * {@link StageThreads} — when the first channel starts. {@link Transport#send} from any thread,
 * never blocking; {@link #close} once, by the owner (it closes every channel).
 */
public final class ReplicaPort implements AutoCloseable {
    /** Channel number of the port's control frames. */
    static final int CONTROL = 0;
    /** Control frame opening a connection: {@code id:4 members:4}. */
    static final int HELLO = 0;
    /** Control frame naming a channel number: {@code number:1 name:bytes}. */
    static final int ANNOUNCE = 1;
    private static final int MAX_CHANNELS = 255;
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaPort.class);
    /** Bad-frame warnings of every replica port in the process; the meter counts each one. */
    private static final LogRateLimiter BAD_FRAME_WARNINGS = LogRateLimiter.withDefaults("replica port bad frames");

    private final ReplicaConfig config;
    private final MeterRegistry registry;
    private final StageThreads threads;
    private final Clock clock;
    private final NetMetrics metrics;
    private final Counter unknownChannel;
    /** TLS contexts of the replica port, or {@code null} without TLS. */
    private final TlsContexts tls;
    private final TlsRefusals refusals;
    private final Map<String, PortChannel<?>> byName = new ConcurrentHashMap<>();
    private final List<PortChannel<?>> channels = new ArrayList<>();
    private final List<PeerSender> senders = new ArrayList<>();
    private final List<StageHandle> handles = new ArrayList<>();
    private volatile ArrivalStamps[] stamps = new ArrivalStamps[0];
    private volatile boolean started;
    private volatile boolean closed;
    private NioEventLoopGroup group;
    private Channel server;

    /**
     * @param threads where the per-peer sender stages run (the replica's placement)
     * @throws IllegalArgumentException if {@code config} turns TLS on and its files cannot be loaded
     */
    public ReplicaPort(ReplicaConfig config, MeterRegistry registry, StageThreads threads, Clock clock) {
        this.config = Objects.requireNonNull(config);
        this.registry = Objects.requireNonNull(registry);
        this.threads = Objects.requireNonNull(threads);
        this.clock = Objects.requireNonNull(clock);
        this.metrics = new NetMetrics(registry, "replica");
        this.unknownChannel = Counter.builder("parallax.net.channel.unknown")
                .description("frames from peers for a channel this replica does not run (dropped)")
                .tag("replica", Integer.toString(config.id())).register(registry);
        if (config.tls().replicaPort()) {
            this.tls = TlsContexts.load(config.tls());
            this.refusals = metrics.tlsRefusals("replica " + config.id());
        } else {
            this.tls = null;
            this.refusals = null;
        }
    }

    /** Network meters of this port. */
    public NetMetrics metrics() {
        return metrics;
    }

    /**
     * Opens the channel {@code name}: a {@link Transport} for messages encoded by {@code codec},
     * sharing this port's connections. Its {@code start} starts the port if it is not yet running.
     *
     * @param name 1..64 characters of {@code [a-z0-9.-]}, matched by name at the peers
     * @throws IllegalArgumentException if the name is malformed or taken
     * @throws IllegalStateException    if the port has started or closed, or 255 channels are open
     */
    public synchronized <M> Transport<M> channel(String name, MessageCodec<M> codec) {
        Names.check("channel", name);
        if (started || closed) {
            throw new IllegalStateException("channel '" + name + "' opened after the replica port started; "
                    + "open every channel while building the protocol");
        }
        if (byName.containsKey(name)) {
            throw new IllegalArgumentException("channel '" + name + "' is already open");
        }
        if (channels.size() == MAX_CHANNELS) {
            throw new IllegalStateException("at most " + MAX_CHANNELS + " channels per replica port");
        }
        PortChannel<M> c = new PortChannel<>(channels.size() + 1, name, Objects.requireNonNull(codec));
        channels.add(c);
        byName.put(name, c);
        return c;
    }

    private synchronized void addStamps(ArrivalStamps s) {
        ArrivalStamps[] old = stamps;
        ArrivalStamps[] now = java.util.Arrays.copyOf(old, old.length + 1);
        now[old.length] = s;
        stamps = now;
    }

    private synchronized void startOnce() {
        if (started || closed) {
            return;
        }
        started = true;
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
                        if (tls != null) {
                            ch.pipeline().addLast(tls.handler(tls.peerServer(), ch), new TlsGate(refusals, null));
                        }
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
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 4 << 20));
        for (Member peer : config.members().members()) {
            if (peer.id() == config.id()) {
                senders.add(null);
                continue;
            }
            PeerSender s = new PeerSender(peer, client.clone().handler(outbound(peer.id())), List.copyOf(channels));
            senders.add(s);
            handles.add(threads.run(s));
        }
    }

    /**
     * The pipeline of an outbound connection to {@code peer}: TLS expecting that peer's certificate
     * (with TLS on), then a sink, since outbound connections carry no inbound traffic.
     */
    private ChannelInitializer<SocketChannel> outbound(int peer) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                if (tls != null) {
                    ch.pipeline().addLast(tls.handler(tls.peerClient(), ch), new TlsGate(refusals, TlsConfig.replicaIdentity(peer)));
                }
                ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        LOG.debug("replica {}: connection to peer {} failed: {}", config.id(), peer, cause.toString());
                        ctx.close();
                    }
                });
            }
        };
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (PortChannel<?> c : channels) {
            c.closed = true;
        }
        handles.forEach(StageHandle::close);
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

    /** One named channel: a {@link Transport} over the port's connections. */
    private final class PortChannel<M> implements Transport<M> {
        final int number;
        final String name;
        final MessageCodec<M> codec;
        final List<BoundedQueue<M>> queues = new ArrayList<>();
        final Counter dropped;
        /** Bytes of this channel's frames written to peers, framing included ({@code parallax.net.bytes.sent{channel}}). */
        final Counter bytesSent;
        volatile MessageHandler<M> handler;
        volatile boolean closed;

        PortChannel(int number, String name, MessageCodec<M> codec) {
            this.number = number;
            this.name = name;
            this.codec = codec;
            for (int p = 0; p < config.members().size(); p++) {
                queues.add(p == config.id() ? null : Queues.mpsc(config.sendQueueCapacity()));
            }
            this.dropped = Counter.builder("parallax.net.channel.dropped")
                    .description("messages of a channel dropped: peer unreachable or its send queue full")
                    .tag("channel", name).tag("replica", Integer.toString(config.id())).register(registry);
            this.bytesSent = Counter.builder("parallax.net.bytes.sent")
                    .description("bytes of a channel's frames written to peers, framing included")
                    .tag("channel", name).tag("replica", Integer.toString(config.id())).register(registry);
        }

        @Override
        public int localId() {
            return config.id();
        }

        @Override
        public void start(MessageHandler<M> messageHandler) {
            start(messageHandler, ArrivalStamps.NONE);
        }

        /** Starts, stamping {@code arrivals} on every frame a peer's connection delivers (any channel, hello included). */
        @Override
        public void start(MessageHandler<M> messageHandler, ArrivalStamps arrivals) {
            Objects.requireNonNull(messageHandler);
            synchronized (ReplicaPort.this) {
                if (handler != null || closed) {
                    throw new IllegalStateException("channel '" + name + "' already started or closed");
                }
                handler = messageHandler;
                if (arrivals != ArrivalStamps.NONE) {
                    addStamps(arrivals);
                }
                startOnce();
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
                MessageHandler<M> h = handler;
                if (h == null) {
                    return false;
                }
                h.onMessage(to, message);
                return true;
            }
            if (!queues.get(to).offer(message)) {
                dropped.increment();
                metrics.dropped();
                return false;
            }
            return true;
        }

        /** Stops this channel: later sends are refused and frames for it are dropped. The port goes on. */
        @Override
        public void close() {
            closed = true;
            handler = null;
        }
    }

    /** Decodes frames from one inbound peer connection. */
    private final class Inbound extends SimpleChannelInboundHandler<ByteBuf> {
        private final ByteBufWire.Reader reader = new ByteBufWire.Reader();
        private final String[] announced = new String[MAX_CHANNELS + 1];
        private final PortChannel<?>[] resolved = new PortChannel<?>[MAX_CHANNELS + 1];
        private int peer = -1;
        /** Set once a bad frame closed this connection: frames already read behind it are ignored, not counted again. */
        private boolean rejected;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (rejected) {
                return;
            }
            int type = Frames.readType(frame);
            int channel = BodyReader.readUnsignedByte(frame);
            if (peer < 0) {
                if (channel != CONTROL || type != HELLO) {
                    throw new BadFrameException("first frame must be a hello, got type " + type + " on channel " + channel);
                }
                int id = BodyReader.readInt(frame);
                int size = BodyReader.readInt(frame);
                BodyReader.end(frame);
                if (size != config.members().size() || id < 0 || id >= size || id == config.id()) {
                    throw new BadFrameException("hello from member " + id + " of a " + size + "-member cluster; this is member "
                            + config.id() + " of " + config.members().size());
                }
                if (tls != null && !ctx.pipeline().get(TlsGate.class).require(ctx, TlsConfig.replicaIdentity(id))) {
                    rejected = true; // counted and closed by the gate; frames read behind this one are ignored
                    return;
                }
                peer = id;
                stamp();
                return;
            }
            stamp();
            if (channel == CONTROL) {
                control(type, frame);
                return;
            }
            deliver(channel, type, frame);
        }

        private void control(int type, ByteBuf frame) {
            if (type != ANNOUNCE) {
                throw new BadFrameException("unknown control frame type " + type);
            }
            int number = BodyReader.readUnsignedByte(frame);
            String name = new String(BodyReader.readBytes(frame), StandardCharsets.UTF_8);
            BodyReader.end(frame);
            if (number == CONTROL || !Names.valid(name)) {
                throw new BadFrameException("bad channel announcement: " + number + " = '" + name + "'");
            }
            announced[number] = name;
            resolved[number] = byName.get(name);
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private void deliver(int channel, int type, ByteBuf frame) {
            PortChannel c = resolved[channel];
            if (c == null) {
                String name = announced[channel];
                if (name == null) {
                    throw new BadFrameException("frame on channel " + channel + ", which was never announced");
                }
                unknownChannel.increment();
                return;
            }
            MessageHandler h = c.handler;
            if (h == null) {
                unknownChannel.increment();
                return;
            }
            Object message;
            try {
                message = c.codec.decode(type, reader.on(frame));
            } catch (BadFrameException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new BadFrameException("undecodable frame of type " + type + " on channel '" + c.name + "': " + e, e);
            }
            h.onMessage(peer, message);
        }

        private void stamp() {
            for (ArrivalStamps s : stamps) {
                s.heard(peer);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof java.io.IOException) {
                LOG.debug("replica {}: connection from {} failed: {}", config.id(), ctx.channel().remoteAddress(), cause.toString());
                ctx.close();
                return;
            }
            if (rejected) {
                return;
            }
            rejected = true;
            metrics.badFrame();
            BAD_FRAME_WARNINGS.warn(LOG, "replica {}: closing connection from {} (peer {}): {}", config.id(),
                    ctx.channel().remoteAddress(), peer, cause.toString());
            ctx.close();
        }
    }

    /** The sender stage of one peer: owns its outbound connection and drains every channel's queue for it. */
    private final class PeerSender implements Stage {
        private static final long MIN_BACKOFF = TimeUnit.MILLISECONDS.toNanos(10);
        private static final long MAX_BACKOFF = TimeUnit.SECONDS.toNanos(1);
        private static final int BATCH = 256;

        private final Member peer;
        private final Bootstrap bootstrap;
        private final List<PortChannel<?>> channels;
        private final List<BoundedQueue<?>> queues = new ArrayList<>();
        private final ByteBufWire.Writer writer = new ByteBufWire.Writer();
        /** Which channels were announced on {@link #announcedOn}; sender thread only. */
        private final boolean[] announced;
        private Channel announcedOn;
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
        /** When {@link #channel} was opened (IO thread writes, sender thread reads). */
        private volatile long openedAt;
        /** The last closed connection whose lifetime set the back-off; sender thread only. */
        private Channel closedSeen;
        private ByteBuf batch;

        PeerSender(Member peer, Bootstrap bootstrap, List<PortChannel<?>> channels) {
            this.peer = peer;
            this.bootstrap = bootstrap;
            this.channels = channels;
            for (PortChannel<?> c : channels) {
                queues.add(c.queues.get(peer.id()));
            }
            this.announced = new boolean[MAX_CHANNELS + 1];
        }

        @Override
        public String name() {
            return "replica-send-" + config.id() + "-to-" + peer.id();
        }

        @Override
        public List<? extends BoundedQueue<?>> inputQueues() {
            return queues;
        }

        @Override
        public int doWork() {
            Channel ch = channel;
            if (ch == null || !ch.isActive()) {
                int dropped = 0;
                for (PortChannel<?> c : channels) {
                    dropped += c.queues.get(peer.id()).drain(m -> {
                        c.dropped.increment();
                        metrics.dropped();
                    }, BATCH);
                }
                connect();
                return dropped;
            }
            if (!ch.isWritable()) {
                return 0; // the peer reads slowly: keep messages queued; senders see the queues fill up
            }
            if (announcedOn != ch) {
                java.util.Arrays.fill(announced, false);
                announcedOn = ch;
            }
            int n = 0;
            for (int i = 0; i < channels.size(); i++) {
                n += drainChannel(ch, channels.get(i));
            }
            if (batch != null) {
                ch.writeAndFlush(batch, ch.voidPromise());
                batch = null;
            }
            return n;
        }

        private <M> int drainChannel(Channel ch, PortChannel<M> c) {
            BoundedQueue<M> q = c.queues.get(peer.id());
            if (q.isEmpty()) {
                return 0;
            }
            if (batch == null) {
                batch = ch.alloc().ioBuffer(16 * 1024);
            }
            if (!announced[c.number]) {
                byte[] name = c.name.getBytes(StandardCharsets.UTF_8);
                int at = Frames.startFrame(batch, ANNOUNCE);
                batch.writeByte(CONTROL).writeByte(c.number).writeInt(name.length).writeBytes(name);
                Frames.finishFrame(batch, at);
                announced[c.number] = true;
            }
            writer.on(batch);
            int from = batch.writerIndex();
            int n = q.drain(m -> {
                int at = Frames.startFrame(batch, c.codec.type(m));
                batch.writeByte(c.number);
                c.codec.encode(m, writer);
                Frames.finishFrame(batch, at);
            }, BATCH);
            c.bytesSent.increment(batch.writerIndex() - from);
            return n;
        }

        /**
         * Opens the connection, unless an attempt is under way or the back-off has not passed. A
         * connection that closed less than {@link #MAX_BACKOFF} after it opened counts as a failed
         * attempt (the peer accepts and then refuses us: a TLS or hello refusal), so such a peer
         * is retried with back-off, not in a loop; a longer-lived one resets the back-off.
         */
        private void connect() {
            if (attemptInFlight || closed) {
                return;
            }
            long now = clock.nanoTime();
            Channel last = channel;
            if (last != null && last != closedSeen) {
                closedSeen = last;
                if (now - openedAt < MAX_BACKOFF) {
                    backOff(now);
                } else {
                    backoff = MIN_BACKOFF;
                }
            }
            if (now - nextAttempt < 0) {
                return;
            }
            attemptInFlight = true;
            ChannelFuture attempt = bootstrap.connect(peer.host(), peer.port());
            connecting = attempt;
            attempt.addListener((ChannelFuture f) -> {
                if (!f.isSuccess()) {
                    failed();
                } else if (tls == null) {
                    opened(f.channel());
                } else {
                    // Nothing is sent before the peer proved to be the replica this connection is for.
                    f.channel().pipeline().get(TlsGate.class).verified().addListener(v -> {
                        if (v.isSuccess()) {
                            opened(f.channel());
                        } else {
                            failed();
                        }
                    });
                }
            });
        }

        /** IO thread: the connection is up (and verified): hello, then hand it to the sender. */
        private void opened(Channel ch) {
            ByteBuf hello = ch.alloc().buffer(15);
            Frames.writeHeader(hello, HELLO, 9);
            hello.writeByte(CONTROL).writeInt(config.id()).writeInt(config.members().size());
            ch.writeAndFlush(hello);
            openedAt = clock.nanoTime();
            channel = ch;
            attemptInFlight = false;
        }

        /** IO thread: the attempt failed; the next one waits for the back-off. */
        private void failed() {
            metrics.connectFailed();
            backOff(clock.nanoTime());
            attemptInFlight = false;
        }

        private void backOff(long now) {
            long wait = backoff;
            nextAttempt = now + wait;
            backoff = Math.min(MAX_BACKOFF, wait * 2);
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
