package dev.parallax.core.liveness;

/**
 * Suspect timeouts staggered by rank, so that the member next in line after a leader suspects it
 * first and the others then hear that member take over instead of starting rival attempts of their
 * own: a member's timeout is {@code suspect × (1 + rank/2)}, where rank 0 is the member right after
 * the leader (in member-id order, wrapping around). This replaces the randomized timeouts other
 * protocols use, which a deterministic core cannot draw (seed 000 (JPaxos staged replica) §V-C3;
 * seed 003 (Ring Paxos) §3.3.6 leaves the choice of the next coordinator open).
 *
 * <p>Pure static function: thread-safe, never blocks.
 */
public final class RankedTimeout {

    private RankedTimeout() {
    }

    /**
     * The suspect timeout of member {@code self} for {@code leader} among {@code members}:
     * {@code suspect + rank × (suspect / 2)}, rank = {@code (self - leader - 1) mod members}.
     *
     * @param self    the member applying the timeout
     * @param leader  the member it watches
     * @param members cluster size; positive
     * @param suspect the base timeout in nanoseconds; not negative
     * @throws IllegalArgumentException if {@code members} is not positive or {@code suspect} is negative
     */
    public static long timeoutNanos(int self, int leader, int members, long suspect) {
        if (members <= 0) {
            throw new IllegalArgumentException("members must be positive: " + members);
        }
        if (suspect < 0) {
            throw new IllegalArgumentException("suspect must not be negative: " + suspect);
        }
        int rank = Math.floorMod(self - leader - 1, members);
        return suspect + rank * (suspect / 2);
    }

    /**
     * The suspect timeout of the member of rank {@code rank} after the leader (0 for the next one):
     * {@code suspect + rank × (suspect / 2)}. For protocols whose members are not {@code 0..n-1}.
     *
     * @throws IllegalArgumentException if {@code rank} or {@code suspect} is negative
     */
    public static long timeoutForRank(int rank, long suspect) {
        if (rank < 0 || suspect < 0) {
            throw new IllegalArgumentException("rank and suspect must not be negative: " + rank + ", " + suspect);
        }
        return suspect + rank * (suspect / 2);
    }
}
