package dev.parallax.ringpaxos;

/**
 * Which members the coordinator keeps off its next rings, and for how long (ring re-formation,
 * rule C8; owned by {@link RingLiveness}): an excluded member (suspected, or the first lagging
 * member of a stalled ring) stays out for a back-off of {@code ring.rejoin.backoff}, doubling
 * with each exclusion up to 30 s and reset after 60 s on the ring; it asks back with
 * {@code Alive(wantsRing)} (trigger 3). Liveness only: any ring of a quorum of acceptors is safe.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class Exclusions {
    static final long MAX_BACKOFF = 30_000_000_000L;
    static final long RESET_AFTER = 60_000_000_000L;

    private final long baseBackoff;
    private final long[] until;
    private final long[] backoff;
    private final long[] onRingSince;
    private long exclusions;
    private long rejoins;

    Exclusions(int members, long baseBackoff) {
        this.baseBackoff = baseBackoff;
        this.until = new long[members];
        this.backoff = new long[members];
        this.onRingSince = new long[members];
        java.util.Arrays.fill(until, Long.MIN_VALUE);
        java.util.Arrays.fill(onRingSince, Long.MIN_VALUE);
    }

    /** Keeps {@code member} off the ring for its back-off, which then doubles. */
    void exclude(int member, long now) {
        if (onRingSince[member] != Long.MIN_VALUE && now - onRingSince[member] >= RESET_AFTER) {
            backoff[member] = 0;
        }
        long b = backoff[member] == 0 ? baseBackoff : Math.min(MAX_BACKOFF, backoff[member] * 2);
        backoff[member] = Math.max(1, b);
        until[member] = now + b;
        onRingSince[member] = Long.MIN_VALUE;
        exclusions++;
    }

    boolean excluded(int member, long now) {
        return until[member] != Long.MIN_VALUE && now - until[member] < 0;
    }

    /** {@code member} was put on a ring at {@code now} (starts the 60 s reset clock once). */
    void onRing(int member, long now) {
        if (onRingSince[member] == Long.MIN_VALUE) {
            onRingSince[member] = now;
        }
    }

    void rejoined() {
        rejoins++;
    }

    long exclusions() {
        return exclusions;
    }

    long rejoins() {
        return rejoins;
    }
}
