package dev.parallax.ringpaxos.multiring;

import java.util.Arrays;

/**
 * How one ring of a Multi-Ring deployment numbers the replicas: a fixed bijection between replica
 * ids and the ring's member ids. The ring's processes of the cluster file, in increasing id, are
 * members {@code 0..n-1} rotated by the ring's number ({@link RingMulticast#ringMember(int, int, int[])}:
 * the k-th is member {@code (k + ring) mod n}), so the rings' first coordinators are different
 * replicas. Where the rings change their members ({@code ring.member.ids} set), a replica that joins
 * later has an id at or above the cluster file's member count N and is member of the same number in
 * every ring it may join: the ids below N that are not the ring's processes are no member of it,
 * the member ids from n to N-1 no replica. Since the mapping never changes, every replica and every incarnation
 * agrees on it whatever the ring's decided member set. Which replicas may join a ring is the
 * topology's ({@link MultiRingTopology#joiners}): every id from N up to {@code ring.member.ids} − 1
 * where every replica runs every ring, a partition's declared ones under S-SMR.
 *
 * <p>Immutable and thread-safe.
 */
final class RingMemberIds {
    /** Member id by replica id, -1 for none. */
    private final int[] memberOf;
    /** Replica id by member id, -1 for none. */
    private final int[] replicaOf;

    /**
     * @param ring      the ring's number (0..k-1 the group rings, k the global ring)
     * @param processes the ring's processes in the cluster file (replica ids)
     * @param joiners   the replica ids that may join the ring at run time (each at or above the file's member count)
     * @throws IllegalArgumentException if a joiner is also a process or below the ring's size
     */
    RingMemberIds(int ring, int[] processes, int[] joiners) {
        int[] sorted = processes.clone();
        Arrays.sort(sorted);
        int size = sorted[sorted.length - 1] + 1;
        for (int j : joiners) {
            size = Math.max(size, j + 1);
        }
        this.memberOf = new int[size];
        this.replicaOf = new int[size];
        Arrays.fill(memberOf, -1);
        Arrays.fill(replicaOf, -1);
        for (int p : sorted) {
            int m = RingMulticast.ringMember(p, ring, sorted);
            memberOf[p] = m;
            replicaOf[m] = p;
        }
        for (int id : joiners) {
            if (id < sorted.length || memberOf[id] >= 0 || replicaOf[id] >= 0) {
                throw new IllegalArgumentException("replica " + id + " cannot join ring number " + ring + " of processes "
                        + Arrays.toString(sorted) + ": its id is taken");
            }
            memberOf[id] = id;
            replicaOf[id] = id;
        }
    }

    /** The member id of replica {@code replica}, or -1 if it can never be a member of this ring. */
    int member(int replica) {
        return replica >= 0 && replica < memberOf.length ? memberOf[replica] : -1;
    }

    /** The replica that is member {@code member}, or -1 if none can be. */
    int replica(int member) {
        return member >= 0 && member < replicaOf.length ? replicaOf[member] : -1;
    }

    /** The replica ids that may be members: the ring's processes and the ids joined replicas may take, increasing. */
    int[] replicas() {
        return java.util.stream.IntStream.range(0, memberOf.length).filter(p -> memberOf[p] >= 0).toArray();
    }

    @Override
    public String toString() {
        return "RingMemberIds" + Arrays.toString(memberOf);
    }
}
