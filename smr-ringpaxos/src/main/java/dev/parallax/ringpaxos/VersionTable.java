package dev.parallax.ringpaxos;

import java.util.Arrays;

/**
 * Versions and the garbage-collection floor (seed 003 (Ring Paxos) §3.3.7; plan §1.8): a learner's
 * version is how many decisions its replica delivered ({@code onDelivered}); members report theirs
 * in {@code Alive}; the coordinator's floor is the (f+1)-th highest version, its own included —
 * what f+1 learners applied, so f dead learners cannot hold it back — and travels in
 * {@code Heartbeat.versionFloor}; every member keeps the highest floor it saw. U-Ring's backlog
 * bound reads the lowest version on the ring.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class VersionTable {
    private final int self;
    private final int f;
    private final long[] reported;
    private long delivered;
    private long floor;

    VersionTable(int members, int f, int self) {
        this.self = self;
        this.f = f;
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

    /** The coordinator's floor: the (f+1)-th highest version, own included (never lowered). */
    long recompute() {
        long[] v = reported.clone();
        v[self] = delivered;
        Arrays.sort(v);
        floor = Math.max(floor, v[v.length - 1 - f]);
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
