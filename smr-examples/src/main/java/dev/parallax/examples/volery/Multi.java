package dev.parallax.examples.volery;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * multi(ops): ZooKeeper's transaction of {@link Check}, {@link Create}, {@link Delete} and
 * {@link SetData} operations, all or nothing, as ONE S-SMR command (seed 004 (S-SMR / Eyrie / Volery)
 * §IV: a command may touch any set of partitions). It goes to every partition, as create and delete
 * do (every partition holds the hierarchy), and consumes one global zxid. Each partition that owns
 * a path a check, setData or versioned delete names sends that node's version as its local reads;
 * every partition then runs the operations in order with the owners' versions ({@link MultiRun}),
 * so all of them reach the same verdict: every operation applied, or none. The reply's
 * {@link ZkReply#results()} holds one result per operation, ZooKeeper's: on success each
 * operation's own; on failure OK for those before the failed one, its error, and
 * RUNTIMEINCONSISTENCY for those after; the reply's code is OK or the first failure's.
 * Immutable; safe from any thread; never blocks.
 *
 * @param ops  the operations, in order (at least one, at most {@link #MAX_OPS})
 * @param time the ctime / mtime of what it creates and sets, stamped by the entry point ({@link #withTime})
 */
public record Multi(List<VoleryCommand> ops, long time) implements GlobalCommand {
    /** The most operations one multi holds. */
    public static final int MAX_OPS = 10_000;

    /**
     * @throws NullPointerException if ops or one of them is null
     * @throws IllegalArgumentException if there are no or too many operations, or one is not a
     *                                  check, create, delete or setData
     */
    public Multi {
        ops = List.copyOf(ops);
        if (ops.isEmpty() || ops.size() > MAX_OPS) {
            throw new IllegalArgumentException("a multi of " + ops.size() + " operations (1.." + MAX_OPS + ")");
        }
        for (VoleryCommand op : ops) {
            if (!isOperation(op)) {
                throw new IllegalArgumentException("a multi cannot hold " + op.getClass().getSimpleName());
            }
        }
    }

    /** A multi of {@code ops} without a time. */
    public Multi(List<VoleryCommand> ops) {
        this(ops, 0L);
    }

    /** Whether {@code op} may be an operation of a multi (check, create, delete, setData). */
    public static boolean isOperation(VoleryCommand op) {
        return op instanceof Check || op instanceof Create || op instanceof Delete || op instanceof SetData;
    }

    @Override
    public byte opcode() {
        return OP_MULTI;
    }

    @Override
    public Multi withTime(long time) {
        return new Multi(ops, time);
    }

    /** Executes on a tree that owns every path (one partition). */
    @Override
    public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
        return MultiRun.run(tree, null, ops, zxid, time, path -> true, Map.of());
    }

    @Override
    public ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
        return MultiRun.run(tree, watches, ops, zxid, time, path -> true, Map.of());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Multi m && ops.equals(m.ops) && time == m.time;
    }

    @Override
    public int hashCode() {
        return Objects.hash(ops, time);
    }
}
