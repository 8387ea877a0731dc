package dev.parallax.core.client;

import dev.parallax.core.config.Member;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.wire.tls.TlsGate;
import dev.parallax.core.wire.tls.TlsRefusals;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

import java.time.Duration;

/**
 * Opens an {@link SmrClient}'s connections to the replicas (its commands' and its queries'): TCP
 * with no delay, TLS expecting the replica's certificate when the client trusts a CA, frames, then
 * the caller's handler. A connection is handed out only once it may be used.
 *
 * <p>Threads: {@link #open} on the client's event loop; its future completes there.
 */
final class ReplicaConnector {
    private final ClientConfig config;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    /** TLS towards the replicas, or {@code null}. */
    private final SslContext tls;
    private final TlsRefusals refusals;

    ReplicaConnector(ClientConfig config, EventLoop loop, SslContext tls, TlsRefusals refusals) {
        this.config = config;
        this.loop = loop;
        this.tls = tls;
        this.refusals = refusals;
        this.bootstrap = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(100, config.retryTimeout().toMillis()));
    }

    /**
     * How long a TLS handshake may take: twice the retry timeout, at least a second. A replica
     * that accepts connections but does not answer (a frozen process) is left as soon as a silent
     * one would be, give or take.
     */
    private Duration handshakeTimeout() {
        return Duration.ofMillis(Math.max(1000, 2 * config.retryTimeout().toMillis()));
    }

    /**
     * Opens a connection to replica {@code to} whose frames go to {@code handler}. Completes once it
     * may be used (TCP up and, with TLS, the replica verified), or fails.
     */
    Future<Channel> open(int to, ChannelHandler handler) {
        Member m = config.endpoints().member(to);
        Promise<Channel> ready = loop.newPromise();
        ChannelInitializer<SocketChannel> pipeline = new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                if (tls != null) {
                    ch.pipeline().addLast(TlsContexts.handler(tls, ch, handshakeTimeout()),
                            new TlsGate(refusals, TlsConfig.replicaIdentity(to)));
                }
                ch.pipeline().addLast(Frames.decoder(config.maxFrameBytes()), handler);
            }
        };
        bootstrap.clone().handler(pipeline).connect(m.host(), m.port()).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                ready.tryFailure(f.cause());
            } else if (tls == null) {
                ready.trySuccess(f.channel());
            } else {
                f.channel().pipeline().get(TlsGate.class).verified().addListener((Future<Channel> v) -> {
                    if (v.isSuccess()) {
                        ready.trySuccess(f.channel());
                    } else {
                        ready.tryFailure(v.cause());
                    }
                });
            }
        });
        return ready;
    }
}
