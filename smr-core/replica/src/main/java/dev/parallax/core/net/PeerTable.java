package dev.parallax.core.net;

import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import io.netty.channel.Channel;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The peers of one {@link ReplicaPort}: which replica ids are members now ({@link #live}), which
 * ever were ({@link #known}), where each listens, and the inbound connections each has open, so
 * that a removed member's connections can be closed. It starts as the cluster file's members other
 * than this replica; {@link #put} and {@link #remove} change it as membership changes are decided.
 *
 * Connections are heard from members and from replicas never known here ({@link #admits}).
 *
 * <p>{@link #put}, {@link #remove} and {@link #address} run under this table's monitor (the port
 * holds it while it opens queues and senders, so a peer is live only once every channel can send to
 * it); {@link #live}, {@link #known} and the inbound-connection methods are read and called by
 * protocol and Netty IO threads without locking (volatile bit sets, concurrent sets). Nothing
 * blocks: closing a connection only asks Netty to close it.
 */
final class PeerTable {
    private final int self;
    /** Where each id listens; guarded by {@code this}. */
    private final Member[] addresses = new Member[Member.MAX_ID + 1];
    /** Bit {@code id} set while {@code id} is a member (never this replica's). */
    private volatile int live;
    /** Bit {@code id} set once {@code id} was a member (never this replica's). */
    private volatile int known;
    @SuppressWarnings("unchecked")
    private final Set<Channel>[] inbound = new Set[Member.MAX_ID + 1];

    PeerTable(ReplicaConfig config) {
        this.self = config.id();
        for (int id = 0; id <= Member.MAX_ID; id++) {
            inbound[id] = ConcurrentHashMap.newKeySet();
        }
        for (Member m : config.members().members()) {
            if (m.id() != self) {
                addresses[m.id()] = m;
                live |= 1 << m.id();
                known |= 1 << m.id();
            }
        }
    }

    /** Whether {@code id} (any int) is a member now. Any thread. */
    boolean live(int id) {
        return id >= 0 && id <= Member.MAX_ID && (live & (1 << id)) != 0;
    }

    /**
     * Whether a connection from {@code id} (any int in {@code 0..31}) is heard: a member now, or a
     * replica never known here — this replica may be behind the change that added it (a joiner, or
     * a member that was down, knows the group only as it was until it caught up, and must hear the
     * members added since, a leader among them). A removed member is not heard. Any thread.
     */
    boolean admits(int id) {
        return live(id) || (id >= 0 && id <= Member.MAX_ID && id != self && !known(id));
    }

    /** Whether {@code id} (any int) is or was a member. Any thread. */
    boolean known(int id) {
        return id >= 0 && id <= Member.MAX_ID && (known & (1 << id)) != 0;
    }

    /** Where {@code id} listens (its last address if removed), or {@code null} if it never was a member. */
    synchronized Member address(int id) {
        return addresses[id];
    }

    /** Makes {@code m} a member at its address; the caller opened every queue to it first. */
    synchronized void put(Member m) {
        addresses[m.id()] = m;
        known |= 1 << m.id();
        live |= 1 << m.id();
    }

    /** Makes {@code id} no member; its address is kept, for a later {@link #put} to compare with. */
    synchronized void remove(int id) {
        live &= ~(1 << id);
    }

    /**
     * Records {@code ch}, an inbound connection that said hello as {@code id}, until it closes.
     *
     * @return {@code false} if {@code id} is not {@link #admits admitted} (removed meanwhile): the
     *         caller refuses it
     */
    boolean inboundOpened(int id, Channel ch) {
        Set<Channel> open = inbound[id];
        open.add(ch);
        ch.closeFuture().addListener(f -> open.remove(ch));
        if (!admits(id)) { // removed while the hello was read: closeInbound may have missed ch
            open.remove(ch);
            return false;
        }
        return true;
    }

    /** Asks Netty to close every inbound connection of {@code id}; does not wait. */
    void closeInbound(int id) {
        for (Channel ch : inbound[id]) {
            ch.close();
        }
    }
}
