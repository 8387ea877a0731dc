package dev.parallax.core.replica;

import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hands each reply to the ClientIO event loop that owns the client's connection (seed 000 §V-D):
 * a bounded MPSC outbox per event loop, drained by one task on that loop that encodes the queued
 * replies of each connection into one buffer and writes and flushes it once: one pass through the
 * Netty pipeline and one socket write per connection per drain, not per reply. Only the replica
 * holding a client's connection answers it; the others execute silently. A reply names the
 * command's stream and sequence ({@link ClientWire}: a GROUP_REPLY for a command to a set other
 * than the default group), so a client with commands in several streams matches it unambiguously.
 *
 * <p>Replies are never dropped for a slow reader: writes go to the connection whatever its
 * writability, and {@link ClientIO} bounds what can pile up by not reading a connection's further
 * requests while its write buffer is above the high water mark (a reply exists only for a request
 * read earlier).
 *
 * <p>Threads: {@link #bind}/{@link #unbind} from ClientIO threads; the reply methods from the
 * ServiceManager or executor threads — they block only while an outbox is full.
 */
final class ReplyRouter {
    private static final int OUTBOX_CAPACITY = 1 << 16;
    private static final int COALESCE_INITIAL_BYTES = 4096;

    private record Outgoing(Channel channel, CommandId id, int status, CommandResult result, long next, String message) {
    }

    /** A client's connection and the outbox of its event loop, resolved once when it binds. */
    private record Route(Channel channel, Outbox outbox) {
    }

    private final Map<Long, Route> routes = new ConcurrentHashMap<>();
    private final Map<EventLoop, Outbox> outboxes = new ConcurrentHashMap<>();
    /** Times the replies; null: not timed. */
    private final ClientLatency latency;

    /** A router whose replies are not timed. */
    ReplyRouter() {
        this(null);
    }

    /** A router that tells {@code latency} of each command reply it writes (null: none). */
    ReplyRouter(ClientLatency latency) {
        this.latency = latency;
    }

    /** What times this router's replies, or null. */
    ClientLatency latency() {
        return latency;
    }

    /** The client now talks to us over {@code channel}. */
    void bind(long clientId, Channel channel) {
        Route r = routes.get(clientId);
        if (r == null || r.channel() != channel) {
            routes.put(clientId, new Route(channel, outboxes.computeIfAbsent(channel.eventLoop(), l -> new Outbox(l, latency))));
        }
    }

    void unbind(long clientId, Channel channel) {
        routes.computeIfPresent(clientId, (k, r) -> r.channel() == channel ? null : r);
    }

    void reply(CommandId id, CommandResult result) {
        route(id, result.isError() ? ClientWire.REJECTED : ClientWire.OK, result, 0, result.error());
    }

    void retryFrom(CommandId id, long next) {
        route(id, ClientWire.RETRY_FROM, null, next, null);
    }

    void expired(CommandId id) {
        route(id, ClientWire.SESSION_EXPIRED, null, 0,
                "session of client " + id.clientId() + " expired; start a new client");
    }

    /**
     * Sends a redirect from a ClientIO thread (the request's own connection); it counts against the
     * connection's write-buffer water marks like a reply, so ClientIO's back-pressure covers it.
     */
    static void redirect(Channel channel, long sequence, int leader) {
        ByteBuf buf = channel.alloc().buffer(19);
        ClientWire.writeRedirect(buf, sequence, leader);
        channel.write(buf, channel.voidPromise());
    }

    private void route(CommandId id, int status, CommandResult result, long next, String message) {
        Route r = routes.get(id.clientId());
        if (r == null || !r.channel().isActive()) {
            return;
        }
        Channel ch = r.channel();
        Outbox box = r.outbox();
        box.put(new Outgoing(ch, id, status, result, next, message));
    }

    /** The replies waiting for one event loop. */
    private static final class Outbox implements Runnable {
        private final EventLoop loop;
        private final BoundedQueue<Outgoing> queue = Queues.mpsc(OUTBOX_CAPACITY);
        private final AtomicBoolean scheduled = new AtomicBoolean();
        /** Per connection, the buffer this drain appends its replies to: one write per connection per drain. */
        private final Map<Channel, ByteBuf> pendingWrites = new IdentityHashMap<>();
        private final ClientLatency latency;
        /** When this drain's replies are written (they are flushed together at its end). */
        private long drainNanos;

        Outbox(EventLoop loop, ClientLatency latency) {
            this.loop = loop;
            this.latency = latency;
        }

        void put(Outgoing o) {
            try {
                queue.put(o);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
                loop.execute(this);
            }
        }

        @Override
        public void run() {
            scheduled.set(false);
            drainNanos = latency == null ? 0 : latency.now();
            queue.drain(this::append, Integer.MAX_VALUE);
            for (Map.Entry<Channel, ByteBuf> e : pendingWrites.entrySet()) {
                e.getKey().writeAndFlush(e.getValue(), e.getKey().voidPromise());
            }
            pendingWrites.clear();
        }

        private void append(Outgoing o) {
            Channel ch = o.channel();
            if (!ch.isActive()) {
                return;
            }
            ByteBuf buf = pendingWrites.get(ch);
            if (buf == null) {
                buf = ch.alloc().buffer(COALESCE_INITIAL_BYTES);
                pendingWrites.put(ch, buf);
            }
            switch (o.status()) {
                case ClientWire.OK -> ClientWire.writeOk(buf, o.id(), o.result().reply());
                case ClientWire.RETRY_FROM -> ClientWire.writeRetryFrom(buf, o.id(), o.next());
                default -> ClientWire.writeMessage(buf, o.id(), o.status(), o.message());
            }
            if (latency != null && (o.status() == ClientWire.OK || o.status() == ClientWire.REJECTED)) {
                latency.replied(ch, o.id().groups().bits(), o.id().sequence(), drainNanos);
            }
        }
    }
}
