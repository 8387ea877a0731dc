package dev.parallax.core.wire;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bound on the open connections of one listening port (a replica's client port, the Redis
 * front end's port). Its server's channel initializer asks {@link #admit} first for every accepted
 * connection: below the bound the connection is counted open until its channel closes; at the
 * bound it is refused: counted ({@code <prefix>.refused}), logged at WARN (at most
 * {@link LogRateLimiter#DEFAULT_LINES} lines per {@link LogRateLimiter#DEFAULT_INTERVAL}), and
 * closed, after the port's refusal message if it has one (Redis's
 * {@code -ERR max number of clients reached}): the message is written, the sending side shut, and
 * the connection closed when the client closes or after {@link #LINGER}, so a client that sent a
 * request at once still reads the message rather than a reset. Without a message (a port whose
 * protocol has no connection-level error, or a TLS port, where nothing can be said before a
 * handshake) the connection is closed at once, as Redis does for TLS.
 *
 * <p>The count is exact under concurrency: admission is a compare-and-set below the bound on one
 * atomic counter, release happens once per admitted channel, when its close future completes; a
 * refused connection is never counted open. At most {@link #MAX_LINGERING} refused connections wait
 * for their client at once; more are closed at once, so a flood of refused connections costs no
 * more sockets than that.
 *
 * <p>Thread-safe: {@link #admit} runs on the accepted channel's event loop (inside its
 * initializer), the getters anywhere; nothing blocks.
 */
public final class ConnectionLimit {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimit.class);
    /** How long a refused connection with a message waits for its client to close. */
    public static final Duration LINGER = Duration.ofSeconds(1);
    /** Refused connections that may wait for their client at once. */
    public static final int MAX_LINGERING = 64;

    private final String who;
    private final String key;
    private final int max;
    private final byte[] refusal;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger lingering = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    private final LogRateLimiter warnings;

    /**
     * @param who     names the port in log lines, e.g. {@code "replica 2: client port"}
     * @param key     the configuration key of the bound, named in log lines, e.g. {@code client.max.connections}
     * @param max     connections open at once, at least 1
     * @param refusal bytes written to a refused connection before it is closed; empty: closed at once
     * @throws IllegalArgumentException if {@code max} is not positive
     */
    public ConnectionLimit(String who, String key, int max, byte[] refusal) {
        if (max < 1) {
            throw new IllegalArgumentException(key + " must be positive, got " + max);
        }
        this.who = Objects.requireNonNull(who, "who");
        this.key = Objects.requireNonNull(key, "key");
        this.max = max;
        this.refusal = refusal.clone();
        this.warnings = LogRateLimiter.withDefaults(who + ": connections refused at " + key);
    }

    /**
     * Admits the newly accepted {@code channel} (counted open until it closes) and returns true, or
     * refuses it and returns false: then the caller adds nothing to its pipeline.
     */
    public boolean admit(Channel channel) {
        if (tryOpen()) {
            channel.closeFuture().addListener(f -> open.decrementAndGet());
            return true;
        }
        refused.increment();
        warnings.warn(LOG, "{}: refused a connection from {}: the limit of open connections is reached ({}={})", who,
                channel.remoteAddress(), key, max);
        if (refusal.length == 0 || !(channel instanceof DuplexChannel)) {
            channel.close();
        } else if (lingering.incrementAndGet() > MAX_LINGERING) {
            lingering.decrementAndGet();
            channel.close();
        } else {
            channel.closeFuture().addListener(f -> lingering.decrementAndGet());
            channel.pipeline().addLast(new Refusal());
        }
        return false;
    }

    private boolean tryOpen() {
        for (;;) {
            int n = open.get();
            if (n >= max) {
                return false;
            }
            if (open.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Connections admitted and not yet closed. */
    public int open() {
        return open.get();
    }

    /** Connections refused so far. */
    public long refused() {
        return refused.sum();
    }

    /** The bound. */
    public int max() {
        return max;
    }

    /**
     * Registers {@code <prefix>.open} (a gauge of {@link #open()}) and {@code <prefix>.refused} (a
     * counter of {@link #refused()}) with {@code tags}; returns them, for removal.
     */
    public List<Meter> register(MeterRegistry registry, String prefix, Tags tags) {
        return List.of(
                Gauge.builder(prefix + ".open", this, ConnectionLimit::open)
                        .description("connections open (at most " + key + ")").tags(tags).register(registry),
                FunctionCounter.builder(prefix + ".refused", this, ConnectionLimit::refused)
                        .description("connections refused because " + key + " were open").tags(tags).register(registry));
    }

    /** The only handler of a refused connection: writes the message, shuts the sending side, drops what the client sends. */
    private final class Refusal extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.executor().schedule(() -> ctx.close(), LINGER.toNanos(), TimeUnit.NANOSECONDS);
            ctx.writeAndFlush(Unpooled.wrappedBuffer(refusal)).addListener((ChannelFutureListener) f -> {
                if (f.isSuccess()) {
                    ((DuplexChannel) f.channel()).shutdownOutput();
                } else {
                    f.channel().close();
                }
            });
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof ChannelInputShutdownEvent) {
                ctx.close(); // the client closed its side: it has what it will read
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
