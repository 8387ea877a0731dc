package dev.parallax.ringpaxos;

import java.util.Arrays;

/**
 * Versions and the garbage-collection floor (seed 003 (Ring Paxos) §3.3.7): a learner's
 * version is how many decisions its replica delivered ({@code onDelivered}); members report theirs
 * in {@code Alive}; the coordinator's floor is the quorum-th highest version, its own included —
 * what a quorum (a majority) of learners applied, so the {@code n − quorum} failures tolerated
 * leave one of them up, and that many dead learners cannot hold it back — and travels in
 * {@code Heartbeat.versionFloor}; every member keeps the highest floor it saw. U-Ring's backlog
 * bound reads the lowest version on the ring.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class VersionTable {
    private final int self;
    private final int quorum;
    private final long[] reported;
    private long delivered;
    private long floor;

    /**
     * @param members n
     * @param quorum  how many learners (own included) must have reached a version for it to be the
     *                floor: {@link RingConfig#quorum()}, in {@code [1, members]}
     * @param self    this member
     */
    VersionTable(int members, int quorum, int self) {
        if (quorum < 1 || quorum > members) {
            throw new IllegalArgumentException("quorum " + quorum + " outside [1, " + members + "]");
        }
        this.self = self;
        this.quorum = quorum;
        this.reported = new long[members];
    }

    /** This replica delivered everything below {@code next}. */
    void delivered(long next) {
        delivered = Math.max(delivered, next);
    }

    long delivered() {
        return delivered;
    }

    /** {@code member} reported its version. */
    void report(int member, long version) {
        reported[member] = Math.max(reported[member], version);
    }

    /** The version last reported by {@code member} (this member's own for itself). */
    long of(int member) {
        return member == self ? delivered : reported[member];
    }

    /** The coordinator's floor: the quorum-th highest version, own included (never lowered). */
    long recompute() {
        long[] v = reported.clone();
        v[self] = delivered;
        Arrays.sort(v);
        floor = Math.max(floor, v[v.length - quorum]);
        return floor;
    }

    /** A floor heard from the coordinator. */
    void noteFloor(long heard) {
        floor = Math.max(floor, heard);
    }

    long floor() {
        return floor;
    }
}
