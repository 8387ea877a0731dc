package dev.parallax.ringpaxos;

/**
 * The name of one proposed value: Ring Paxos reaches consensus on value ids, and the body travels
 * separately (seed 003 (Ring Paxos) §3.3.2 ¶3). The <b>proposer</b> assigns it (Alg. 2 l.17), not the
 * coordinator, so U-Ring members between the proposer and the coordinator can match an id-only
 * decision to the body they forwarded (seed 003 §3.3.3 ¶4).
 *
 * <p>One body per id: {@code origin} is the proposing member, {@code incarnation} is at least one
 * more than any incarnation the proposer used before (its durable {@code Incarnation} record, and a
 * wall-clock floor), {@code seq} counts its proposals from 1 within the incarnation. {@link #NOOP}
 * {@code (-1, 0, 0)} names the empty value a new coordinator proposes for a gap.
 *
 * <p>Wire form {@code origin:2 incarnation:8 seq:8} ({@link #BYTES}); the origin is a signed 16-bit
 * number. Immutable and thread-safe.
 *
 * @param origin the proposing member, in {@code [0, n)}, or {@code -1} for {@link #NOOP}
 * @param incarnation the proposer's incarnation, {@code >= 0}
 * @param seq the proposal's number within the incarnation, {@code >= 1} ({@code 0} for {@link #NOOP})
 */
public record ValueId(int origin, long incarnation, long seq) implements Comparable<ValueId> {
    /** The empty value's id. */
    public static final ValueId NOOP = new ValueId(-1, 0, 0);
    /** Bytes of the wire form. */
    public static final int BYTES = 2 + 8 + 8;

    /**
     * @throws IllegalArgumentException unless the id is {@link #NOOP}, or has an origin in
     *         {@code [0, 32767]}, a non-negative incarnation and a positive seq
     */
    public ValueId {
        boolean noop = origin == -1 && incarnation == 0 && seq == 0;
        if (!noop && (origin < 0 || origin > Short.MAX_VALUE || incarnation < 0 || seq < 1)) {
            throw new IllegalArgumentException("not a value id: origin " + origin + ", incarnation "
                    + incarnation + ", seq " + seq);
        }
    }

    /** Whether this is {@link #NOOP}. */
    public boolean isNoop() {
        return origin == -1;
    }

    /** Orders by origin, then incarnation, then seq ({@link #NOOP} first). */
    @Override
    public int compareTo(ValueId o) {
        int c = Integer.compare(origin, o.origin);
        if (c == 0) {
            c = Long.compare(incarnation, o.incarnation);
        }
        return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public String toString() {
        return isNoop() ? "NOOP" : origin + "/" + incarnation + "/" + seq;
    }
}
