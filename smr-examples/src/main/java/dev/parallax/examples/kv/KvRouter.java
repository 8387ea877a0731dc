package dev.parallax.examples.kv;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.CommandRouter;

import java.nio.ByteBuffer;

/**
 * Routes key-value commands to the multicast groups of a partitioned ordering (Multi-Ring Paxos,
 * seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2: one ring per group): a key belongs to group
 * {@code groupOf(key) = mix(hash(key)) mod k}, {@code hash} being {@link java.util.Arrays#hashCode(byte[])}
 * (the same in every JVM, so every client routes a key alike). A command goes to the groups of its keys:
 * GET, SET, INCR, STRLEN to their key's group; DEL, EXISTS, MGET and MSET (keys at the even places) to the
 * union of their keys' groups, several groups when the keys fall in several (the ordering then orders
 * it through its global stream, lane k). The whole-store commands DBSIZE and FLUSHALL go to every
 * group 0..k-1. A command without a well-formed key (malformed bytes, which the store rejects;
 * DBSIZE or FLUSHALL with arguments) goes to group 0, {@link GroupSet#DEFAULT}.
 *
 * <p><b>The KV store's C-G function.</b> Under P-SMR (seed 003 ch. 6 §6.3.2, "C-G: mapping
 * commands to destination groups") the groups decide which workers execute a command, so they must
 * give any two dependent commands a common group. They do: two commands on a common key share that
 * key's group, and a whole-store command shares every group with every command. Commands on keys of
 * different groups share none and run in parallel. Malformed commands change nothing and depend on
 * nothing, so their group does not matter. {@code KvRouterTest} checks this with the testkit's
 * {@code CommandGroupsValidator}.
 *
 * <p>With Multi-Ring Paxos and sequential execution every replica subscribes to every group and
 * executes every command, so routing decides only which ring orders a command, never which replica
 * executes it: any routing is correct there, this one spreads single-key commands over the k rings.
 *
 * <p>Used through {@link dev.parallax.core.client.RoutingInvoker} by the RESP front end, the
 * examples' loads and the benchmark clients when the cluster's ordering is {@code multi-ring} or {@code multicast}.
 *
 * <p>Immutable and thread-safe; {@link #route} reads the command in place (absolute gets, the
 * buffer's position untouched), allocates nothing for a single-key command, and never blocks or throws.
 */
public final class KvRouter implements CommandRouter {
    private final int groups;
    private final GroupSet all;

    /**
     * A router over {@code groups} groups, 0..groups-1.
     *
     * @throws IllegalArgumentException unless 1 &lt;= groups &lt;= {@link GroupSet#MAX_GROUP} + 1
     */
    public KvRouter(int groups) {
        this.all = GroupSet.partition(groups);
        this.groups = groups;
    }

    /** The number of groups k. */
    public int groups() {
        return groups;
    }

    /** The group of {@code key}, 0..groups-1. */
    public int groupOf(byte[] key) {
        return groupOf(ByteBuffer.wrap(key), 0, key.length);
    }

    private int groupOf(ByteBuffer buf, int from, int length) {
        if (groups == 1) {
            return 0;
        }
        int h = 1;
        for (int i = from; i < from + length; i++) {
            h = 31 * h + buf.get(i);
        }
        // Murmur3's finalizer: every bit of the hash reaches the low bits the modulus keeps.
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return Math.floorMod(h, groups);
    }

    /**
     * The groups of the command between {@code command}'s position and limit (see the class
     * comment); {@link GroupSet#DEFAULT} for bytes that are not a well-formed KV command.
     */
    @Override
    public GroupSet route(ByteBuffer command) {
        int pos = command.position();
        int end = command.limit();
        if (end - pos < 1 + Integer.BYTES) {
            return GroupSet.DEFAULT;
        }
        byte code = command.get(pos);
        KvOp op;
        try {
            op = KvOp.fromCode(code);
        } catch (IllegalArgumentException e) {
            return GroupSet.DEFAULT;
        }
        int argc = command.getInt(pos + 1);
        if (op.isGlobal()) {
            return argc == 0 ? all : GroupSet.DEFAULT;
        }
        if (argc < 1 || argc > (end - pos) / Integer.BYTES) {
            return GroupSet.DEFAULT;
        }
        boolean allKeys = op == KvOp.DEL || op == KvOp.EXISTS || op == KvOp.MGET || op == KvOp.MSET;
        int step = op == KvOp.MSET ? 2 : 1;
        int lastKey = allKeys ? argc - 1 : 0;
        long bits = 0;
        int at = pos + 1 + Integer.BYTES;
        for (int i = 0; i <= lastKey; i++) {
            if (end - at < Integer.BYTES) {
                return GroupSet.DEFAULT;
            }
            int length = command.getInt(at);
            at += Integer.BYTES;
            if (length < 0 || length > end - at) {
                return GroupSet.DEFAULT;
            }
            if (i % step == 0) {
                bits |= 1L << groupOf(command, at, length);
            }
            at += length;
        }
        return bits == 0 ? GroupSet.DEFAULT : GroupSet.ofBits(bits);
    }
}
