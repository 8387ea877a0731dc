package dev.parallax.scheduler;

import dev.parallax.core.Command;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The shared part of one work-stealing worker (seed 001 Alg. 6 and 9): its {@code readyQueue} of
 * requests the scheduler assigned to it, {@code readyFlag} (a SEQ request is in the ready queue),
 * {@code execFlag} (a SEQ request is in the batch the worker is executing), {@code readyClasses}
 * (which classes the ready queue holds) and {@code marker} (which stealers took work from it and
 * have not finished).
 *
 * <p>Threads: {@link #put} by the scheduling thread; {@link #transfer} by the owner; {@link #steal}
 * and {@link #stealDone} by stealers; the rest by anyone. The methods that are atomic blocks in
 * the paper synchronize on this object, so the flags always agree with the queue's contents. The
 * volatile mirrors ({@link #size()}, {@link #stealable}) may be read without the lock by the
 * optimistic pre-validation of WS-Opt (§6.2.2.4), which then re-validates under the lock.
 */
final class ReadyQueue {
    private final int capacity;
    private TaskBatch batch;
    private volatile int size;
    private volatile int seqCount;
    private volatile boolean execSeq;
    private final long[] readyClasses;
    private final AtomicIntegerArray markers;

    ReadyQueue(int capacity, int classCount, int threadCount) {
        this.capacity = capacity;
        this.batch = new TaskBatch(capacity);
        this.readyClasses = new long[(classCount + 63) >>> 6];
        this.markers = new AtomicIntegerArray(threadCount);
    }

    /** Scheduler: whether {@link #put} fits. Only the scheduler adds, so space only grows until it does. */
    boolean hasSpace() {
        return size < capacity;
    }

    /** Number of requests in the ready queue (a racy view outside the lock). */
    int size() {
        return size;
    }

    /** Scheduler (Alg. 7 lines 4–6 and 8, Alg. 10 lines 7 and 11): appends a request. */
    synchronized void put(Command command, int cls, boolean seq) {
        batch.add(command, cls);
        size = batch.size();
        readyClasses[cls >>> 6] |= 1L << cls;
        if (seq) {
            seqCount++;
        }
    }

    /**
     * Owner (Alg. 8 lines 5–10): moves the whole ready queue into the owner's exec batch by swapping
     * it for {@code emptyExec}; {@code execFlag} takes {@code readyFlag}'s value.
     *
     * @return the batch to execute (possibly empty)
     */
    synchronized TaskBatch transfer(TaskBatch emptyExec) {
        TaskBatch full = batch;
        batch = emptyExec;
        execSeq = seqCount > 0;
        seqCount = 0;
        size = 0;
        java.util.Arrays.fill(readyClasses, 0L);
        return full;
    }

    /**
     * The stealing conditions (Alg. 8 lines 30–32, Alg. 11 lines 32–36, Alg. 14 {@code Validation}):
     * no SEQ request ready or in execution, something to steal, and, when the stealer waits for a
     * SEQ request of class {@code c} (given as its conflict mask), no ready class conflicting with
     * {@code c}. Without the lock the answer is only a hint.
     *
     * @param conflictMask the bitset of classes the stealer's waiting class conflicts with, or
     *                     {@code null} when the stealer is idle
     */
    boolean stealable(long[] conflictMask) {
        if (seqCount != 0 || execSeq || size == 0) {
            return false;
        }
        if (conflictMask != null) {
            for (int i = 0; i < conflictMask.length; i++) {
                if ((readyClasses[i] & conflictMask[i]) != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Stealer {@code stealer} (Alg. 8 lines 29–36): if the conditions hold, takes the whole ready
     * queue, leaving {@code emptyBuffer} (the stealer's own steal buffer, never its exec batch —
     * PROTOCOLS.md §6 errata) in its place, and sets {@code marker[stealer]}.
     *
     * @return the stolen batch, or {@code null} if the conditions do not hold
     */
    synchronized TaskBatch steal(TaskBatch emptyBuffer, int stealer, long[] conflictMask) {
        if (!stealable(conflictMask)) {
            return null;
        }
        TaskBatch stolen = batch;
        batch = emptyBuffer;
        size = 0;
        java.util.Arrays.fill(readyClasses, 0L);
        markers.set(stealer, 1);
        return stolen;
    }

    /** Stealer (Alg. 8 line 40): the stolen requests have all executed. */
    void stealDone(int stealer) {
        markers.set(stealer, 0);
    }

    /** Whether some stealer took work from this queue and has not finished it (Alg. 8 lines 15–16). */
    boolean hasStealers() {
        for (int i = 0; i < markers.length(); i++) {
            if (markers.get(i) != 0) {
                return true;
            }
        }
        return false;
    }
}
