package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;

/**
 * The delivery thread's copy of {@link ExecutedIds} (deduplication state is replicated state):
 * applies the ids of every delivered instance, so that when the replica snapshots after
 * instance {@code i} the record it stores ({@link #state}) is exactly the one the protocol thread
 * had after executing {@code i} — whatever the protocol thread has executed since. A replica that
 * installs that snapshot restores the record ({@link #restore}) and the core decides "duplicate or
 * new" as every other replica does (seed 002 (S-Paxos) footnote 5).
 *
 * <p>Positions: {@link #apply} ignores instances below its position (covered by an installed
 * snapshot) and moves the position past the instance it applies.
 *
 * <p>Thread-safe by its monitor: the delivery thread applies and reads, the thread installing a
 * snapshot restores. Never blocks beyond the monitor.
 */
public final class ExecutionMirror {
    private ExecutedIds executed = new ExecutedIds();
    private long position;

    /**
     * Instance {@code instance} executed {@code ids}.
     *
     * @return {@code false} if the instance lies below the position (ignored)
     */
    public synchronized boolean apply(long instance, java.util.List<BatchId> ids) {
        if (instance < position) {
            return false;
        }
        for (BatchId id : ids) {
            executed.firstExecution(id);
        }
        position = instance + 1;
        return true;
    }

    /** The record as of the position: the delivery state a snapshot at the position carries. */
    public synchronized byte[] state() {
        return executed.toBytes();
    }

    /** The next instance this mirror applies. */
    public synchronized long position() {
        return position;
    }

    /**
     * A snapshot covering every instance below {@code instance}, with delivery state {@code state},
     * was installed. An older one than the position is ignored.
     *
     * @throws IllegalArgumentException if {@code state} is not an {@link ExecutedIds} record (nothing changes)
     */
    public synchronized void restore(long instance, byte[] state) {
        if (instance < position) {
            return;
        }
        executed = ExecutedIds.fromBytes(ByteBuffer.wrap(state));
        position = instance;
    }

    /** A copy of the record (tests). */
    public synchronized ExecutedIds executed() {
        return executed.copy();
    }
}
