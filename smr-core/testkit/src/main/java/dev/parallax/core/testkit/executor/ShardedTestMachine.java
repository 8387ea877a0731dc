package dev.parallax.core.testkit.executor;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.StateMachine;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The state machine of the executor contract: {@code n} shards of one {@code long} each, whose
 * writes are order-sensitive ({@code v' = 31 v + x}), so that any reordering of conflicting
 * commands changes results, and which counts every overlap of a write with another access to the
 * same shard: an executor that runs conflicting commands at the same time shows up in
 * {@link #overlaps()} even when the results happen to agree.
 *
 * <p>A command ({@link #command}) is a local read or write of one shard, a global read or write of
 * every shard, a command that throws an {@link Error} ({@link #FATAL}) or one that returns
 * {@code null} ({@link #NULL_REPLY}); any of them may burn CPU ({@code cost}) and local and global
 * ones may be rejected by throwing a {@link RuntimeException} ({@code fail}). Two commands conflict
 * ({@link #conflict}) iff they access a common shard and one of them writes. Every command carries
 * its destination group set γ ({@link #groups}): shard {@code s}'s group is {@code s}, so a local
 * command goes to {@code {s}} and a global one to every shard's group — every two conflicting
 * commands share a group, as P-SMR's C-G function must ensure (seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 6, "C-G").
 *
 * <p>Threads: {@link #execute} may be called from any number of threads at once (that is what it
 * detects); {@link #state()}, {@link #snapshot} and {@link #restore} only while no command executes.
 * Never blocks, except in the {@link Hook} a test installs.
 */
public final class ShardedTestMachine implements StateMachine {
    /** Reads one shard. */
    public static final byte LOCAL_READ = 0;
    /** Writes one shard. */
    public static final byte LOCAL_WRITE = 1;
    /** Reads every shard. */
    public static final byte GLOBAL_READ = 2;
    /** Writes every shard. */
    public static final byte GLOBAL_WRITE = 3;
    /** Throws an {@link AssertionError} ("fatal command"); touches no state. */
    public static final byte FATAL = 4;
    /** Breaks the {@link StateMachine} contract by returning {@code null}; touches no state. */
    public static final byte NULL_REPLY = 5;

    /** The client id of every command {@link #command} builds. */
    public static final long CLIENT = 1;

    private final long[] values;
    private final AtomicInteger[] readers;
    private final AtomicInteger[] writers;
    private final AtomicInteger overlaps = new AtomicInteger();

    private final Hook hook;

    /**
     * Runs inside a command's execution, after it registered its accesses: lets tests hold it
     * there. Called on the executing thread; may block.
     */
    @FunctionalInterface
    public interface Hook {
        void inside(byte op, int shard, int value);
    }

    /** @throws IllegalArgumentException unless {@code 1 <= shards <= 64} */
    public ShardedTestMachine(int shards) {
        this(shards, (op, shard, value) -> { });
    }

    /** @throws IllegalArgumentException unless {@code 1 <= shards <= 64} */
    public ShardedTestMachine(int shards, Hook hook) {
        checkShards(shards);
        this.hook = hook;
        values = new long[shards];
        readers = new AtomicInteger[shards];
        writers = new AtomicInteger[shards];
        for (int i = 0; i < shards; i++) {
            readers[i] = new AtomicInteger();
            writers[i] = new AtomicInteger();
        }
    }

    /**
     * A command of client {@link #CLIENT} with sequence {@code seq}, addressed to its γ
     * ({@link #groups}).
     *
     * @param shards the machine's shard count (global commands go to every shard's group)
     * @param op     one of the op constants; any other byte makes a command no classifier knows
     *               (the machine executes it as a read of {@code shard})
     * @param shard  the shard of a local command, {@code 0 <= shard < shards}; ignored by global ones
     * @param value  the value a write folds in (and what a {@link Hook} sees)
     * @param cost   CPU iterations to burn inside the command
     * @param fail   whether the machine rejects the command with an {@link IllegalStateException}
     *               ({@code "rejected <value>"}) after its accesses
     * @throws IllegalArgumentException if {@code shard} or {@code shards} is out of range
     */
    public static Command command(int shards, long seq, byte op, int shard, int value, int cost, boolean fail) {
        checkShards(shards);
        if (shard < 0 || shard >= shards) {
            throw new IllegalArgumentException("shard must be 0.." + (shards - 1) + ", got " + shard);
        }
        ByteBuffer b = ByteBuffer.allocate(11);
        b.put(op).put((byte) shard).putInt(value).putInt(cost).put((byte) (fail ? 1 : 0)).flip();
        return new Command(new CommandId(CLIENT, groups(shards, op, shard), seq), b);
    }

    /** The group of shard {@code s}: {@code s}. */
    public static int group(int shard) {
        return shard;
    }

    /**
     * γ of a command: {@code {group(shard)}} for a command of one shard (local ones, and the
     * state-less {@link #FATAL} and {@link #NULL_REPLY}, which executors classify as that shard's),
     * every shard's group for a global command.
     */
    public static GroupSet groups(int shards, byte op, int shard) {
        if (isGlobal(op)) {
            return allGroups(shards);
        }
        return GroupSet.of(group(shard));
    }

    /** The groups of all {@code shards} shards: the destination of a global command. */
    public static GroupSet allGroups(int shards) {
        checkShards(shards);
        return GroupSet.ofBits(shards == 64 ? -1L : (1L << shards) - 1);
    }

    /** The op byte of a command {@link #command} built. */
    public static byte op(Command command) {
        return command.payload().get(0);
    }

    /** The shard byte of a command {@link #command} built (meaningful for local ones). */
    public static int shard(Command command) {
        return command.payload().get(1);
    }

    /** Whether {@code op} reads or writes every shard. */
    public static boolean isGlobal(byte op) {
        return op == GLOBAL_READ || op == GLOBAL_WRITE;
    }

    /**
     * Whether executors must keep {@code a} and {@code b} in delivery order: they access a common
     * shard and one of them writes. {@link #FATAL} counts as a write of its shard, every other
     * unknown or state-less op as a read of its shard (the classification executors use).
     */
    public static boolean conflict(Command a, Command b) {
        boolean writes = isWrite(op(a)) || isWrite(op(b));
        boolean common = isGlobal(op(a)) || isGlobal(op(b)) || shard(a) == shard(b);
        return writes && common;
    }

    /** Whether executors must treat {@code op} as a write: the writes and {@link #FATAL}. */
    public static boolean isWrite(byte op) {
        return op == LOCAL_WRITE || op == GLOBAL_WRITE || op == FATAL;
    }

    private static void checkShards(int shards) {
        if (shards < 1 || shards > GroupSet.MAX_GROUP + 1) {
            throw new IllegalArgumentException("shards must be 1.." + (GroupSet.MAX_GROUP + 1) + ", got " + shards);
        }
    }

    /** The number of overlaps of a write with another access to the same shard seen so far. */
    public int overlaps() {
        return overlaps.get();
    }

    /** A copy of the shards' values. */
    public long[] state() {
        return values.clone();
    }

    @Override
    public ByteBuffer execute(ByteBuffer command) {
        byte op = command.get(0);
        int shard = command.get(1);
        int value = command.getInt(2);
        int cost = command.getInt(6);
        boolean fail = command.get(10) != 0;
        if (op == FATAL) {
            throw new AssertionError("fatal command");
        }
        if (op == NULL_REPLY) {
            return null;
        }
        boolean write = op == LOCAL_WRITE || op == GLOBAL_WRITE;
        int from = isGlobal(op) ? 0 : shard;
        int to = isGlobal(op) ? values.length : shard + 1;
        for (int s = from; s < to; s++) {
            enter(s, write);
        }
        try {
            hook.inside(op, shard, value);
            long work = burn(value, cost);
            if (fail) {
                throw new IllegalStateException("rejected " + value);
            }
            long result = 0;
            for (int s = from; s < to; s++) {
                if (write) {
                    values[s] = values[s] * 31 + value;
                }
                result = result * 17 + values[s];
            }
            return ByteBuffer.allocate(16).putLong(result).putLong(work).flip();
        } finally {
            for (int s = from; s < to; s++) {
                (write ? writers : readers)[s].decrementAndGet();
            }
        }
    }

    private void enter(int shard, boolean write) {
        if (write) {
            if (writers[shard].incrementAndGet() != 1 || readers[shard].get() != 0) {
                overlaps.incrementAndGet();
            }
        } else {
            readers[shard].incrementAndGet();
            if (writers[shard].get() != 0) {
                overlaps.incrementAndGet();
            }
        }
    }

    private static long burn(int seed, int cost) {
        long x = seed;
        for (int i = 0; i < cost; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    @Override
    public void snapshot(WritableByteChannel out) throws IOException {
        DataOutputStream d = new DataOutputStream(Channels.newOutputStream(out));
        d.writeInt(values.length);
        for (long v : values) {
            d.writeLong(v);
        }
        d.flush();
    }

    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        DataInputStream d = new DataInputStream(Channels.newInputStream(in));
        int n = d.readInt();
        if (n != values.length) {
            throw new IOException("snapshot has " + n + " shards, expected " + values.length);
        }
        for (int i = 0; i < n; i++) {
            values[i] = d.readLong();
        }
    }
}
