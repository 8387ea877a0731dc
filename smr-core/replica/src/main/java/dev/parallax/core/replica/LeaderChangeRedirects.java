package dev.parallax.core.replica;

import io.netty.channel.Channel;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * Tells the clients of a replica that stops leading where the leader went, at once. Their commands
 * that this replica took but had not yet handed to the ordering (the proposal queue of a follower
 * is not ordered) would otherwise wait for each client's retry timeout, after a leadership
 * transfer as after a deposition; commands already proposed are decided by the next leader (it
 * re-proposes them) and answered as before. Each connection that sent a request gets one redirect
 * to the new leader, which makes the client move there and resend what it has outstanding; the
 * session layer answers a resent command that executed already from its cache.
 *
 * <p>{@link #check} compares the broadcast's redirect hint with the last one it saw: this replica
 * led since the last redirect, and now the hint names another replica. A hint of
 * {@code ANY_REPLICA} (-1: no leader known, or an ordering that takes clients at every replica)
 * changes nothing.
 *
 * <p>Threads: {@link #bound} and {@link #closed} from the connections' event loops; {@link #check}
 * from one timer thread (ClientIO schedules it); the redirects are written on each connection's own
 * event loop. Never blocks.
 */
final class LeaderChangeRedirects {
    private final int self;
    private final IntSupplier hint;
    private final LongAdder redirects;
    private final Set<Channel> clients = ConcurrentHashMap.newKeySet();
    /** Timer thread only: whether this replica led since the last redirect. */
    private boolean led;

    /**
     * @param hint      the broadcast's redirect hint (this replica's id while it leads)
     * @param redirects counts each redirect sent
     */
    LeaderChangeRedirects(int self, IntSupplier hint, LongAdder redirects) {
        this.self = self;
        this.hint = hint;
        this.redirects = redirects;
    }

    /** {@code channel} carries a client's requests (it is told when the leader goes). */
    void bound(Channel channel) {
        clients.add(channel);
    }

    /** {@code channel} closed. */
    void closed(Channel channel) {
        clients.remove(channel);
    }

    /**
     * Looks at the hint once.
     *
     * @return the replica the clients were redirected to, or -1 if none were
     */
    int check() {
        int now = hint.getAsInt();
        if (now == self) {
            led = true;
            return -1;
        }
        if (!led || now < 0) {
            return -1;
        }
        led = false;
        for (Channel ch : clients) {
            ch.eventLoop().execute(() -> {
                if (ch.isActive()) {
                    ReplyRouter.redirect(ch, 0, now);
                    ch.flush();
                    redirects.increment();
                }
            });
        }
        return now;
    }
}
