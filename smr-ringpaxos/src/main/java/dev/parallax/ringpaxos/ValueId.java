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
 * <p>A <b>skip</b> {@code (-2, 0, upTo)} ({@link #skip(long)}, {@link #SKIP_ORIGIN}) is the
 * coordinator's value that moves the ring's logical numbering to the absolute target {@code upTo}
 * (Multi-Ring Paxos, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20; a
 * skip sets {@code next = max(next, upTo)}). Like a NOOP it has no body — the id is the whole value — and no
 * proposer: only a coordinator opens one. {@code upTo >= 1} (a skip to 0 moves nothing).

 * <p>A <b>configuration command</b> {@code (-3, round, instance + 1)} ({@link #configuration},
 * {@link #CONFIG_ORIGIN}) names a membership change ({@code MembershipChange}'s bytes are its body) that
 * the coordinator of {@code round} opened at {@code instance}: one coordinator per round, one opening per
 * instance in a round, so one body per id. It has a body and no proposer; it is delivered to nobody's
 * state machine (see {@link RingGroup}).
 *
 * <p>Wire form {@code origin:2 incarnation:8 seq:8} ({@link #BYTES}); the origin is a signed 16-bit
 * number. Immutable and thread-safe.
 *
 * @param origin the proposing member, in {@code [0, n)}, {@code -1} for {@link #NOOP}, {@code -2} for a skip
 * @param incarnation the proposer's incarnation, {@code >= 0} ({@code 0} for a NOOP or a skip)
 * @param seq the proposal's number within the incarnation, {@code >= 1} ({@code 0} for {@link #NOOP},
 *            the target {@code upTo >= 1} for a skip)
 */
public record ValueId(int origin, long incarnation, long seq) implements Comparable<ValueId> {
    /** The empty value's id. */
    public static final ValueId NOOP = new ValueId(-1, 0, 0);
    /** Bytes of the wire form. */
    public static final int BYTES = 2 + 8 + 8;
    /** The reserved origin of a skip id ({@link #skip(long)}). */
    public static final int SKIP_ORIGIN = -2;
    /** The reserved origin of a configuration command's id ({@link #configuration}). */
    public static final int CONFIG_ORIGIN = -3;

    /**
     * @throws IllegalArgumentException unless the id is {@link #NOOP}, a skip {@code (-2, 0, upTo >= 1)},
     *         or has an origin in {@code [0, 32767]}, a non-negative incarnation and a positive seq
     */
    public ValueId {
        boolean noop = origin == -1 && incarnation == 0 && seq == 0;
        boolean skip = origin == SKIP_ORIGIN && incarnation == 0 && seq >= 1;
        boolean config = origin == CONFIG_ORIGIN && incarnation >= 0 && seq >= 1;
        if (!noop && !skip && !config && (origin < 0 || origin > Short.MAX_VALUE || incarnation < 0 || seq < 1)) {
            throw new IllegalArgumentException("not a value id: origin " + origin + ", incarnation "
                    + incarnation + ", seq " + seq);
        }
    }

    /**
     * The skip id moving the logical numbering to {@code upTo} ({@code next = max(next, upTo)}).
     *
     * @throws IllegalArgumentException if {@code upTo < 1}
     */
    public static ValueId skip(long upTo) {
        if (upTo < 1) {
            throw new IllegalArgumentException("a skip's target must be >= 1, got " + upTo);
        }
        return new ValueId(SKIP_ORIGIN, 0, upTo);
    }

    /**
     * The id of the configuration command the coordinator of {@code round} opens at {@code instance}.
     *
     * @throws IllegalArgumentException if {@code round} or {@code instance} is negative
     */
    public static ValueId configuration(long round, long instance) {
        if (round < 0 || instance < 0) {
            throw new IllegalArgumentException("a configuration command's round and instance are >= 0, got "
                    + round + ", " + instance);
        }
        return new ValueId(CONFIG_ORIGIN, round, instance + 1);
    }

    /** Whether this names a configuration command ({@link #configuration}). */
    public boolean isConfig() {
        return origin == CONFIG_ORIGIN;
    }

    /** Whether this is {@link #NOOP}. */
    public boolean isNoop() {
        return origin == -1;
    }

    /** Whether this is a skip ({@link #skip(long)}). */
    public boolean isSkip() {
        return origin == SKIP_ORIGIN;
    }

    /** A skip's absolute target (its {@code seq}); -1 for any other id. */
    public long upTo() {
        return isSkip() ? seq : -1;
    }

    /** Whether this names a client value: not a skip, {@link #NOOP} or a configuration command. */
    public boolean isClientValue() {
        return !isBodiless() && !isConfig();
    }

    /** Whether the id is the whole value: {@link #NOOP} or a skip, which carry no body and no proposer. */
    public boolean isBodiless() {
        return origin == -1 || origin == SKIP_ORIGIN;
    }

    /** Orders by origin, then incarnation, then seq (skips first, then {@link #NOOP}). */
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
        return isNoop() ? "NOOP" : isSkip() ? "SKIP(" + seq + ")" : isConfig() ? "CONFIG(" + incarnation + "/" + seq + ")" : origin + "/" + incarnation + "/" + seq;
    }
}
