package dev.parallax.examples.volery.zk;

import dev.parallax.core.client.ClusterUnavailableException;
import dev.parallax.core.client.OutcomeUnknownException;
import dev.parallax.examples.net.Failures;
import dev.parallax.examples.net.OrderedReplies;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.jute.InputArchive;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.ConnectRequest;
import org.apache.zookeeper.proto.ConnectResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ZooKeeper client connection: the session handshake, then each request frame decoded, executed
 * and answered in request order.
 *
 * <p><b>Handshake.</b> The first frame must be a ConnectRequest (with or without the trailing readOnly
 * flag that clients since 3.4 send; the ConnectResponse carries the flag only if the request did).
 * Session id 0 creates a session with the requested time-out clamped into the configured range; a
 * known session id with its password resumes that session; with a session secret shared by the
 * cluster, an id and password another server handed out adopt the session ({@link ZkSessions}); a
 * wrong password, or (without a shared secret) an unknown or expired id, gets ZooKeeper's "expired"
 * answer (time-out 0, session id 0) and the connection closes.
 * A connection silent for its session time-out (before the handshake: the maximum time-out) is closed
 * and its session expired.
 *
 * <p><b>Pipelining.</b> Requests go to the backend through the connection's
 * {@link VoleryBackend.Lane}, which sends reads that set no watch as queries where the session's
 * FIFO order allows. An {@link OrderedReplies} queue (shared with the Redis front end): every
 * request takes a slot at its tail; backend replies fill their slot when the future completes, on any
 * thread, in any order; replies leave in request order, completed ones in one flush. Pings are answered at once, outside the queue (the client matches them by
 * their xid, -2, not by order), so a slow backend does not starve the session of heartbeats. The
 * reply header's zxid is the largest of the client's {@code lastZxidSeen} (sent in its
 * ConnectRequest) and the zxids of the backend replies answered on this connection
 * ({@link dev.parallax.examples.volery.ZkReply#zxid()}): never decreasing, as ZooKeeper clients
 * expect, also across a reconnection to another server. Unlike ZooKeeper, a server does not refuse a
 * client that has seen a zxid larger than its own (a Volery zxid is per partition, not global).
 *
 * <p><b>Back-pressure.</b> With {@code maxPending} slots outstanding or the socket not writable,
 * reading stops until the queue is down to half and the socket writable again.
 *
 * <p><b>Bad input.</b> An oversized or negative frame length, a first frame that is not a
 * ConnectRequest, a request whose header or body jute cannot decode: the connection is closed and
 * {@code parallax.volery.zk.refused{reason}} counted; a request type ZooKeeper does not define is
 * answered UNIMPLEMENTED and then the connection is closed (ZooKeeper's behaviour).
 *
 * <p>One instance per connection; everything but the slot callbacks runs on the connection's event
 * loop. Never blocks.
 */
final class ZkConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ZkConnectionHandler.class);
    /** The handler name of the idle detector, which the handshake re-arms with the session time-out. */
    static final String IDLE = "zk-idle";
    private static final int PASSWORD_BYTES = ZkSessionPasswords.PASSWORD_BYTES;

    private final ZkServerConfig config;
    private final ZkSessions sessions;
    private final ZkOperations operations;
    private final ZkWatchHub watches;
    private final ZkSessionTicker ticker;
    private final ZkMetrics metrics;
    private final long id;
    private ChannelHandlerContext ctx;
    private OrderedReplies<ZkResponse> replies;
    private VoleryBackend.Lane lane;
    private ZkSessions.Grant session;
    /** Whether a resumed or adopted session is being checked against the order (no response yet). */
    private boolean checking;
    private boolean sessionEnded;
    private long lastZxid;

    ZkConnectionHandler(ZkServerConfig config, ZkSessions sessions, ZkOperations operations, ZkWatchHub watches,
                        ZkSessionTicker ticker, ZkMetrics metrics, long id) {
        this.config = config;
        this.sessions = sessions;
        this.operations = operations;
        this.watches = watches;
        this.ticker = ticker;
        this.metrics = metrics;
        this.id = id;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.replies = new OrderedReplies<>(ctx, config.maxPendingPerConnection(), this::encode);
        this.lane = operations.lane(ctx.channel().eventLoop());
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        metrics.connectionAccepted();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        replies.beginRead();
        try {
            if (replies.closing()) {
                return;
            }
            if (checking) {
                refuse(ZkMetrics.Refusal.BAD_CONNECT, "a request before the ConnectResponse");
            } else if (session == null) {
                connect(frame);
            } else {
                request(frame);
            }
        } finally {
            frame.release();
        }
        replies.updateReading();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        replies.endRead();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        replies.updateReading();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof IdleStateEvent) {
            if (session == null) {
                refuse(ZkMetrics.Refusal.CONNECT_TIMEOUT, "no ConnectRequest within " + config.maxSessionTimeoutMs() + " ms");
            } else if (!replies.closing()) {
                LOG.debug("connection {}: session 0x{} silent for {} ms, expiring it", id,
                        Long.toHexString(session.id()), session.timeoutMs());
                endSession(ZkMetrics.SessionEvent.EXPIRED);
                replies.abandon();
                ctx.close();
            }
        } else if (event instanceof ChannelInputShutdownEvent) {
            replies.closeAfterLast();
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        replies.abandon();
        if (session != null && !sessionEnded) {
            sessions.disconnected(session.id(), ctx.channel());
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            refuse(ZkMetrics.Refusal.OVERSIZED, cause.getMessage());
            return;
        }
        if (cause instanceof CorruptedFrameException) {
            refuse(ZkMetrics.Refusal.BAD_LENGTH, cause.getMessage());
            return;
        }
        replies.fail(LOG, id, cause);
    }

    private void connect(ByteBuf frame) {
        ConnectRequest request;
        boolean readOnlyFlag = true;
        try {
            ByteBuf in = frame.duplicate();
            request = ZkWire.read(ZkWire.archive(in), new ConnectRequest());
            if (in.isReadable()) {
                throw new IOException(in.readableBytes() + " bytes after the ConnectRequest");
            }
        } catch (IOException full) {
            // A client that does not send the readOnly flag: read again with a false flag appended.
            byte[] padded = new byte[frame.readableBytes() + 1];
            frame.getBytes(frame.readerIndex(), padded, 0, frame.readableBytes());
            try {
                ByteBuf in = Unpooled.wrappedBuffer(padded);
                request = ZkWire.read(ZkWire.archive(in), new ConnectRequest());
                if (in.isReadable()) {
                    throw new IOException(in.readableBytes() + " bytes after the ConnectRequest");
                }
                readOnlyFlag = false;
            } catch (IOException e) {
                refuse(ZkMetrics.Refusal.BAD_CONNECT, "first frame is not a ConnectRequest: " + full.getMessage());
                return;
            }
        }
        byte[] password = request.getPasswd();
        if (password == null || password.length != PASSWORD_BYTES && password.length != 0) {
            refuse(ZkMetrics.Refusal.BAD_CONNECT, "first frame is not a ConnectRequest (password of "
                    + (password == null ? "null" : password.length + " bytes") + ")");
            return;
        }
        int dropFlag = readOnlyFlag ? 0 : 1;
        ZkSessions.Grant s = request.getSessionId() == 0
                ? sessions.create(request.getTimeOut(), ctx.channel())
                : sessions.reopen(request.getSessionId(), password, ctx.channel());
        switch (s.outcome()) {
            case FULL -> {
                refuse(ZkMetrics.Refusal.TOO_MANY_SESSIONS, config.maxSessions() + " sessions live");
                return;
            }
            case REJECTED -> {
                reject(request.getSessionId(), dropFlag);
                return;
            }
            case CREATED -> {
                metrics.session(ZkMetrics.SessionEvent.CREATED);
                accept(s, request.getLastZxidSeen(), dropFlag);
            }
            case RESUMED, ADOPTED -> check(s, request.getLastZxidSeen(), dropFlag);
        }
    }

    /**
     * A resumed or adopted session: answered once the order says it has not ended (expired or closed
     * at any front end, {@link ZkSessionTicker#check}); one it ended is refused as expired. If the
     * order cannot be reached the connection is closed: the client tries again, here or elsewhere.
     */
    private void check(ZkSessions.Grant s, long lastZxidSeen, int dropFlag) {
        checking = true;
        ctx.channel().config().setAutoRead(false);
        ticker.check(s.id()).whenComplete((status, failure) -> ctx.executor().execute(() -> {
            checking = false;
            if (!ctx.channel().isActive()) {
                return;
            }
            if (failure != null) {
                metrics.session(ZkMetrics.SessionEvent.TICK_FAILED);
                LOG.debug("connection {}: session 0x{} could not be checked: {}", id, Long.toHexString(s.id()),
                        failure.toString());
                sessions.disconnected(s.id(), ctx.channel());
                replies.abandon();
                ctx.close();
                return;
            }
            if (status == dev.parallax.examples.volery.ZnodeSessions.Status.ENDED) {
                sessions.remove(s.id()); // this connection holds it now: forget it, then answer "expired"
                watches.sessionEnded(s.id());
                reject(s.id(), dropFlag);
                return;
            }
            if (status == dev.parallax.examples.volery.ZnodeSessions.Status.LIVE) {
                sessions.ordered(s.id());
            }
            if (s.outcome() == ZkSessions.Outcome.ADOPTED) {
                metrics.session(ZkMetrics.SessionEvent.ADOPTED);
                LOG.debug("connection {}: adopted session 0x{} of another server", id, Long.toHexString(s.id()));
            } else {
                metrics.session(ZkMetrics.SessionEvent.RESUMED);
            }
            accept(s, lastZxidSeen, dropFlag);
            ctx.channel().config().setAutoRead(true);
        }));
    }

    /** Answers "session expired" (a zero ConnectResponse) and closes. */
    private void reject(long sessionId, int dropFlag) {
        metrics.session(ZkMetrics.SessionEvent.REJECTED);
        LOG.debug("connection {}: session 0x{} unknown, expired or wrong password", id, Long.toHexString(sessionId));
        ByteBuf out = ctx.alloc().ioBuffer();
        ZkWire.writeRecord(out, new ConnectResponse(0, 0, 0, new byte[PASSWORD_BYTES], false), dropFlag);
        replies.stopReading();
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
    }

    /** The session is this connection's: the ConnectResponse, and the idle detector set to its time-out. */
    private void accept(ZkSessions.Grant s, long lastZxidSeen, int dropFlag) {
        session = s;
        lastZxid = Math.max(0L, lastZxidSeen);
        ByteBuf out = ctx.alloc().ioBuffer();
        ZkWire.writeRecord(out, new ConnectResponse(0, s.timeoutMs(), s.id(), s.password(), false), dropFlag);
        ctx.writeAndFlush(out, ctx.voidPromise());
        if (ctx.pipeline().get(IDLE) != null) {
            ctx.pipeline().replace(IDLE, IDLE, new IdleStateHandler(s.timeoutMs(), 0, 0, TimeUnit.MILLISECONDS));
        }
    }

    private void request(ByteBuf frame) {
        InputArchive in = ZkWire.archive(frame);
        RequestHeader header;
        try {
            header = ZkWire.read(in, new RequestHeader());
        } catch (IOException e) {
            refuse(ZkMetrics.Refusal.UNDECODABLE, "request header: " + e.getMessage());
            return;
        }
        int xid = header.getXid();
        ZkOp op = ZkOp.of(header.getType());
        metrics.request(op);
        if (op == null) {
            metrics.refused(ZkMetrics.Refusal.UNKNOWN_OPCODE);
            LOG.debug("connection {}: unknown request type {}, closing", id, header.getType());
            lastReply(ZkResponse.error(xid, ZkCodes.UNIMPLEMENTED));
            return;
        }
        switch (op) {
            case PING -> {
                ByteBuf out = ctx.alloc().ioBuffer();
                ZkWire.writeReply(out, new ReplyHeader(xid, lastZxid, 0), null);
                ctx.writeAndFlush(out, ctx.voidPromise());
            }
            case CLOSE_SESSION -> closeSession(xid);
            case AUTH -> {
                AuthPacket auth;
                try {
                    auth = ZkWire.read(in, new AuthPacket());
                } catch (IOException e) {
                    refuse(ZkMetrics.Refusal.UNDECODABLE, "auth packet: " + e.getMessage());
                    return;
                }
                // Every znode has the open ACL, so an identity changes nothing: digest is accepted
                // as ZooKeeper accepts it; a scheme ZooKeeper has no provider for fails its way.
                if ("digest".equals(auth.getScheme())) {
                    replies.append().complete(ZkResponse.ok(xid));
                } else {
                    metrics.refused(ZkMetrics.Refusal.AUTH);
                    lastReply(ZkResponse.error(xid, ZkCodes.AUTHFAILED));
                }
            }
            default -> execute(xid, op, in);
        }
    }

    @SuppressWarnings("unchecked")
    private void execute(int xid, ZkOp op, InputArchive in) {
        OrderedReplies<ZkResponse>.Slot slot = replies.append();
        Object result;
        try {
            result = operations.execute(session.id(), session.timeoutMs(), lane, xid, op, in);
        } catch (IOException e) {
            replies.dropLast();
            refuse(ZkMetrics.Refusal.UNDECODABLE, op.tag() + " request: " + e.getMessage());
            return;
        } catch (RuntimeException e) {
            slot.complete(failure(xid, e));
            return;
        }
        if (result instanceof ZkResponse response) {
            slot.complete(response);
        } else {
            long sessionId = session.id();
            ((CompletableFuture<ZkResponse>) result).whenComplete((response, failure) -> {
                slot.complete(failure != null ? failure(xid, failure)
                        : response != null ? response
                        : failure(xid, new IllegalStateException("the backend completed a request with no reply")));
                if (watches.isArming(sessionId)) {
                    // after the slot's write, which completing it has queued on the loop: a watch's first event follows the reply
                    ctx.executor().execute(() -> watches.replied(sessionId, xid));
                }
            });
        }
    }

    /**
     * closeSession: a session the order may hold is closed there too (its ephemeral nodes deleted
     * at every partition, {@link dev.parallax.examples.volery.CloseSession}), after the session's
     * earlier requests; the reply comes once that is done (OK even if the order could not be
     * reached: the session then expires there by time).
     */
    private void closeSession(int xid) {
        boolean ordered = sessions.isOrdered(session.id());
        endSession(ZkMetrics.SessionEvent.CLOSED);
        if (!ordered) {
            lastReply(ZkResponse.ok(xid));
            return;
        }
        OrderedReplies<ZkResponse>.Slot slot = replies.append();
        lane.submit(new dev.parallax.examples.volery.CloseSession(session.id()))
                .whenComplete((reply, failure) -> slot.complete(ZkResponse.ok(xid)));
        replies.closeAfter(slot);
    }

    private void endSession(ZkMetrics.SessionEvent event) {
        sessionEnded = true;
        if (sessions.remove(session.id())) {
            metrics.session(event);
            watches.sessionEnded(session.id());
        }
    }

    /** Answers {@code response} after every earlier request, then closes the connection. */
    private void lastReply(ZkResponse response) {
        OrderedReplies<ZkResponse>.Slot slot = replies.append();
        slot.complete(response);
        replies.closeAfter(slot);
    }

    private void refuse(ZkMetrics.Refusal reason, String detail) {
        if (replies.closing() && !ctx.channel().isActive()) {
            return;
        }
        metrics.refused(reason);
        LOG.debug("connection {} from {}: refused ({}): {}", id, ctx.channel().remoteAddress(), reason.tag(), detail);
        replies.abandon();
        ctx.channel().config().setAutoRead(false);
        ctx.close();
    }

    /** Writes one reply: the header with the connection's zxid, then the body if a success. */
    private void encode(ByteBuf out, ZkResponse response) {
        lastZxid = Math.max(lastZxid, response.zxid());
        ZkWire.writeReply(out, new ReplyHeader(response.xid(), lastZxid, response.err()),
                response.err() == 0 ? response.body() : null);
    }

    /** The reply to a backend failure: CONNECTIONLOSS for an unavailable cluster or an unknown outcome. */
    private ZkResponse failure(int xid, Throwable failure) {
        Throwable t = Failures.unwrap(failure);
        if (t instanceof OutcomeUnknownException) {
            metrics.failure(ZkMetrics.Failure.OUTCOME_UNKNOWN);
            return ZkResponse.error(xid, ZkCodes.CONNECTIONLOSS);
        }
        if (t instanceof ClusterUnavailableException) {
            metrics.failure(ZkMetrics.Failure.UNAVAILABLE);
            return ZkResponse.error(xid, ZkCodes.CONNECTIONLOSS);
        }
        metrics.failure(ZkMetrics.Failure.INTERNAL);
        LOG.warn("connection {}: request {} failed unexpectedly", id, xid, t);
        return ZkResponse.error(xid, ZkCodes.SYSTEMERROR);
    }
}
