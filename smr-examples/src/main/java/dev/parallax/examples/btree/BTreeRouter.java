package dev.parallax.examples.btree;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.CommandRouter;

import java.math.BigInteger;
import java.nio.ByteBuffer;

/**
 * The C-G function of {@link BTreeStore} (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6 §6.3.2,
 * "C-G: mapping commands to destination groups"): maps each {@link BTreeCommands} command to the
 * groups whose workers must execute it, so that any two dependent commands share a group.
 *
 * <p><b>Partition.</b> The signed 64-bit key space is cut into k contiguous ranges of equal size
 * (within one key), in key order: with {@code u = key ^ Long.MIN_VALUE} (the key's offset from
 * {@link Long#MIN_VALUE} as an unsigned number, which orders like the key),
 * {@code groupOf(key) = floor(u * k / 2^64)}. For k a power of two that is the top log2(k) bits of
 * {@code u}; for k = 2, negative keys are group 0 and the others group 1.
 *
 * <p><b>Per command (C-Dep).</b> Two commands depend on each other if one may change state the
 * other reads or changes. This is the C-Dep the paper gives its own B+-tree store (seed 003 ch. 6
 * §6.5.2: "inserts and deletes depend on all commands; an update on key k depends on other updates
 * on k, on reads on k, and on inserts and deletes"), extended to RANGE. In {@link BPlusTree}:
 * <ul>
 *   <li>GET reads the value of one key in its leaf, and UPDATE replaces that value in place (the
 *       leaf's value slot; no key moves, no node splits or merges): both go to their key's group.
 *       GET and UPDATE of keys in different ranges touch different slots and run in parallel.</li>
 *   <li>INSERT and DELETE change the tree's structure: a split or a merge moves keys between
 *       sibling leaves and inner nodes, up to the root, which every other command walks through,
 *       whatever its range. They go to every group 0..k-1 (so they depend on, and wait for,
 *       everything).</li>
 *   <li>RANGE from..to (to exclusive) reads the leaves of the keys it spans, walking from the root
 *       and then along the leaf chain: it goes to the groups of every range it spans,
 *       {@code groupOf(from)..groupOf(to - 1)}, which covers every GET/UPDATE on its keys; the chain
 *       and the path change only with INSERT/DELETE, which are in every group. The limit is
 *       ignored (a conservative superset). An empty range ({@code from >= to}) reads no entry and
 *       goes to {@code groupOf(from)}.</li>
 *   <li>Malformed bytes (shorter than 9 bytes, an unknown operation, a RANGE without exactly its
 *       12 further bytes or with a negative limit) go to group 0, {@link GroupSet#DEFAULT}: the
 *       store rejects them without a change, so they depend on nothing. Trailing bytes after a GET
 *       or DELETE key are ignored, as the store ignores them.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe; {@link #route} reads the command in place (absolute gets, the
 * buffer's position and limit untouched), never blocks, never throws and allocates at most the
 * returned set.
 */
public final class BTreeRouter implements CommandRouter {
    private static final int HEADER = 1 + Long.BYTES;
    private static final int RANGE_TAIL = Long.BYTES + Integer.BYTES;

    private final int groups;
    private final GroupSet all;

    /**
     * A router over {@code groups} key ranges, groups 0..groups-1.
     *
     * @throws IllegalArgumentException unless 1 &lt;= groups &lt;= {@link GroupSet#MAX_GROUP} + 1
     */
    public BTreeRouter(int groups) {
        this.all = GroupSet.partition(groups);
        this.groups = groups;
    }

    /** The number of groups k. */
    public int groups() {
        return groups;
    }

    /** The group of {@code key}'s range, 0..groups-1; non-decreasing in {@code key}. */
    public int groupOf(long key) {
        long u = key ^ Long.MIN_VALUE;
        // floor(u * k / 2^64) for unsigned u: the high word of the unsigned 128-bit product.
        long high = Math.multiplyHigh(u, groups) + (u < 0 ? groups : 0);
        return (int) high;
    }

    /**
     * The smallest key of group {@code group}'s range; the range ends before the next group's
     * first key (the last group's at {@link Long#MAX_VALUE}, inclusive).
     *
     * @throws IllegalArgumentException unless 0 &lt;= group &lt; groups
     */
    public long firstKeyOf(int group) {
        if (group < 0 || group >= groups) {
            throw new IllegalArgumentException("group must be 0.." + (groups - 1) + ", got " + group);
        }
        if (group == 0) {
            return Long.MIN_VALUE;
        }
        // The least unsigned u with floor(u * k / 2^64) >= group: ceil(group * 2^64 / k).
        BigInteger k = BigInteger.valueOf(groups);
        long u = BigInteger.valueOf(group).shiftLeft(Long.SIZE).add(k).subtract(BigInteger.ONE).divide(k).longValue();
        return u ^ Long.MIN_VALUE;
    }

    /** The groups of the command between {@code command}'s position and limit (see the class comment). */
    @Override
    public GroupSet route(ByteBuffer command) {
        int pos = command.position();
        int length = command.limit() - pos;
        if (length < HEADER) {
            return GroupSet.DEFAULT;
        }
        byte op = command.get(pos);
        long key = command.getLong(pos + 1);
        switch (op) {
            case BTreeCommands.GET:
            case BTreeCommands.UPDATE:
                return GroupSet.of(groupOf(key));
            case BTreeCommands.INSERT:
            case BTreeCommands.DELETE:
                return all;
            case BTreeCommands.RANGE: {
                if (length != HEADER + RANGE_TAIL || command.getInt(pos + HEADER + Long.BYTES) < 0) {
                    return GroupSet.DEFAULT;
                }
                long to = command.getLong(pos + HEADER);
                int first = groupOf(key);
                if (key >= to) {
                    return GroupSet.of(first);
                }
                int last = groupOf(to - 1);
                return GroupSet.range(first, last);
            }
            default:
                return GroupSet.DEFAULT;
        }
    }
}
