package dev.parallax.core.client;

import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The queries of one {@link SmrClient} ({@link SmrClient#query}): read-only requests answered by one
 * replica outside the order, linearizably (read-index). They travel on a connection of their own,
 * to the replica {@link ClientConfig#readAt()} names (by default one picked by the client id, so
 * that clients spread their reads over the replicas, followers included).
 *
 * <p>Answers: OK completes the query; REJECTED fails it with {@link CommandRejectedException};
 * UNSUPPORTED (no read path in the ordering, or a state machine that does not answer this query
 * outside the order) sends the same bytes as a command ({@link SmrClient#invoke}, to the query's
 * groups), and after {@value #UNSUPPORTED_BEFORE_ORDERING} in a row every later query too; REDIRECT
 * (no position now: an election, a silent leader, a busy replica) asks again after a pause that
 * doubles from 1 ms to 64 ms, and after four in a row moves to the replica the answer names (if it
 * names one). A replica silent
 * for the retry timeout, or a broken connection, sends every unanswered query to the next replica.
 * A query unanswered after the invoke timeout fails with {@link ClusterUnavailableException}:
 * a query changes nothing, so there is no unknown outcome.
 *
 * <p>Threads: {@link #query} from any thread; everything else on the client's event loop.
 */
final class QueryChannel {
    private static final Logger LOG = LoggerFactory.getLogger(QueryChannel.class);
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long LAST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(64);
    private static final int REDIRECTS_BEFORE_MOVING = 4;
    /** UNSUPPORTED answers in a row after which every query is ordered without asking. */
    static final int UNSUPPORTED_BEFORE_ORDERING = 8;

    private static final class Query {
        long id;
        final ByteBuffer bytes;
        /** Sends the bytes as a command, to the query's groups. */
        final Function<ByteBuffer, CompletableFuture<ByteBuffer>> ordered;
        final CompletableFuture<ByteBuffer> future = new CompletableFuture<>();
        final long deadline;
        long pause = FIRST_PAUSE_NANOS;
        int redirects;

        Query(long id, ByteBuffer bytes, long deadline, Function<ByteBuffer, CompletableFuture<ByteBuffer>> ordered) {
            this.id = id;
            this.bytes = bytes;
            this.ordered = ordered;
            this.deadline = deadline;
        }
    }

    private final ClientConfig config;
    private final EventLoop loop;
    private final BiFunction<Integer, ChannelHandler, Future<Channel>> open;
    // Event-loop state.
    private final Map<Long, Query> unanswered = new HashMap<>();
    private final org.jctools.queues.MpscUnboundedXaddArrayQueue<Query> submitted =
            new org.jctools.queues.MpscUnboundedXaddArrayQueue<>(1024);
    private final java.util.concurrent.atomic.AtomicBoolean drainScheduled = new java.util.concurrent.atomic.AtomicBoolean();
    private long nextId;
    private int target;
    private Channel channel;
    private Future<Channel> connecting;
    private long lastProgress = System.nanoTime();
    private int unsupportedInARow;
    private volatile boolean unsupported;

    /** @param open opens a connection to a replica whose frames go to a handler ({@link SmrClient}) */
    QueryChannel(ClientConfig config, EventLoop loop, BiFunction<Integer, ChannelHandler, Future<Channel>> open) {
        this.config = config;
        this.loop = loop;
        this.open = open;
        this.target = config.readAt() >= 0 ? config.readAt()
                : (int) Math.floorMod(config.clientId(), (long) config.endpoints().size());
    }

    /**
     * Submits {@code query}; see {@link SmrClient#query}. Any thread.
     *
     * @param ordered sends the query's bytes as a command where it cannot be answered outside the order
     */
    CompletableFuture<ByteBuffer> query(ByteBuffer query, Function<ByteBuffer, CompletableFuture<ByteBuffer>> ordered) {
        ByteBuffer copy = ByteBuffer.allocate(query.remaining()).put(query.duplicate()).flip();
        if (unsupported) {
            return ordered.apply(copy);
        }
        Query q = new Query(0, copy, System.nanoTime() + config.invokeTimeout().toNanos(), ordered);
        submitted.offer(q);
        if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true)) {
            loop.execute(this::drainSubmitted);
        }
        return q.future;
    }

    /** Numbers what was submitted and sends it in one write. Event loop. */
    private void drainSubmitted() {
        drainScheduled.set(false);
        List<Query> batch = new ArrayList<>();
        Query q;
        while ((q = submitted.poll()) != null) {
            q.id = nextId++;
            unanswered.put(q.id, q);
            batch.add(q);
        }
        send(batch);
    }

    /** The replica queries go to now. */
    int target() {
        return target;
    }

    /** The client's timer (every few ms): fails expired queries, leaves a silent replica. Event loop. */
    void onTimer() {
        long now = System.nanoTime();
        for (Iterator<Query> it = unanswered.values().iterator(); it.hasNext(); ) {
            Query q = it.next();
            if (now - q.deadline > 0) {
                it.remove();
                q.future.completeExceptionally(new ClusterUnavailableException("no replica answered the query within "
                        + config.invokeTimeout() + " (no leader, or no replica reachable?)"));
            }
        }
        if (!unanswered.isEmpty() && now - lastProgress > config.retryTimeout().toNanos()) {
            moveOn("no answer for " + config.retryTimeout());
        }
    }

    /** Fails every unanswered query with {@code cause} (the client closes). Event loop. */
    void close(Throwable cause) {
        unanswered.values().forEach(q -> q.future.completeExceptionally(cause));
        unanswered.clear();
        Query q;
        while ((q = submitted.poll()) != null) {
            q.future.completeExceptionally(cause);
        }
        if (channel != null) {
            channel.close();
        }
    }

    private void send(Query q) {
        send(List.of(q));
    }

    /** Sends {@code queries} in one write, or connects first (they leave once connected). */
    private void send(List<Query> queries) {
        if (queries.isEmpty()) {
            return;
        }
        if (channel == null || !channel.isActive()) {
            connect();
            return;
        }
        ByteBuf out = channel.alloc().ioBuffer();
        for (Query q : queries) {
            ClientWire.writeQuery(out, config.clientId(), q.id, q.bytes.duplicate());
        }
        channel.writeAndFlush(out, channel.voidPromise());
    }

    private void connect() {
        if (connecting != null && !connecting.isDone()) {
            return;
        }
        int to = target;
        Future<Channel> ready = open.apply(to, new Handler());
        connecting = ready;
        ready.addListener((Future<Channel> r) -> {
            if (!r.isSuccess()) {
                moveOn("cannot connect to replica " + to);
            } else {
                channel = r.getNow();
                lastProgress = System.nanoTime();
                send(new ArrayList<>(unanswered.values()));
            }
        });
    }

    private void moveOn(String why) {
        switchTo((target + 1) % config.endpoints().size(), why);
    }

    /** Leaves the current replica for {@code next}; every unanswered query goes there once connected. */
    private void switchTo(int next, String why) {
        LOG.debug("client {}: queries leave replica {} for {}: {}", config.clientId(), target, next, why);
        target = next;
        Channel old = channel;
        channel = null;
        if (old != null) {
            old.close();
        }
        lastProgress = System.nanoTime();
        loop.schedule(() -> {
            if (!unanswered.isEmpty()) {
                connect();
            }
        }, 10, TimeUnit.MILLISECONDS);
    }

    private void onReply(Channel from, ClientWire.QueryReply r) {
        Query q = unanswered.get(r.query());
        if (from != channel || q == null) {
            return;
        }
        lastProgress = System.nanoTime();
        switch (r.status()) {
            case ClientWire.OK -> {
                unsupportedInARow = 0;
                unanswered.remove(q.id);
                q.future.complete(r.payload());
            }
            case ClientWire.REJECTED -> {
                unanswered.remove(q.id);
                q.future.completeExceptionally(new CommandRejectedException(r.message()));
            }
            case ClientWire.UNSUPPORTED -> {
                unsupported = ++unsupportedInARow >= UNSUPPORTED_BEFORE_ORDERING;
                unanswered.remove(q.id);
                q.ordered.apply(q.bytes).whenComplete((v, e) -> {
                    if (e == null) {
                        q.future.complete(v);
                    } else {
                        q.future.completeExceptionally(e);
                    }
                });
            }
            case ClientWire.REDIRECT -> {
                if (++q.redirects >= REDIRECTS_BEFORE_MOVING && r.leader() >= 0 && r.leader() < config.endpoints().size()) {
                    q.redirects = 0;
                    if (r.leader() != target) {
                        switchTo(r.leader(), "redirected to replica " + r.leader());
                        return;
                    }
                }
                long pause = q.pause;
                q.pause = Math.min(LAST_PAUSE_NANOS, q.pause * 2);
                loop.schedule(() -> {
                    if (unanswered.containsKey(q.id)) {
                        send(q);
                    }
                }, pause, TimeUnit.NANOSECONDS);
            }
            default -> LOG.warn("client {}: unknown query reply status {}", config.clientId(), r.status());
        }
    }

    /** Queries not yet answered (tests). Event loop. */
    List<Long> unansweredIds() {
        return new ArrayList<>(unanswered.keySet());
    }

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            int type = Frames.readType(frame);
            if (type != ClientWire.QUERY_REPLY) {
                LOG.debug("client {}: unexpected frame type {} on the query connection", config.clientId(), type);
                return;
            }
            onReply(ctx.channel(), ClientWire.readQueryReply(frame));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (ctx.channel() == channel && !unanswered.isEmpty()) {
                moveOn("connection closed");
            } else if (ctx.channel() == channel) {
                channel = null;
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("client {}: query connection error: {}", config.clientId(), cause.toString());
            ctx.close();
        }
    }
}
