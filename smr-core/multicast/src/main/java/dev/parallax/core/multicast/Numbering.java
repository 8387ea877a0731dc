package dev.parallax.core.multicast;

/**
 * How {@link StreamMulticast} numbers a stream's decided values for the merge (the sequence a
 * {@link dev.parallax.core.spi.MulticastPosition} names per stream). A strategy chosen once at
 * build time; immutable.
 */
public enum Numbering {
    /**
     * The merge's index is the broadcast's instance: every instance counts, those that delivered
     * nothing (no-ops) are gaps. Positions name the instance of each stream only. Multi-Paxos.
     */
    INSTANCE,
    /**
     * A logical sequence per stream, computed from the decided values in instance order from a
     * known (instance, logical) point ((0, 0) for a fresh stream): a value that is not a skip-to
     * (a message, a copy, a demand skip, unreadable bytes) takes index {@code next} and
     * {@code next += 1}; an instance that delivered nothing (a ring NOOP) takes nothing; a
     * skip-to {@code upTo} ({@link StreamMulticast#skipValue(long)}) sets
     * {@code next = max(next, upTo)}, so a stale or repeated skip is harmless (Multi-Ring Paxos;
     * seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1). The ring cores count
     * with the same rule, so their skips target this sequence. Positions name, per stream, the
     * logical next and the instance delivery resumes from
     * ({@link dev.parallax.core.spi.MulticastPosition#resumeStream(int)}).
     */
    LOGICAL
}
