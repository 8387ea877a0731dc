package dev.parallax.core.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * Splits a connection's byte stream into frames of at most {@code maxFrameBytes} (see
 * {@link Frames#decoder}) and closes the connection when a frame stays incomplete for longer than
 * the partial-frame timeout: a peer that sends half a frame and goes silent would otherwise pin
 * the buffer of that half frame forever. An idle connection with no partial frame is left alone,
 * and so is one whose reading the replica itself paused (auto-read off, for back-pressure): the
 * missing bytes may then be waiting in the socket.
 *
 * <p>Threads: one instance per connection, used only by that connection's event loop.
 */
public final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    /** Stale partial-frame warnings of every connection in the process; the meter counts each one. */
    private static final LogRateLimiter STALE_WARNINGS = LogRateLimiter.withDefaults("stale partial frames");

    private final long partialTimeoutNanos;
    private final NetMetrics metrics;
    /** When the oldest byte of the incomplete frame arrived; meaningful only while {@link #partial}. */
    private long partialSince;
    private boolean partial;
    private boolean frameCompleted;
    private ScheduledFuture<?> check;

    /**
     * @param maxFrameBytes       largest frame, length field included
     * @param partialTimeoutNanos how long a frame may stay incomplete; must be positive
     * @param metrics             where closed stale connections are counted
     */
    public FrameDecoder(int maxFrameBytes, long partialTimeoutNanos, NetMetrics metrics) {
        super(maxFrameBytes, 0, 4, 0, 4, true);
        if (partialTimeoutNanos <= 0) {
            throw new IllegalArgumentException("partial-frame timeout must be positive, got " + partialTimeoutNanos + " ns");
        }
        this.partialTimeoutNanos = partialTimeoutNanos;
        this.metrics = metrics;
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        Object frame = super.decode(ctx, in);
        if (frame != null) {
            frameCompleted = true;
        }
        return frame;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        frameCompleted = false;
        super.channelRead(ctx, msg);
        if (!ctx.channel().isActive() || actualReadableBytes() == 0) {
            partial = false;
            return;
        }
        if (!partial || frameCompleted) {
            // The bytes left over are the start of a new frame.
            partial = true;
            partialSince = System.nanoTime();
            scheduleCheck(ctx, partialTimeoutNanos);
        }
    }

    private void scheduleCheck(ChannelHandlerContext ctx, long delayNanos) {
        if (check == null) {
            check = ctx.executor().schedule(() -> check(ctx), delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void check(ChannelHandlerContext ctx) {
        check = null;
        if (!partial || !ctx.channel().isActive()) {
            return;
        }
        long now = System.nanoTime();
        if (!ctx.channel().config().isAutoRead()) {
            partialSince = now; // we stopped reading, not the peer: its bytes may be in the socket
        }
        long age = now - partialSince;
        if (age >= partialTimeoutNanos) {
            metrics.stalePartialFrame();
            STALE_WARNINGS.warn(LOG, "closing connection {}: a frame stayed incomplete for {} ms ({} bytes received)",
                    ctx.channel().remoteAddress(), TimeUnit.NANOSECONDS.toMillis(age), actualReadableBytes());
            ctx.close();
            return;
        }
        scheduleCheck(ctx, partialTimeoutNanos - age);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        cancelCheck();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelCheck();
        super.channelInactive(ctx);
    }

    private void cancelCheck() {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
        partial = false;
    }
}
