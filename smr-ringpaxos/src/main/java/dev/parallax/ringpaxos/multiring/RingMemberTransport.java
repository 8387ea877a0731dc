package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;

/**
 * A replica's transport seen with one ring's member ids: the ring numbers its processes rotated
 * ({@link RingMulticast#ringMember(int, int, int[])}: the k-th of its processes in increasing id is
 * member (k + ring) mod n; with every replica in the ring, replica p is member (p + ring) mod n), the
 * replica port addresses replicas. Sends map a member id to its replica, arrivals (and their arrival
 * stamps) a replica id to its member; datagrams pass through. An arrival from a replica
 * outside the ring is dropped (no member sends as it).
 *
 * <p>Threads: as the wrapped transport's.
 */
final class RingMemberTransport<M> implements Transport<M> {
    private final Transport<M> replicas;
    /** Member id by replica id, -1 for a replica outside the ring. */
    private final int[] memberOf;
    /** Replica id by member id. */
    private final int[] replicaOf;

    /** @param processes the ring's replica ids (every replica of the cluster, or a subset) */
    RingMemberTransport(Transport<M> replicas, int ring, int[] processes) {
        this.replicas = replicas;
        int[] sorted = processes.clone();
        java.util.Arrays.sort(sorted);
        int max = sorted[sorted.length - 1];
        this.memberOf = new int[max + 1];
        java.util.Arrays.fill(memberOf, -1);
        this.replicaOf = new int[sorted.length];
        for (int p : sorted) {
            memberOf[p] = RingMulticast.ringMember(p, ring, sorted);
            replicaOf[memberOf[p]] = p;
        }
    }

    /** The member id of replica {@code replica}, or -1 if it is not in the ring. */
    int member(int replica) {
        return replica >= 0 && replica < memberOf.length ? memberOf[replica] : -1;
    }

    /** The replica of member {@code member}. */
    int replica(int member) {
        if (member < 0 || member >= replicaOf.length) {
            throw new IllegalArgumentException("member " + member + " of " + replicaOf.length);
        }
        return replicaOf[member];
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

    @Override
    public boolean sendDatagram(int group, M message) {
        return replicas.sendDatagram(group, message);
    }

    @Override
    public void close() {
        replicas.close();
    }
}
