package dev.parallax.ringpaxos;

/**
 * A ring's logical numbering (Multi-Ring Paxos plan, rule 1; seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 5, Alg. 1 l.13-20): applied by every member to the decided values in the order it emits
 * them — a client value takes the logical index {@code next}, then {@code next += 1}; a NOOP takes
 * nothing; a skip sets {@code next = max(next, upTo)} (an absolute target: a stale or repeated skip
 * is harmless). Two members that emitted the same decided prefix have the same {@link #next()}.
 *
 * <p>It starts at 0 on a fresh start, and also after a restart or an installed snapshot, where the
 * prefix it counts over is only the part re-emitted since: {@link #next()} is then a lower bound of
 * the ring's true logical next (a skip decided later lifts it; the coordinator's skips need no more,
 * because their targets are absolute).
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class LogicalNumbering {
    private long next;
    private long skipsDecided;
    /** The logical next right after the last client value emitted (0 before any). */
    private long valueNext;

    /** Rule 1 applied to one value: the logical next after {@code vid} when it was {@code next} before. */
    static long after(long next, ValueId vid) {
        if (vid.isSkip()) {
            return Math.max(next, vid.upTo());
        }
        return vid.isNoop() || vid.isConfig() ? next : next + 1;
    }

    /** The next decided value, in emission order. */
    void emitted(ValueId vid) {
        if (vid.isSkip()) {
            skipsDecided++;
        }
        next = after(next, vid);
        if (vid.isClientValue()) {
            valueNext = next;
        }
    }

    /** The logical next right after the last client value emitted: what a merge waiting on that value needs the other rings to reach. */
    long valueNext() {
        return valueNext;
    }

    /** The logical index the next client value takes. */
    long next() {
        return next;
    }

    /** Skips emitted so far (event {@code skips.decided}). */
    long skipsDecided() {
        return skipsDecided;
    }
}
