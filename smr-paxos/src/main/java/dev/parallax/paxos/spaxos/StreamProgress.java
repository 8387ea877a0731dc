package dev.parallax.paxos.spaxos;

import java.util.TreeSet;

/**
 * Per origin stream, what {@link DisseminationCore} knows decided (its receiver window, and for its
 * own stream the span bound) and how far it reported stability.
 *
 * <p>Not thread-safe: owned by {@link DisseminationCore}'s driver thread.
 */
final class StreamProgress {
    long stableReported;
    /** Every sn below is decided. */
    long decidedBelow = 1;
    private final TreeSet<Long> decidedAbove = new TreeSet<>();

    boolean decided(long sn) {
        return sn < decidedBelow || decidedAbove.contains(sn);
    }

    /** {@code sn} was decided. */
    void decide(long sn) {
        if (sn >= decidedBelow) {
            decidedAbove.add(sn);
            raiseDecided(decidedBelow);
        }
    }

    /** Every sn below {@code below} is decided. */
    void raiseDecided(long below) {
        if (below > decidedBelow) {
            decidedBelow = below;
        }
        while (decidedAbove.remove(decidedBelow)) {
            decidedBelow++;
        }
        decidedAbove.headSet(decidedBelow).clear();
    }
}
