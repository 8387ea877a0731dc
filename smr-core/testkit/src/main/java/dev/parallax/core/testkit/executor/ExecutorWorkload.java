package dev.parallax.core.testkit.executor;

import dev.parallax.core.Command;
import dev.parallax.core.GroupSet;

import java.util.List;

/**
 * What an executor factory of the {@link ExecutorContract} gets: the {@link ShardedTestMachine}'s
 * shard count, the worker threads to use, a hint on how finely to classify, the executor's input
 * capacity, and the commands in delivery order, each carrying its γ in its
 * {@link dev.parallax.core.CommandId#groups() id} (shard {@code s}'s group is {@code s}; a global
 * command goes to {@link #allGroups()}). Factories build whatever they need from this — a class map
 * and classifier (decoding commands with {@link ShardedTestMachine#op} and
 * {@link ShardedTestMachine#shard}), a conflict relation ({@link ShardedTestMachine#conflict}), or
 * P-SMR's worker groups (group {@code g} on worker {@code g mod threads}).
 *
 * <p>Immutable and thread-safe.
 *
 * @param shards        the state machine's shards, 1..64
 * @param threads       worker threads the executor should use, {@code >= 1}
 * @param readWriteOnly a classification hint: {@code true} asks for a coarse map that tells only
 *                      reads from writes (every write conflicts with every command); {@code false}
 *                      for one that knows shards. Executors without classes ignore it.
 * @param capacity      the executor's bounded input (queue or graph) capacity, {@code >= 1}
 * @param commands      the commands in delivery order (copied)
 */
public record ExecutorWorkload(int shards, int threads, boolean readWriteOnly, int capacity, List<Command> commands) {

    /** @throws IllegalArgumentException if a count is out of range */
    public ExecutorWorkload {
        if (shards < 1 || shards > GroupSet.MAX_GROUP + 1) {
            throw new IllegalArgumentException("shards must be 1.." + (GroupSet.MAX_GROUP + 1) + ", got " + shards);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        commands = List.copyOf(commands);
    }

    /** A shard-aware workload of {@code commands} ({@code readWriteOnly} false). */
    public static ExecutorWorkload of(int shards, int threads, int capacity, List<Command> commands) {
        return new ExecutorWorkload(shards, threads, false, capacity, commands);
    }

    /** The destination of a global command: every shard's group. */
    public GroupSet allGroups() {
        return ShardedTestMachine.allGroups(shards);
    }

    /** A fresh state machine with this workload's shards. */
    public ShardedTestMachine newMachine() {
        return new ShardedTestMachine(shards);
    }

    /** Names the shape, not the commands (they may be many). */
    @Override
    public String toString() {
        return "ExecutorWorkload[shards=" + shards + ", threads=" + threads + ", readWriteOnly=" + readWriteOnly
                + ", capacity=" + capacity + ", commands=" + commands.size() + "]";
    }
}
