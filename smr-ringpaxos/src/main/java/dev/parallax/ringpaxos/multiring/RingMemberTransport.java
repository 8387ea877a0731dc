package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;

/**
 * A replica's transport seen with one ring's member ids ({@link RingMemberIds}: the ring's processes
 * rotated, so that the rings' coordinators are different replicas; with every replica in the ring,
 * replica p is member (p + ring) mod n; a replica joined at run time keeps its id). Sends map a member
 * id to its replica, arrivals (and their arrival stamps) a replica id to its member; datagrams pass
 * through. An arrival from a replica that can be no member of the ring is dropped (no member sends
 * as it). Members added at run time get their address on the replica port under their replica id;
 * a removed one leaves the port once every ring that may have it removed it ({@link PortRemovals}).
 *
 * <p>Threads: as the wrapped transport's.
 */
final class RingMemberTransport<M> implements Transport<M> {
    private final Transport<M> replicas;
    private final RingMemberIds ids;
    private final PortRemovals removals;
    private final Object handle;

    /**
     * @param ids      the ring's numbering
     * @param removals the replica's tally of removals over its rings
     */
    RingMemberTransport(Transport<M> replicas, RingMemberIds ids, PortRemovals removals) {
        this.replicas = replicas;
        this.ids = ids;
        this.removals = removals;
        this.handle = removals.register(ids);
    }

    /** The member id of replica {@code replica}, or -1 if it is not in the ring. */
    int member(int replica) {
        return ids.member(replica);
    }

    /** The replica of member {@code member}. */
    int replica(int member) {
        int r = ids.replica(member);
        if (r < 0) {
            throw new IllegalArgumentException("member " + member + " is no replica of this ring (" + ids + ")");
        }
        return r;
    }

    @Override
    public int localId() {
        return member(replicas.localId());
    }

    @Override
    public void start(MessageHandler<M> handler) {
        replicas.start((from, m) -> {
            int member = member(from);
            if (member >= 0) {
                handler.onMessage(member, m);
            }
        });
    }

    @Override
    public void start(MessageHandler<M> handler, ArrivalStamps stamps) {
        replicas.start((from, m) -> {
            int member = member(from);
            if (member >= 0) {
                handler.onMessage(member, m);
            }
        }, peer -> {
            int member = member(peer);
            if (member >= 0) {
                stamps.heard(member);
            }
        });
    }

    @Override
    public boolean send(int to, M message) {
        return replicas.send(replica(to), message);
    }

    /** Gives the replica port the address of the replica that is member {@code member}. */
    @Override
    public void addMember(int member, String host, int port) {
        replicas.addMember(replica(member), host, port);
    }

    /** The ring removed member {@code member}: the port forgets its replica once no ring here may have it. */
    @Override
    public void removeMember(int member) {
        int r = ids.replica(member);
        if (r >= 0) {
            removals.removed(handle, r, replicas);
        }
    }

    @Override
    public boolean sendDatagram(int group, M message) {
        return replicas.sendDatagram(group, message);
    }

    @Override
    public void close() {
        replicas.close();
    }
}
