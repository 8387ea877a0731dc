package dev.parallax.paxos.multicast;

import dev.parallax.core.spi.MulticastPosition;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The decided values of every stream of one process, and the deterministic merge its
 * subscriptions read them through (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1
 * task 4): a subscription consumes the instances of the streams it merges in increasing
 * (⌊instance / M⌋, stream id) order — M instances of each stream in turn, streams in increasing id
 * — and delivers the messages of its groups. Since that key is the same for every subscription,
 * every subscription delivers in one global order: the union of the delivery orders is acyclic
 * (Prop. 4 compares exactly (⌊k/M⌋, group id)). Any vector of per-stream next instances is a valid
 * resume point of that merge, which is what makes a {@link MulticastPosition} enough to restart.
 *
 * <p><b>Positions.</b> The merge consumes gaps (no-ops, skips, copies) one round of a stream at a
 * time, never further, so the position after a delivery depends only on the decided values and the
 * position the subscription started from: every process reports the same positions.
 *
 * <p><b>Copies.</b> A message its origin resent may be decided twice; per stream an
 * {@link OriginSequences} record keeps only the first decision of each {@code (origin, sequence)},
 * and a later copy's instance is a gap like a skip. The record is fed the stream's decided values in
 * instance order, so it is the same in every process that saw the stream from the same point, and
 * every subscription everywhere consumes the same values at the same instances. It restarts empty
 * when the stream continues from a snapshot (see {@link OriginSequences} for what that leaves open).
 *
 * <p><b>History.</b> Per stream, at most {@code retention} messages are kept (skips and no-ops are
 * gaps and take no room). The oldest is dropped when it is full and no open subscription merging
 * the stream still needs it; otherwise the writer blocks (back-pressure to the stream's ordering).
 * {@code floor} is the lowest instance still servable: a subscription may start at or above it.
 *
 * <p><b>Threads.</b> One lock guards everything. Writers are the streams' delivery threads
 * ({@link #decided} may block); readers are the subscriptions' threads ({@link #next} blocks);
 * the sequencer reads {@link #observedNext}; the rest is called from any thread and never blocks
 * except on the lock.
 */
final class DecidedStreams {
    private final int[] ids;
    private final int roundLength;
    private final int retention;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition decidedCond = lock.newCondition();
    private final Condition consumedCond = lock.newCondition();
    private final List<TreeMap<Long, Envelope>> values = new ArrayList<>();
    private final OriginSequences[] sequences;
    /** Every instance below it is known: decided and received, or below an installed snapshot. */
    private final long[] decidedNext;
    /** One past the last instance the stream's ordering delivered here (not moved by installs). */
    private final long[] observedNext;
    private final long[] floor;
    private final long[] compactedAt;
    private final List<MergeCursor> open = new ArrayList<>();
    private boolean closed;

    /** A message for one subscription, with the position after it. */
    record Delivery(Envelope envelope, MulticastPosition after) {
    }

    /** A stream point to hand to the stream's broadcast (install or compaction), outside the lock. */
    record StreamPoint(int index, long sequence) {
    }

    /** @param origins message origins are {@code 0..origins-1} (the members) */
    DecidedStreams(int[] ids, int origins, int roundLength, int retention) {
        this.ids = ids.clone();
        this.roundLength = roundLength;
        this.retention = retention;
        this.sequences = new OriginSequences[ids.length];
        for (int i = 0; i < ids.length; i++) {
            values.add(new TreeMap<>());
            sequences[i] = new OriginSequences(origins);
        }
        this.decidedNext = new long[ids.length];
        this.observedNext = new long[ids.length];
        this.floor = new long[ids.length];
        this.compactedAt = new long[ids.length];
    }

    int[] ids() {
        return ids.clone();
    }

    /**
     * Stream {@code index} decided {@code envelope} at {@code instance} (instances arrive in
     * increasing order; the gaps are no-ops). Blocks while the stream's history is full of
     * messages an open subscription still needs.
     *
     * @return {@code true} if {@code envelope} was a copy of a message decided before, dropped
     * @throws IllegalArgumentException if a message's origin is not {@code 0..origins-1}
     */
    boolean decided(int index, long instance, Envelope envelope) throws InterruptedException {
        boolean duplicate = false;
        lock.lock();
        try {
            observedNext[index] = Math.max(observedNext[index], instance + 1);
            if (envelope.kind() == Envelope.Kind.MESSAGE
                    && !sequences[index].seen(envelope.origin(), envelope.sequence())) {
                TreeMap<Long, Envelope> v = values.get(index);
                while (!closed && instance >= decidedNext[index] && v.size() >= retention) {
                    long oldest = v.firstKey();
                    if (oldest < lowestNeeded(index)) {
                        v.pollFirstEntry();
                        floor[index] = oldest + 1;
                    } else {
                        consumedCond.await();
                    }
                }
                if (closed || instance < decidedNext[index]) {
                    return false;
                }
                // Nothing else records this stream, but a snapshot install may have reset it meanwhile.
                if (sequences[index].firstDecision(envelope.origin(), envelope.sequence())) {
                    v.put(instance, envelope);
                } else {
                    duplicate = true;
                }
            } else if (closed || instance < decidedNext[index]) {
                return false;
            } else if (envelope.kind() == Envelope.Kind.MESSAGE) {
                duplicate = true; // a copy of a message decided before: a gap, like a skip
            }
            decidedNext[index] = instance + 1;
            decidedCond.signalAll();
            return duplicate;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: the lowest instance of stream {@code index} an open subscription has not consumed. */
    private long lowestNeeded(int index) {
        long min = Long.MAX_VALUE;
        for (MergeCursor c : open) {
            if (c.merged[index]) {
                min = Math.min(min, c.next[index]);
            }
        }
        return min;
    }

    /** The highest {@link #observedNext} over every stream, and that of {@code index}: for skips. */
    long[] observed(int index) {
        lock.lock();
        try {
            long max = 0;
            for (long n : observedNext) {
                max = Math.max(max, n);
            }
            return new long[] {max, observedNext[index]};
        } finally {
            lock.unlock();
        }
    }

    /**
     * Registers {@code cursor} starting at {@code from}.
     *
     * @return the streams whose broadcast should skip ahead to where every subscription starts
     * @throws IllegalArgumentException if {@code from} is below what a merged stream still holds
     */
    List<StreamPoint> open(MergeCursor cursor, MulticastPosition from) {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("closed");
            }
            checkHeld(cursor, from);
            moveTo(cursor, from);
            for (int i = 0; i < ids.length; i++) {
                cursor.snapshotAt[i] = cursor.next[i];
            }
            open.add(cursor);
            return installs(cursor);
        } finally {
            lock.unlock();
        }
    }

    /** Moves {@code cursor} to {@code to} (a snapshot install); see {@link #open}. */
    List<StreamPoint> jump(MergeCursor cursor, MulticastPosition to) {
        lock.lock();
        try {
            if (cursor.closed || closed) {
                throw new IllegalStateException("subscription closed");
            }
            checkHeld(cursor, to);
            moveTo(cursor, to);
            decidedCond.signalAll();
            consumedCond.signalAll();
            return installs(cursor);
        } finally {
            lock.unlock();
        }
    }

    private void checkHeld(MergeCursor cursor, MulticastPosition p) {
        for (int i = 0; i < ids.length; i++) {
            if (cursor.merged[i] && p.next(ids[i]) < floor[i]) {
                throw new IllegalArgumentException("position " + p + " is older than what this process holds of stream "
                        + ids[i] + " (from instance " + floor[i] + ")");
            }
        }
    }

    private void moveTo(MergeCursor cursor, MulticastPosition p) {
        for (int i = 0; i < ids.length; i++) {
            if (cursor.merged[i]) {
                cursor.next[i] = p.next(ids[i]);
            }
        }
    }

    /** Under the lock: streams every open subscription of which starts beyond what was decided here. */
    private List<StreamPoint> installs(MergeCursor cursor) {
        List<StreamPoint> out = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            if (!cursor.merged[i]) {
                continue;
            }
            long needed = lowestNeeded(i);
            if (needed != Long.MAX_VALUE && needed > decidedNext[i]) {
                decidedNext[i] = needed;
                floor[i] = needed;
                values.get(i).headMap(needed, false).clear();
                sequences[i].reset();
                out.add(new StreamPoint(i, needed));
            }
        }
        return out;
    }

    /** Records a snapshot of {@code cursor}; returns the streams every open subscription's snapshots now cover further. */
    List<StreamPoint> snapshotTaken(MergeCursor cursor, MulticastPosition p) {
        lock.lock();
        try {
            if (cursor.closed) {
                return List.of();
            }
            List<StreamPoint> out = new ArrayList<>();
            for (int i = 0; i < ids.length; i++) {
                if (!cursor.merged[i]) {
                    continue;
                }
                cursor.snapshotAt[i] = Math.max(cursor.snapshotAt[i], p.next(ids[i]));
                long covered = Long.MAX_VALUE;
                for (MergeCursor c : open) {
                    if (c.merged[i]) {
                        covered = Math.min(covered, c.snapshotAt[i]);
                    }
                }
                if (covered != Long.MAX_VALUE && covered > compactedAt[i]) {
                    compactedAt[i] = covered;
                    out.add(new StreamPoint(i, covered));
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** Unregisters {@code cursor}: {@link #next} returns {@code null} for it from now on. */
    void close(MergeCursor cursor) {
        lock.lock();
        try {
            cursor.closed = true;
            open.remove(cursor);
            decidedCond.signalAll();
            consumedCond.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes and releases every waiter for good. */
    void close() {
        lock.lock();
        try {
            closed = true;
            decidedCond.signalAll();
            consumedCond.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next message for {@code cursor} in the merged order, consuming the instances before it;
     * waits until it is decided. {@code null} once the cursor or the streams are closed.
     */
    Delivery next(MergeCursor cursor) throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                if (closed || cursor.closed) {
                    return null;
                }
                int best = -1;
                for (int i = 0; i < ids.length; i++) {
                    if (cursor.merged[i] && (best < 0 || cursor.next[i] / roundLength < cursor.next[best] / roundLength)) {
                        best = i; // ties keep the lower stream id: ids are increasing
                    }
                }
                long k = cursor.next[best];
                if (k >= decidedNext[best]) {
                    decidedCond.await();
                    continue;
                }
                Map.Entry<Long, Envelope> e = values.get(best).ceilingEntry(k);
                if (e == null || e.getKey() > k) {
                    // Instances k.. up to the next message are no-ops, skips and copies: nothing to
                    // deliver. Consume them to the end of this round at most, so that the cursor
                    // after each delivery is a function of the decided values, not of how far the
                    // streams had been decided when it looked (every process, and every
                    // subscription resumed from a position, reports the same positions).
                    long target = e == null ? decidedNext[best] : e.getKey();
                    cursor.next[best] = Math.min(target, (k / roundLength + 1) * roundLength);
                    consumedCond.signalAll();
                    continue;
                }
                cursor.next[best] = k + 1;
                consumedCond.signalAll();
                Envelope env = e.getValue();
                if ((env.groupBits() & cursor.groups.bits()) != 0) {
                    return new Delivery(env, cursor.position(ids));
                }
            }
        } finally {
            lock.unlock();
        }
    }
}
