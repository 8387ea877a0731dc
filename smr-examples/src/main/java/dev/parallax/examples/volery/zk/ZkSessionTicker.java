package dev.parallax.examples.volery.zk;

import dev.parallax.examples.volery.SessionTick;
import dev.parallax.examples.volery.ZnodeSessions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A front end's part in deciding session expiry in the order ({@link ZnodeSessions}): once a second
 * ({@link #tick}) it sends a {@link SessionTick} listing the {@linkplain ZkSessions#ordered ordered}
 * sessions connected here, which keeps them alive and lets every overdue session expire at every
 * partition; a session the tick reports ended is ended here too (its connection closed, its watches
 * dropped). While this server holds no such session and the last tick found no live session in the
 * order, it ticks only every {@link #IDLE_TICKS} seconds, so that an idle cluster's order stays quiet
 * while a dead front end's sessions still expire. {@link #check} asks the order about one session
 * (a reconnection).
 *
 * <p>Threads: {@link #tick} on the server's acceptor thread; {@link #check} on any; the replies are
 * handled on whichever thread completes the backend's future. At most one tick is in flight.
 * Never blocks.
 */
final class ZkSessionTicker {
    /** Seconds between ticks of a server with no session in the order. */
    static final int IDLE_TICKS = 10;

    private final VoleryBackend backend;
    private final ZkSessions sessions;
    private final ZkWatchHub watches;
    private final ZkMetrics metrics;
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private volatile boolean orderHasLive = true;
    private int idle;

    ZkSessionTicker(VoleryBackend backend, ZkSessions sessions, ZkWatchHub watches, ZkMetrics metrics) {
        this.backend = backend;
        this.sessions = sessions;
        this.watches = watches;
        this.metrics = metrics;
    }

    /** One tick, unless one is in flight or this server and the order are idle (see the class comment). */
    void tick() {
        long[] ids = sessions.orderedConnected();
        if (ids.length == 0 && !orderHasLive && ++idle < IDLE_TICKS) {
            return;
        }
        idle = 0;
        if (!inFlight.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<dev.parallax.examples.volery.ZkReply> reply;
        try {
            reply = backend.submit(new SessionTick(ids));
        } catch (RuntimeException e) {
            inFlight.set(false);
            metrics.session(ZkMetrics.SessionEvent.TICK_FAILED);
            return;
        }
        reply.whenComplete((r, failure) -> {
            inFlight.set(false);
            if (failure != null) {
                metrics.session(ZkMetrics.SessionEvent.TICK_FAILED);
                return;
            }
            orderHasLive = SessionTick.liveSessions(r) != 0;
            List<ZnodeSessions.Status> statuses = SessionTick.statuses(r);
            for (int i = 0; i < statuses.size() && i < ids.length; i++) {
                if (statuses.get(i) == ZnodeSessions.Status.ENDED) {
                    ended(ids[i]);
                }
            }
        });
    }

    /** The order's status of session {@code id}; completes exceptionally if the order cannot be reached. */
    CompletableFuture<ZnodeSessions.Status> check(long id) {
        return backend.submit(new SessionTick(new long[] {id})).thenApply(r -> {
            List<ZnodeSessions.Status> statuses = SessionTick.statuses(r);
            if (statuses.size() != 1) {
                throw new IllegalStateException("a session tick answered " + r);
            }
            if (SessionTick.liveSessions(r) > 0) {
                orderHasLive = true;
            }
            return statuses.get(0);
        });
    }

    /** Session {@code id} ended in the order: end it here. */
    void ended(long id) {
        if (sessions.endedByOrder(id)) {
            metrics.session(ZkMetrics.SessionEvent.EXPIRED);
            watches.sessionEnded(id);
        }
    }
}
