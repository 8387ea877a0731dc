package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;

/**
 * A replica's transport seen with one ring's member ids: the ring numbers its members rotated
 * ({@link RingMulticast#ringMember}: replica p is member (p + ring) mod n), the replica port
 * addresses replicas. Sends map a member id to its replica, arrivals (and their arrival stamps) a
 * replica id to its member; datagram multicasts pass through.
 *
 * <p>Threads: as the wrapped transport's.
 */
final class RingMemberTransport<M> implements Transport<M> {
    private final Transport<M> replicas;
    private final int ring;
    private final int members;

    RingMemberTransport(Transport<M> replicas, int ring, int members) {
        this.replicas = replicas;
        this.ring = ring;
        this.members = members;
    }

    /** The member id of replica {@code replica}. */
    int member(int replica) {
        return RingMulticast.ringMember(replica, ring, members);
    }

    /** The replica of member {@code member}. */
    int replica(int member) {
        if (member < 0 || member >= members) {
            throw new IllegalArgumentException("member " + member + " of " + members);
        }
        return (int) Math.floorMod(member - (long) ring, (long) members);
    }

    @Override
    public int localId() {
        return member(replicas.localId());
    }

    @Override
    public void start(MessageHandler<M> handler) {
        replicas.start((from, m) -> handler.onMessage(member(from), m));
    }

    @Override
    public void start(MessageHandler<M> handler, ArrivalStamps stamps) {
        replicas.start((from, m) -> handler.onMessage(member(from), m), peer -> stamps.heard(peer >= 0 && peer < members ? member(peer) : peer));
    }

    @Override
    public boolean send(int to, M message) {
        return replicas.send(replica(to), message);
    }

    @Override
    public boolean multicast(int group, M message) {
        return replicas.multicast(group, message);
    }

    @Override
    public void close() {
        replicas.close();
    }
}
