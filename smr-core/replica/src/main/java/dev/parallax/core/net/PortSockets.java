package dev.parallax.core.net;

import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.wire.FrameDecoder;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.wire.tls.TlsGate;
import dev.parallax.core.wire.tls.TlsRefusals;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
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
import java.util.concurrent.TimeUnit;

/**
 * The Netty side of a {@link ReplicaPort}: owns its event loop group, the listening socket on the
 * replica's member address and the bootstrap that dials peers, and builds both pipelines: inbound
 * connections get (with TLS on) a TLS handler requiring the peer's certificate and a
 * {@link TlsGate}, a {@link FrameDecoder} and an {@link InboundDispatcher}; outbound connections get
 * (with TLS on) a TLS handler and a gate expecting the dialled replica's certificate, then a sink,
 * since they carry no inbound traffic. Loads the TLS contexts at construction.
 *
 * <p>{@link #start} and {@link #close} are called once each, under the port's monitor, and block:
 * on binding, and on closing the listening socket and shutting the event loops down.
 * {@link #dialer} is called after {@link #start}.
 */
final class PortSockets {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaPort.class);

    private final ReplicaConfig config;
    private final PortMeters meters;
    private final ChannelRegistry registry;
    private final PeerTable peers;
    /** TLS contexts of the replica port, or {@code null} without TLS. */
    private final TlsContexts tls;
    private final TlsRefusals refusals;
    private NioEventLoopGroup group;
    private Channel server;
    private Bootstrap client;

    /**
     * @throws IllegalArgumentException if {@code config} turns TLS on and its files cannot be loaded
     */
    PortSockets(ReplicaConfig config, PortMeters meters, ChannelRegistry registry, PeerTable peers) {
        this.config = config;
        this.meters = meters;
        this.registry = registry;
        this.peers = peers;
        if (config.tls().replicaPort()) {
            this.tls = TlsContexts.load(config.tls());
            this.refusals = meters.net().tlsRefusals("replica " + config.id());
        } else {
            this.tls = null;
            this.refusals = null;
        }
    }

    /** Whether connections run TLS. */
    boolean tls() {
        return tls != null;
    }

    /**
     * Starts the event loops and listens on the replica's member address (a joining replica's
     * join address).
     *
     * @throws IllegalStateException if the address cannot be bound
     */
    void start() {
        group = new NioEventLoopGroup(config.replicaIoThreads(), new DefaultThreadFactory("replica-io-" + config.id(), true));
        Member self = config.self();
        ServerBootstrap sb = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_RCVBUF, 1 << 20)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        meters.net().connected();
                        if (tls != null) {
                            ch.pipeline().addLast(tls.handler(tls.peerServer(), ch), new TlsGate(refusals, null));
                        }
                        ch.pipeline().addLast(new FrameDecoder(config.maxFrameBytes(),
                                config.partialFrameTimeout().toNanos(), meters.net()),
                                new InboundDispatcher(config, registry, peers, meters, tls != null));
                    }
                });
        try {
            server = sb.bind(new InetSocketAddress(self.host(), self.port())).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot listen on replica address " + self + ": " + e.getMessage(), e);
        }
        client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_SNDBUF, 1 << 20)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 1000)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 4 << 20));
    }

    /** A bootstrap that dials {@code peer}, with the outbound pipeline for that peer. */
    Bootstrap dialer(int peer) {
        return client.clone().handler(outbound(peer));
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

    /** Closes the listening socket and shuts the event loops down (every connection with them). */
    void close() {
        if (server != null) {
            server.close().syncUninterruptibly();
        }
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
