package dev.parallax.scheduler.psmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.StateMachine;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntSupplier;

/**
 * A test state machine with one order-sensitive register per group ({@code v' = 31 v + x} for every
 * group of the command), so that any reordering of two commands with a common group changes the
 * replies and the final state. It records per command (by its index, carried in the payload) how
 * many times it executed, its position in one global execution order (a counter under a lock) and
 * which worker executed it (the {@code workerOfThread} supplier names the current thread's worker).
 *
 * <p>Payload: index (int), group bits (long), x (int), op (byte: {@link #OK}, {@link #THROW},
 * {@link #FATAL}). Safe for concurrent execution of commands with disjoint groups.
 */
final class GroupMachine implements StateMachine {
    static final byte OK = 0;
    /** Rejected with a {@link RuntimeException}; the state is unchanged. */
    static final byte THROW = 1;
    /** Throws an {@link Error}: fatal. */
    static final byte FATAL = 2;

    private final long[] registers = new long[GroupSet.MAX_GROUP + 1];
    private final AtomicIntegerArray executions;
    private final int[] order;
    private final int[] executedBy;
    private final IntSupplier workerOfThread;
    private final Object lock = new Object();
    private int counter;

    GroupMachine(int commands, IntSupplier workerOfThread) {
        this.executions = new AtomicIntegerArray(commands);
        this.order = new int[commands];
        this.executedBy = new int[commands];
        this.workerOfThread = workerOfThread;
    }

    /**
     * The worker of the current thread: a {@link Driver}'s (or a test's) mark, else the index in
     * the name of a {@link PsmrExecutor} worker thread ({@code parallax-psmr-<i>}), else -1.
     */
    static int workerOfCurrentThread() {
        int marked = Driver.WORKER.get();
        if (marked >= 0) {
            return marked;
        }
        String name = Thread.currentThread().getName();
        return name.startsWith("parallax-psmr-") ? Integer.parseInt(name.substring("parallax-psmr-".length())) : -1;
    }

    static Command command(int index, GroupSet groups, int x, byte op) {
        ByteBuffer b = ByteBuffer.allocate(17);
        b.putInt(index).putLong(groups.bits()).putInt(x).put(op).flip();
        return new Command(new CommandId(7, groups, index), b);
    }

    static int index(Command c) {
        return c.payload().getInt(0);
    }

    @Override
    public ByteBuffer execute(ByteBuffer command) {
        int index = command.getInt(0);
        long bits = command.getLong(4);
        int x = command.getInt(12);
        byte op = command.get(16);
        int worker = workerOfThread.getAsInt();
        int position;
        synchronized (lock) {
            position = ++counter;
        }
        order[index] = position;
        executedBy[index] = worker;
        executions.incrementAndGet(index);
        if (op == FATAL) {
            throw new AssertionError("fatal command " + index);
        }
        if (op == THROW) {
            throw new IllegalArgumentException("rejected " + index);
        }
        long h = 0;
        for (long rest = bits; rest != 0; rest &= rest - 1) {
            int g = Long.numberOfTrailingZeros(rest);
            registers[g] = registers[g] * 31 + x;
            h = h * 17 + registers[g];
        }
        return ByteBuffer.allocate(8).putLong(h).flip();
    }

    /** How many times command {@code index} executed. */
    int executions(int index) {
        return executions.get(index);
    }

    /** Its position in the execution order (1-based; 0 if it never executed). */
    int order(int index) {
        return order[index];
    }

    /** The worker that executed it. */
    int executedBy(int index) {
        return executedBy[index];
    }

    long[] registers() {
        synchronized (lock) {
            return registers.clone();
        }
    }

    @Override
    public void snapshot(WritableByteChannel out) {
        throw new UnsupportedOperationException("not used");
    }

    @Override
    public void restore(ReadableByteChannel in) {
        throw new UnsupportedOperationException("not used");
    }
}
