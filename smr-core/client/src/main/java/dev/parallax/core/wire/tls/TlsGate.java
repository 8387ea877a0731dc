package dev.parallax.core.wire.tls;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

import javax.net.ssl.SSLException;

/**
 * Sits right behind a connection's {@link SslHandler} and turns TLS failures into refusals: a
 * failed handshake, or any TLS error later (bytes that are not TLS, a broken record), closes the
 * connection and is counted once as {@link TlsRefusals.Reason#TLS}; with an expected identity
 * (the connecting side: the replica or peer it meant to reach), a completed handshake whose peer
 * certificate does not name it closes the connection as {@link TlsRefusals.Reason#IDENTITY}. Once
 * it refused a connection it passes no more of its data on. A connection the peer closed before
 * the handshake ended is closed, not a refusal (a peer restarting or a port probe): not counted.
 *
 * <p>{@link #verified()} completes with the channel when the handshake succeeded and the identity
 * (if any) matched, and fails otherwise; the connecting side sends nothing before it. The
 * accepting side of the replica port checks the identity its peer announces with
 * {@link #require}. One instance per connection; all methods on its event loop, except
 * {@link #verified()}.
 */
public final class TlsGate extends ChannelInboundHandlerAdapter {
    private final TlsRefusals refusals;
    private final String expected;
    private Promise<Channel> verified;
    private boolean refused;

    /**
     * @param expected the identity the peer's certificate must name ({@code null}: any certificate
     *                 the CA signed, or none if the TLS context does not ask for one)
     */
    public TlsGate(TlsRefusals refusals, String expected) {
        this.refusals = refusals;
        this.expected = expected;
    }

    /** Whether {@code cause} is a TLS failure (anywhere in its cause chain). */
    public static boolean isTlsFailure(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        verified = ctx.executor().newPromise();
    }

    /** Completes when the connection may be used, fails when it was refused or closed first. */
    public Future<Channel> verified() {
        return verified;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            if (!done.isSuccess()) {
                refuse(ctx, TlsRefusals.Reason.TLS, String.valueOf(rootCause(done.cause())));
            } else if (expected == null || require(ctx, expected)) {
                verified.trySuccess(ctx.channel());
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    /**
     * Checks that the peer of this completed handshake is {@code identity}; if it is not, refuses
     * the connection (counted as {@link TlsRefusals.Reason#IDENTITY}, closed) and returns false.
     */
    public boolean require(ChannelHandlerContext ctx, String identity) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        String why = ssl == null ? "no TLS on this connection" : PeerIdentity.mismatch(ssl.engine().getSession(), identity);
        if (why == null) {
            return true;
        }
        refuse(ctx, TlsRefusals.Reason.IDENTITY, why);
        return false;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (isTlsFailure(cause)) {
            refuse(ctx, TlsRefusals.Reason.TLS, String.valueOf(rootCause(cause)));
            return;
        }
        super.exceptionCaught(ctx, cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        verified.tryFailure(new SSLException("connection closed before the TLS handshake completed"));
        super.channelInactive(ctx);
    }

    /** Whether this connection was refused. */
    public boolean refused() {
        return refused;
    }

    private void refuse(ChannelHandlerContext ctx, TlsRefusals.Reason reason, String detail) {
        if (refused) {
            return;
        }
        refused = true;
        verified.tryFailure(new SSLException("refused (" + reason.tag() + "): " + detail));
        if (ctx.channel().isActive() || reason == TlsRefusals.Reason.IDENTITY) {
            refusals.refused(reason, ctx.channel(), detail);
        }
        ctx.close();
    }

    private static Throwable rootCause(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c;
    }
}
