package dev.parallax.paxos.spaxos;

import java.util.List;

/**
 * What a replica holds, per origin stream: for each (origin, incarnation) the highest {@code sn}
 * such that the sender holds (or executed and dropped) every sn up to it (seed 002 (S-Paxos)
 * §IV-C: acks as intervals; over FIFO links one contiguous interval per origin suffices). Sent
 * piggy-backed on every {@code Forward} and alone as an {@code Ack} (Alg. 1 l.11–13, l.23–25).
 *
 * <p>Immutable and thread-safe.
 *
 * @param entries one entry per (origin, incarnation), at most one each
 */
public record AckVector(List<Entry> entries) {
    /** The vector of a replica that holds nothing. */
    public static final AckVector EMPTY = new AckVector(List.of());

    /** Copies {@code entries}. */
    public AckVector {
        entries = List.copyOf(entries);
    }

    /**
     * One origin stream's watermark.
     *
     * @param origin the stream's origin
     * @param incarnation the origin's incarnation
     * @param watermark every sn in {@code [1, watermark]} is held (0: none)
     */
    public record Entry(int origin, long incarnation, long watermark) {
        /** Encoded size: {@code origin:4 incarnation:8 watermark:8}. */
        public static final int BYTES = 20;

        @Override
        public String toString() {
            return origin + ":" + incarnation + "<=" + watermark;
        }
    }

    /**
     * The vector of {@code all} (in (origin, incarnation) order) keeping, per origin, its
     * {@code perOrigin} newest incarnations.
     */
    static AckVector newest(List<Entry> all, int perOrigin) {
        List<Entry> kept = new java.util.ArrayList<>(all.size());
        for (int i = 0; i < all.size(); i++) {
            int origin = all.get(i).origin();
            int newer = 0;
            for (int j = i + 1; j < all.size() && all.get(j).origin() == origin; j++) {
                newer++;
            }
            if (newer < perOrigin) {
                kept.add(all.get(i));
            }
        }
        return kept.isEmpty() ? EMPTY : new AckVector(kept);
    }

    /** Number of entries. */
    public int size() {
        return entries.size();
    }

    @Override
    public String toString() {
        return entries.toString();
    }
}
