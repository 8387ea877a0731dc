package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.StateMachine;
import dev.parallax.scheduler.classmap.ReadWriteClasses;
import dev.parallax.scheduler.classmap.ShardedClasses;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A sharded state machine whose writes are order-sensitive ({@code v' = 31 v + x}), so that any
 * reordering of conflicting commands changes results, and which counts every overlap of a write
 * with another access to the same shard: an executor that runs conflicting commands at the same
 * time shows up in {@link #overlaps()} even when the results happen to agree.
 */
final class ShardedTestMachine implements StateMachine {
    static final byte LOCAL_READ = 0;
    static final byte LOCAL_WRITE = 1;
    static final byte GLOBAL_READ = 2;
    static final byte GLOBAL_WRITE = 3;
    static final byte FATAL = 4;
    /** Breaks the {@link StateMachine} contract by returning {@code null}; touches no state. */
    static final byte NULL_REPLY = 5;

    private final long[] values;
    private final AtomicInteger[] readers;
    private final AtomicInteger[] writers;
    private final AtomicInteger overlaps = new AtomicInteger();

    private final Hook hook;

    /** Runs inside a command's execution, after it registered its accesses: lets tests hold it there. */
    @FunctionalInterface
    interface Hook {
        void inside(byte op, int shard, int value);
    }

    ShardedTestMachine(int shards) {
        this(shards, (op, shard, value) -> { });
    }

    ShardedTestMachine(int shards, Hook hook) {
        this.hook = hook;
        values = new long[shards];
        readers = new AtomicInteger[shards];
        writers = new AtomicInteger[shards];
        for (int i = 0; i < shards; i++) {
            readers[i] = new AtomicInteger();
            writers[i] = new AtomicInteger();
        }
    }

    static Command command(long seq, byte op, int shard, int value, int cost, boolean fail) {
        ByteBuffer b = ByteBuffer.allocate(11);
        b.put(op).put((byte) shard).putInt(value).putInt(cost).put((byte) (fail ? 1 : 0)).flip();
        return new Command(new dev.parallax.core.CommandId(1, seq), b);
    }

    static CommandClassifier shardedClassifier(ShardedClasses classes) {
        return c -> {
            ByteBuffer p = c.payload();
            byte op = p.get(0);
            int shard = p.get(1);
            return switch (op) {
                case LOCAL_READ, NULL_REPLY -> classes.localRead(shard);
                case LOCAL_WRITE, FATAL -> classes.localWrite(shard);
                case GLOBAL_READ -> classes.globalRead();
                case GLOBAL_WRITE -> classes.globalWrite();
                default -> throw new IllegalArgumentException("op " + op);
            };
        };
    }

    static CommandClassifier readWriteClassifier() {
        return c -> {
            byte op = c.payload().get(0);
            return op == LOCAL_READ || op == GLOBAL_READ ? ReadWriteClasses.READ : ReadWriteClasses.WRITE;
        };
    }

    int overlaps() {
        return overlaps.get();
    }

    long[] state() {
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
        int from = op == LOCAL_READ || op == LOCAL_WRITE ? shard : 0;
        int to = op == LOCAL_READ || op == LOCAL_WRITE ? shard + 1 : values.length;
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
