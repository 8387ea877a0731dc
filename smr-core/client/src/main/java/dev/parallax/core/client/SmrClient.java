package dev.parallax.core.client;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.wire.tls.TlsRefusals;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client of a replicated state machine: asynchronous, pipelined {@link #invoke} returning a
 * {@link CompletableFuture}. Each command carries (client id, stream, sequence): its stream is its
 * destination group set ({@link #invoke(GroupSet, ByteBuffer)}; {@link GroupSet#DEFAULT} for
 * {@link #invoke(ByteBuffer)}), and sequences count per stream. The replicas keep a session per
 * (client, stream) that executes each command exactly once and a stream's commands in sequence
 * order, so a command retried after a fail-over is never executed twice, and commands to several
 * streams in flight at once never look like gaps in one another. Replies name the stream and
 * sequence they answer; a gap reported in one stream makes the client resend that stream's
 * unanswered commands from the gap in order (go-back-N per stream). The client keeps one
 * sequence counter per stream it has used, for its lifetime (a stream's numbering cannot restart).
 *
 * <p>The client talks to one replica at a time, starting with {@link ClientConfig#startAt()} (the
 * first endpoint by default); a redirect names
 * the leader to talk to instead. When the replica stays silent for the retry timeout or the
 * connection breaks, the client moves to the next replica and resends every unanswered command in
 * order.
 *
 * <p>Time-outs. A command is numbered when it is sent, not when it is invoked.
 * A command sent but unanswered after the invoke timeout completes its caller's future with
 * {@link OutcomeUnknownException}: it may or may not have executed, and may still execute. The
 * client does not forget it: it keeps its sequence number, its place in the pipelining window and
 * its place in every resend, until a replica answers it (the replicas' session executes it at most
 * once) or the session ends ({@link #close}, an expired session). Forgetting it would leave a gap
 * in the stream that no later command of this client could cross. While such commands are
 * unanswered the client keeps trying replicas as for any unanswered command; at most
 * {@link ClientConfig#maxOutstanding()} of them are held. A command still waiting for room in the
 * window (or for a connection) after the invoke timeout was never sent: it fails with a plain
 * {@link ClusterUnavailableException} and did not execute. A command too big for
 * {@link ClientConfig#maxFrameBytes()} fails at once with {@link IllegalArgumentException}, unsent.
 *
 * <p>TLS ({@link ClientConfig#tlsTrust()}): every connection runs TLS, and the client sends
 * nothing on it before the replica's certificate chained to the CA and named the replica the
 * client meant to reach ({@code parallax-replica-<id>}); a replica that fails either is treated
 * as unreachable (the client moves on).
 *
 * <p>Threads: {@link #invoke} from any thread, never blocking. All connection state lives on one
 * Netty event loop. Commands leave in as few writes as possible: everything a pump sends goes in
 * one buffer, and commands invoked on the event loop while it reads replies (completion callbacks)
 * are sent together when the read burst ends.
 */
public final class SmrClient implements CommandInvoker, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SmrClient.class);
    private static final long TIMER_MILLIS = 20;
    private static final long RECONNECT_MILLIS = 10;
    /** Initial size of the buffer one pump encodes its requests into. */
    private static final int WRITE_BUFFER_BYTES = 4096;

    private static final class Pending {
        final GroupSet groups;
        final ByteBuffer command;
        final CompletableFuture<ByteBuffer> future = new CompletableFuture<>();
        final long deadline;
        /** Set on the event loop when the command is taken in. */
        Stream stream;
        /** Set on the event loop when the command is sent (numbered). */
        CommandId id;
        /** The caller's future was completed (answered, timed out or failed); event-loop state. */
        boolean settled;

        Pending(GroupSet groups, ByteBuffer command, long deadline) {
            this.groups = groups;
            this.command = command;
            this.deadline = deadline;
        }

        long sequence() {
            return id.sequence();
        }
    }

    /** One stream's numbering and its sent, unanswered commands. Event-loop state. */
    private static final class Stream {
        final GroupSet groups;
        long nextSequence = 1;
        /**
         * Sent and unanswered, in sequence order (replies come back in that order); timed-out
         * commands included: they stay until answered.
         */
        final ArrayDeque<Pending> outstanding = new ArrayDeque<>();
        long lastResend;

        Stream(GroupSet groups) {
            this.groups = groups;
        }
    }

    private final ClientConfig config;
    private final EventLoopGroup group;
    private final boolean ownGroup;
    private final EventLoop loop;
    private final ReplicaConnector connector;
    private final QueryChannel queries;
    /** TLS towards the replicas, or {@code null}. */
    private final SslContext tls;
    private final TlsRefusals refusals;
    private final MpscUnboundedXaddArrayQueue<Pending> submitted = new MpscUnboundedXaddArrayQueue<>(1024);
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final AtomicInteger pendingCount = new AtomicInteger();
    private volatile boolean closed;

    // Event-loop state.
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    /** Every stream this client has used, by group set. */
    private final Map<GroupSet, Stream> streams = new HashMap<>();
    private final Stream defaultStream = new Stream(GroupSet.DEFAULT);
    /** Sent and unanswered commands, over all streams, timed-out ones included (the pipelining window). */
    private int outstandingCount;
    private boolean pumpAfterRead;
    /** True while this client's connection is inside a read burst (between a read and its completion). */
    private boolean reading;
    private volatile int target;
    private Channel channel;
    /** The connection being opened: completes once it may be used (TCP up and, with TLS, the replica verified). */
    private Future<Channel> connecting;
    private long lastProgress = System.nanoTime();
    private ScheduledFuture<?> timer;
    private String brokenReason;

    private SmrClient(ClientConfig config) {
        this.config = config;
        this.tls = config.tlsTrust().map(TlsContexts::trusting).orElse(null);
        this.refusals = TlsRefusals.logged("client", "client " + config.clientId());
        this.ownGroup = config.eventLoopGroup() == null;
        this.group = ownGroup ? new NioEventLoopGroup(1, new DefaultThreadFactory("smr-client", true)) : config.eventLoopGroup();
        this.loop = group.next();
        this.target = config.startAt();
        streams.put(GroupSet.DEFAULT, defaultStream);
        this.connector = new ReplicaConnector(config, loop, tls, refusals);
        this.queries = new QueryChannel(config, loop, connector::open);
        loop.execute(() -> {
            connect();
            timer = loop.scheduleAtFixedRate(this::onTimer, TIMER_MILLIS, TIMER_MILLIS, TimeUnit.MILLISECONDS);
        });
    }

    /**
     * A client with {@code config}; connects in the background.
     *
     * @throws IllegalArgumentException if {@code config} names a TLS CA file that cannot be read
     */
    public static SmrClient connect(ClientConfig config) {
        return new SmrClient(config);
    }

    /** The session id of this client. */
    public long clientId() {
        return config.clientId();
    }

    /** Submits {@code command} to the default group; see {@link CommandInvoker#invoke(ByteBuffer)}. */
    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        return invoke(GroupSet.DEFAULT, command);
    }

    /**
     * Submits {@code command} to {@code groups}, its destination and stream; see
     * {@link CommandInvoker#invoke(GroupSet, ByteBuffer)}. Every stream shares the pipelining window
     * ({@link ClientConfig#maxOutstanding()}) and the pending limit.
     */
    @Override
    public CompletableFuture<ByteBuffer> invoke(GroupSet groups, ByteBuffer command) {
        Objects.requireNonNull(groups, "groups");
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("client is closed"));
        }
        int overhead = ClientWire.requestOverhead(groups);
        if (command.remaining() > config.maxFrameBytes() - overhead) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a command of " + command.remaining()
                    + " bytes exceeds the frame limit of " + config.maxFrameBytes() + " bytes (" + overhead
                    + " of them framing)"));
        }
        if (pendingCount.incrementAndGet() > config.maxPending()) {
            pendingCount.decrementAndGet();
            return CompletableFuture.failedFuture(new RejectedExecutionException(
                    "more than " + config.maxPending() + " commands pending; wait for replies"));
        }
        ByteBuffer copy = ByteBuffer.allocate(command.remaining()).put(command.duplicate()).flip();
        Pending p = new Pending(groups, copy, System.nanoTime() + config.invokeTimeout().toNanos());
        submitted.offer(p);
        if (loop.inEventLoop() && reading) {
            // A completion callback of this client issuing the next command: it leaves with the
            // other commands of this read burst, in one write, when the burst ends.
            takeSubmitted();
            pumpAfterRead = true;
        } else if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true)) {
            loop.execute(this::drainSubmitted);
        }
        return p.future;
    }

    /**
     * Submits the read-only {@code query}: one replica answers it from its state, outside the order,
     * linearizably (read-index: the ordering confirms the position the replica's state must reach
     * first). Queries go to {@link ClientConfig#readAt()}'s replica, leader or not, on a connection
     * of their own, and have no session: they change nothing. Where the ordering or the state
     * machine has no read path, the same bytes are sent as a command ({@link #invoke(ByteBuffer)}),
     * so the state machine must accept them as one. Fails with {@link ClusterUnavailableException}
     * when no replica answered within the invoke timeout, {@link CommandRejectedException} when the
     * state machine threw. Any thread, never blocking.
     */
    @Override
    public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("client is closed"));
        }
        return queries.query(query, this::invoke);
    }

    /**
     * {@link #query(ByteBuffer)} for a query of {@code groups}' state (a partition's, seed 004
     * (S-SMR)): asked of this client's replicas, and ordered to {@code groups} where it cannot be
     * answered outside the order.
     */
    @Override
    public CompletableFuture<ByteBuffer> query(GroupSet groups, ByteBuffer query) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("client is closed"));
        }
        return queries.query(query, bytes -> invoke(groups, bytes));
    }

    /** The replica this client currently sends to: after a successful command, the leader. */
    public int currentReplica() {
        return target;
    }

    /**
     * Commands invoked whose futures have not completed. A timed-out command that the client
     * still resends is not counted: its future is complete.
     */
    public int pending() {
        return pendingCount.get();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        loop.submit(() -> {
            if (timer != null) {
                timer.cancel(false);
            }
            failAll(new IllegalStateException("client closed"));
            queries.close(new IllegalStateException("client closed"));
            if (channel != null) {
                channel.close();
            }
        }).syncUninterruptibly();
        if (ownGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    // ------------------------------------------------------------------ event loop

    private void drainSubmitted() {
        drainScheduled.set(false);
        takeSubmitted();
        pump();
    }

    private void takeSubmitted() {
        Pending p;
        while ((p = submitted.poll()) != null) {
            if (brokenReason != null) {
                fail(p, new IllegalStateException(brokenReason));
                continue;
            }
            p.stream = p.groups.isDefault() ? defaultStream : streams.computeIfAbsent(p.groups, Stream::new);
            waiting.add(p);
        }
    }

    /**
     * Sends waiting commands while the pipelining window has room, all in one write, numbering
     * each as it leaves (so a command that times out unsent takes no sequence number).
     */
    private void pump() {
        Channel ch = channel;
        if (ch == null || !ch.isActive()) {
            return;
        }
        ByteBuf buf = null;
        while (outstandingCount < config.maxOutstanding() && !waiting.isEmpty()) {
            Pending p = waiting.poll();
            Stream s = p.stream;
            p.id = new CommandId(config.clientId(), s.groups, s.nextSequence++);
            s.outstanding.add(p);
            outstandingCount++;
            buf = append(ch, buf, p);
        }
        if (buf != null) {
            ch.writeAndFlush(buf, ch.voidPromise());
        }
    }

    private ByteBuf append(Channel ch, ByteBuf buf, Pending p) {
        if (buf == null) {
            buf = ch.alloc().buffer(Math.max(WRITE_BUFFER_BYTES, ClientWire.requestOverhead(p.groups) + p.command.remaining()));
        }
        ClientWire.writeRequest(buf, p.id, p.command);
        return buf;
    }

    /** Resends every outstanding command of {@code stream} from {@code from} on, in order. */
    private void resendFrom(Stream stream, long from) {
        Channel ch = channel;
        if (ch == null || !ch.isActive()) {
            return;
        }
        stream.lastResend = System.nanoTime();
        ByteBuf buf = null;
        for (Pending p : stream.outstanding) {
            if (p.sequence() >= from) {
                buf = append(ch, buf, p);
            }
        }
        if (buf != null) {
            ch.writeAndFlush(buf, ch.voidPromise());
        }
    }

    /** Resends every outstanding command, each stream in order (on a new connection). */
    private void resendAll() {
        for (Stream s : streams.values()) {
            if (!s.outstanding.isEmpty()) {
                resendFrom(s, s.outstanding.peek().sequence());
            }
        }
    }

    /** Removes and returns the outstanding command {@code sequence} of {@code stream}, or {@code null}. */
    private Pending removeOutstanding(Stream stream, long sequence) {
        ArrayDeque<Pending> outstanding = stream.outstanding;
        Pending head = outstanding.peek();
        Pending found = null;
        if (head != null && head.sequence() == sequence) {
            found = outstanding.poll();
        } else {
            for (Iterator<Pending> it = outstanding.iterator(); it.hasNext(); ) {
                Pending p = it.next();
                if (p.sequence() == sequence) {
                    it.remove();
                    found = p;
                    break;
                }
            }
        }
        if (found != null) {
            outstandingCount--;
        }
        return found;
    }

    private void connect() {
        if (closed || (connecting != null && !connecting.isDone())) {
            return;
        }
        int to = target;
        Future<Channel> ready = connector.open(to, new Handler());
        connecting = ready;
        ready.addListener((Future<Channel> r) -> {
            if (!r.isSuccess()) {
                moveOn("cannot connect to replica " + to + (tls == null ? "" : ": " + r.cause().getMessage()));
            } else if (closed) {
                r.getNow().close();
            } else {
                channel = r.getNow();
                lastProgress = System.nanoTime();
                resendAll();
                pump();
            }
        });
    }

    /** Gives up on the current replica and tries {@code next}. */
    private void switchTo(int next, String why) {
        LOG.debug("client {}: leaving replica {} for {}: {}", config.clientId(), target, next, why);
        target = next;
        Channel old = channel;
        channel = null;
        if (old != null) {
            old.close();
        }
        lastProgress = System.nanoTime();
        loop.schedule((Runnable) this::connect, RECONNECT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void moveOn(String why) {
        switchTo((target + 1) % config.endpoints().size(), why);
    }

    private void onReply(Channel from, ClientWire.Reply r) {
        if (from != channel) {
            return;
        }
        Stream stream = r.groups().isDefault() ? defaultStream : streams.get(r.groups());
        switch (r.status()) {
            case ClientWire.OK, ClientWire.REJECTED -> {
                Pending p = stream == null ? null : removeOutstanding(stream, r.sequence());
                if (p != null) {
                    lastProgress = System.nanoTime();
                    pumpAfterRead = true;
                    if (p.settled) {
                        LOG.debug("client {}: command {} answered after its invoke timed out", config.clientId(), p.id);
                    } else if (r.status() == ClientWire.OK) {
                        settle(p);
                        p.future.complete(r.payload());
                    } else {
                        settle(p);
                        p.future.completeExceptionally(new CommandRejectedException(r.message()));
                    }
                }
            }
            case ClientWire.REDIRECT -> {
                if (r.leader() >= 0 && r.leader() < config.endpoints().size() && r.leader() != target) {
                    switchTo(r.leader(), "redirected to the leader");
                }
            }
            case ClientWire.RETRY_FROM -> {
                lastProgress = System.nanoTime();
                if (stream != null && System.nanoTime() - stream.lastResend > config.retryTimeout().toNanos() / 4) {
                    resendFrom(stream, r.next());
                }
            }
            case ClientWire.SESSION_EXPIRED -> {
                brokenReason = r.message();
                failAll(new IllegalStateException(r.message()));
            }
            default -> LOG.warn("client {}: unknown reply status {}", config.clientId(), r.status());
        }
    }

    private void onTimer() {
        queries.onTimer();
        long now = System.nanoTime();
        if (pumpAfterRead && !reading) {
            pumpAfterRead = false; // a read burst that ended without its completion event
            pump();
        }
        if (outstandingCount > 0) {
            for (Stream s : streams.values()) {
                for (Pending p : s.outstanding) {
                    if (!p.settled && now - p.deadline > 0) {
                        // Sent, so it may have executed or may yet: it stays outstanding (keeps
                        // its sequence number and is resent) until answered; only the caller gives up.
                        fail(p, new OutcomeUnknownException("the command may or may not have executed: no replica"
                                + " answered within " + config.invokeTimeout() + " (no quorum reachable?); the client"
                                + " keeps resending it until a replica answers, and it executes at most once"));
                    }
                }
            }
        }
        for (Iterator<Pending> it = waiting.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (now - p.deadline > 0) {
                it.remove();
                fail(p, new ClusterUnavailableException("the command was not sent within " + config.invokeTimeout()
                        + " and did not execute (not connected to any replica, or the window of "
                        + config.maxOutstanding() + " commands was full of unanswered ones)"));
            }
        }
        boolean idle = outstandingCount == 0 && waiting.isEmpty();
        if (!idle && now - lastProgress > config.retryTimeout().toNanos()) {
            moveOn("no answer for " + config.retryTimeout());
        }
    }

    private void failAll(Throwable cause) {
        for (Stream s : streams.values()) {
            s.outstanding.forEach(p -> fail(p, cause));
            s.outstanding.clear();
        }
        outstandingCount = 0;
        waiting.forEach(p -> fail(p, cause));
        waiting.clear();
        Pending p;
        while ((p = submitted.poll()) != null) {
            fail(p, cause);
        }
    }

    /** Completes {@code p}'s future exceptionally, unless it is already complete. */
    private void fail(Pending p, Throwable cause) {
        if (!p.settled) {
            settle(p);
            p.future.completeExceptionally(cause);
        }
    }

    /** Marks {@code p}'s future as completed (exactly once): it no longer counts as pending. */
    private void settle(Pending p) {
        p.settled = true;
        pendingCount.decrementAndGet();
    }

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            reading = true;
            onReply(ctx.channel(), ClientWire.readReply(Frames.readType(frame), frame));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            reading = false;
            if (pumpAfterRead) {
                pumpAfterRead = false;
                pump();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            reading = false;
            if (ctx.channel() == channel && !closed) {
                moveOn("connection closed");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("client {}: connection error: {}", config.clientId(), cause.toString());
            ctx.close();
        }
    }
}
