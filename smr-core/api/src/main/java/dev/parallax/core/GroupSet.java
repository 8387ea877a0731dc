package dev.parallax.core;

import java.util.StringJoiner;

/**
 * An immutable set of multicast group ids, 0..63, held in one {@code long}.
 *
 * <p>Thread-safe. Iterate with {@link #first()} and {@link #next(int)}, which do not allocate.
 */
public final class GroupSet {
    /** The largest group id a set can hold. */
    public static final int MAX_GROUP = 63;

    /**
     * The default group, {0}: the destination of every command that names none (commands from
     * clients and frames written before commands carried destinations, and every command of a
     * single-group protocol such as Multi-Paxos). Wire formats spend no bytes on it.
     */
    public static final GroupSet DEFAULT = new GroupSet(1L);

    private final long bits;

    private GroupSet(long bits) {
        this.bits = bits;
    }

    /** @throws IllegalArgumentException if a group is out of 0..63 or none is given */
    public static GroupSet of(int... groups) {
        if (groups.length == 0) {
            throw new IllegalArgumentException("a group set needs at least one group");
        }
        long bits = 0;
        for (int g : groups) {
            if (g < 0 || g > MAX_GROUP) {
                throw new IllegalArgumentException("group id must be 0.." + MAX_GROUP + ", got " + g);
            }
            bits |= 1L << g;
        }
        return bits == 1L ? DEFAULT : new GroupSet(bits);
    }

    /** The set whose members are the one-bits of {@code bits}. @throws IllegalArgumentException if 0 */
    public static GroupSet ofBits(long bits) {
        if (bits == 0) {
            throw new IllegalArgumentException("a group set needs at least one group");
        }
        return bits == DEFAULT.bits ? DEFAULT : new GroupSet(bits);
    }

    /**
     * The groups {@code first..last} (a contiguous range: every group of a k-group partition is
     * {@code range(0, k - 1)}).
     *
     * @throws IllegalArgumentException unless 0 &lt;= first &lt;= last &lt;= {@link #MAX_GROUP}
     */
    public static GroupSet range(int first, int last) {
        if (first < 0 || last > MAX_GROUP || first > last) {
            throw new IllegalArgumentException("a group range needs 0 <= first <= last <= " + MAX_GROUP + ", got "
                    + first + ".." + last);
        }
        long upTo = last == MAX_GROUP ? -1L : (1L << (last + 1)) - 1;
        return ofBits(upTo & (-1L << first));
    }

    /**
     * Every group of a partition into {@code groups} groups: 0..groups-1 (what a C-G function
     * sends a whole-state command to).
     *
     * @throws IllegalArgumentException unless 1 &lt;= groups &lt;= {@link #MAX_GROUP} + 1
     */
    public static GroupSet partition(int groups) {
        if (groups < 1 || groups > MAX_GROUP + 1) {
            throw new IllegalArgumentException("groups must be 1.." + (MAX_GROUP + 1) + ", got " + groups);
        }
        return range(0, groups - 1);
    }

    public long bits() {
        return bits;
    }

    /** True for {@link #DEFAULT}, the set {0}. */
    public boolean isDefault() {
        return bits == DEFAULT.bits;
    }

    public boolean contains(int group) {
        return group >= 0 && group <= MAX_GROUP && (bits & (1L << group)) != 0;
    }

    public int size() {
        return Long.bitCount(bits);
    }

    /** The lowest group id in the set. */
    public int first() {
        return Long.numberOfTrailingZeros(bits);
    }

    /** The lowest group id greater than {@code group}, or -1 if there is none. */
    public int next(int group) {
        if (group >= MAX_GROUP) {
            return -1;
        }
        long rest = bits & (-1L << (group + 1));
        return rest == 0 ? -1 : Long.numberOfTrailingZeros(rest);
    }

    public boolean intersects(GroupSet other) {
        return (bits & other.bits) != 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GroupSet g && g.bits == bits;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(bits);
    }

    @Override
    public String toString() {
        StringJoiner j = new StringJoiner(",", "{", "}");
        for (int g = first(); g >= 0; g = next(g)) {
            j.add(Integer.toString(g));
        }
        return j.toString();
    }
}
