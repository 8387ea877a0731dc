package dev.parallax.core.multicast;

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
 * task 4): a subscription consumes the indices of the streams it merges in increasing
 * (⌊index / M⌋, stream id) order — M indices of each stream in turn, streams in increasing id —
 * and delivers the messages of its groups. Since that key is the same for every subscription,
 * every subscription delivers in one global order: the union of the delivery orders is acyclic
 * (Prop. 4 compares exactly (⌊k/M⌋, group id)). Any vector of per-stream next indices is a valid
 * resume point of that merge, which is what makes a {@link MulticastPosition} enough to restart.
 *
 * <p><b>Indices.</b> With {@link Numbering#INSTANCE} a stream's index is the broadcast's instance
 * (gaps are no-ops). With {@link Numbering#LOGICAL} each stream numbers its values by the
 * logical rule (see {@link Numbering#LOGICAL}) from a known (instance, index) point — (0, 0), or where an
 * install put it — and keeps every value it numbered (gaps too: a skip-to under the last index it
 * covers), each with its instance, so that a cursor knows the instance its delivery resumes from
 * ({@link MergeCursor#resume}: one past the instance of the last value it passed entirely).
 *
 * <p><b>Positions.</b> The merge consumes gaps (no-ops, skips, copies) one round of a stream at a
 * time, never further — except a gap value numbered {@link Numbering#LOGICAL}, consumed whole (its
 * end is decided: a skip's target) — so the position after a delivery depends only on the decided
 * values and the position the subscription started from: every process reports the same
 * positions. Gaps never change the order of the messages: a stream's cursor only passes gaps, and
 * the stream picked next is always the one whose cursor has the lowest (round, stream id).
 *
 * <p><b>Copies.</b> A message its origin resent may be decided twice; per stream an
 * {@link OriginSequences} record keeps only the first decision of each {@code (origin, sequence)},
 * and a later copy's index is a gap like a skip. The record is fed the stream's decided values in
 * instance order, so it is the same in every process that saw the stream from the same point, and
 * every subscription everywhere consumes the same values at the same indices. When the stream
 * continues from a snapshot it restarts from the record the snapshot's position carries
 * ({@link #resumePosition}: each cursor keeps the record of the messages it passed), or empty for
 * a position without one (see {@link OriginSequences} for what that leaves open).
 *
 * <p><b>History.</b> Per stream, at most {@code retention} values are kept: messages, and with
 * {@link Numbering#LOGICAL} also the gaps numbered (with {@link Numbering#INSTANCE} skips and
 * no-ops take no room). The oldest is dropped when it is full and no open subscription merging the
 * stream still needs it; otherwise the writer blocks (back-pressure to the stream's ordering).
 * {@code floor} is the lowest index still servable: a subscription may start at or above it.
 *
 * <p><b>Threads.</b> One lock guards everything. Writers are the streams' delivery threads
 * ({@link #decided} may block); readers are the subscriptions' threads ({@link #next} blocks);
 * the sequencer reads {@link #observed}; the rest is called from any thread and never blocks
 * except on the lock.
 */
final class DecidedStreams {
    private final int[] ids;
    private final int origins;
    private final int roundLength;
    private final int retention;
    private final boolean logical;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition decidedCond = lock.newCondition();
    private final Condition consumedCond = lock.newCondition();
    private final List<TreeMap<Long, Item>> values = new ArrayList<>();
    private final OriginSequences[] sequences;
    /** Every index below it is known: decided and received, or below an installed snapshot. */
    private final long[] decidedNext;
    /** One past the highest index the stream's broadcast delivered here (not moved by installs): for demand skips. */
    private final long[] observedNext;
    private final long[] floor;
    private final long[] compactedAt;
    /** {@link Numbering#LOGICAL}: the index the next value takes. */
    private final long[] numberNext;
    /** {@link Numbering#LOGICAL}: instances below it are before the numbering's start, ignored. */
    private final long[] instanceNext;
    private final List<MergeCursor> open = new ArrayList<>();
    private boolean closed;

    /**
     * A message for one subscription, with the position after it; or ({@code envelope == null}) the
     * read marks the cursor passed ({@link #whenPassed}), to run in the merge's order.
     */
    record Delivery(Envelope envelope, MulticastPosition after, List<Runnable> passed) {
        Delivery(Envelope envelope, MulticastPosition after) {
            this(envelope, after, List.of());
        }
    }

    /** A read's points by stream index (-1: none in that stream), and what runs once the cursor passed them. */
    record ReadMark(long[] points, Runnable passed) {
    }

    /**
     * A stream point to hand to the stream's broadcast (install or compaction), outside the lock:
     * {@code sequence} is the merge's index, {@code instance} the broadcast's (the same with
     * {@link Numbering#INSTANCE}).
     */
    record StreamPoint(int index, long sequence, long instance) {
    }

    /** A value kept: a message, or ({@code envelope == null}) a gap numbered by {@link Numbering#LOGICAL}. */
    private record Item(Envelope envelope, long instance) {
    }

    /** {@link Numbering#INSTANCE}; see {@link #DecidedStreams(int[], int, int, int, Numbering)}. */
    DecidedStreams(int[] ids, int origins, int roundLength, int retention) {
        this(ids, origins, roundLength, retention, Numbering.INSTANCE);
    }

    /** @param origins message origins are {@code 0..origins-1} (the members) */
    DecidedStreams(int[] ids, int origins, int roundLength, int retention, Numbering numbering) {
        this.ids = ids.clone();
        this.origins = origins;
        this.roundLength = roundLength;
        this.retention = retention;
        this.logical = numbering == Numbering.LOGICAL;
        this.sequences = new OriginSequences[ids.length];
        for (int i = 0; i < ids.length; i++) {
            values.add(new TreeMap<>());
            sequences[i] = new OriginSequences(origins);
        }
        this.decidedNext = new long[ids.length];
        this.observedNext = new long[ids.length];
        this.floor = new long[ids.length];
        this.compactedAt = new long[ids.length];
        this.numberNext = new long[ids.length];
        this.instanceNext = new long[ids.length];
    }

    int[] ids() {
        return ids.clone();
    }

    /**
     * Stream {@code index}'s broadcast decided {@code envelope} at {@code instance} (instances
     * arrive in increasing order; the gaps are no-ops). Blocks while the stream's history is full
     * of values an open subscription still needs.
     *
     * @return {@code true} if {@code envelope} was a copy of a message decided before, dropped
     * @throws IllegalArgumentException if a message's origin is not {@code 0..origins-1}
     */
    boolean decided(int index, long instance, Envelope envelope) throws InterruptedException {
        lock.lock();
        try {
            TreeMap<Long, Item> v = values.get(index);
            long at;
            long numberAfter;
            if (!logical) {
                observedNext[index] = Math.max(observedNext[index], instance + 1);
            }
            while (true) {
                // Numbered afresh after every wait: an install may have moved the stream meanwhile.
                if (logical) {
                    if (instance < instanceNext[index]) {
                        return false; // before where the numbering starts (an install)
                    }
                    if (envelope.kind() == Envelope.Kind.SKIP_TO) {
                        if (envelope.sequence() <= numberNext[index]) {
                            instanceNext[index] = instance + 1; // stale or repeated: numbers nothing
                            return false;
                        }
                        at = envelope.sequence() - 1;
                        numberAfter = envelope.sequence();
                    } else {
                        at = numberNext[index];
                        numberAfter = at + 1;
                    }
                } else {
                    at = instance;
                    numberAfter = instance + 1;
                }
                if (closed || at < decidedNext[index]) {
                    return false;
                }
                boolean kept = logical || (envelope.kind() == Envelope.Kind.MESSAGE
                        && !sequences[index].seen(envelope.origin(), envelope.sequence()));
                if (!kept || v.size() < retention) {
                    break;
                }
                long oldest = v.firstKey();
                if (oldest < lowestNeeded(index)) {
                    v.pollFirstEntry();
                    floor[index] = oldest + 1;
                } else {
                    consumedCond.await();
                }
            }
            if (logical) {
                instanceNext[index] = instance + 1;
                numberNext[index] = numberAfter;
                observedNext[index] = Math.max(observedNext[index], numberAfter);
            }
            boolean duplicate = false;
            Item item = logical ? new Item(null, instance) : null;
            if (envelope.kind() == Envelope.Kind.MESSAGE) {
                // Nothing else records this stream, but a snapshot install may have reset it meanwhile.
                if (sequences[index].firstDecision(envelope.origin(), envelope.sequence())) {
                    item = new Item(envelope, instance);
                } else {
                    duplicate = true; // a copy of a message decided before: a gap, like a skip
                }
            }
            if (item != null) {
                v.put(at, item);
            }
            decidedNext[index] = at + 1;
            decidedCond.signalAll();
            return duplicate;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: the open cursor merging stream {@code index} that stands lowest in it, or null. */
    private MergeCursor lowestCursor(int index) {
        MergeCursor min = null;
        for (MergeCursor c : open) {
            if (c.merged[index] && (min == null || c.next[index] < min.next[index])) {
                min = c;
            }
        }
        return min;
    }

    /** Under the lock: the lowest index of stream {@code index} an open subscription has not consumed. */
    private long lowestNeeded(int index) {
        MergeCursor c = lowestCursor(index);
        return c == null ? Long.MAX_VALUE : c.next[index];
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
                cursor.snapshotResume[i] = cursor.resume[i];
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
                        + ids[i] + " (from " + floor[i] + ")");
            }
        }
    }

    private void moveTo(MergeCursor cursor, MulticastPosition p) {
        OriginSequences[] records = records(p);
        for (int i = 0; i < ids.length; i++) {
            if (cursor.merged[i]) {
                cursor.next[i] = p.next(ids[i]);
                cursor.resume[i] = logical ? p.next(MulticastPosition.resumeStream(ids[i])) : cursor.next[i];
                boolean atStart = cursor.next[i] == 0 && cursor.resume[i] == 0;
                cursor.passed[i] = records[i] != null ? records[i] : atStart ? new OriginSequences(origins) : null;
            }
        }
    }

    /**
     * The per-stream records {@code p} carries ({@link #resumePosition}), indexed like the
     * streams; null entries for the streams it carries none of.
     *
     * @throws IllegalArgumentException if the record is malformed
     */
    private OriginSequences[] records(MulticastPosition p) {
        OriginSequences[] out = new OriginSequences[ids.length];
        byte[] bytes = p.record();
        if (bytes.length == 0) {
            return out;
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
        try {
            int count = b.getInt();
            for (int k = 0; k < count; k++) {
                int stream = b.getInt();
                OriginSequences r = OriginSequences.readFrom(b, origins);
                for (int i = 0; i < ids.length; i++) {
                    if (ids[i] == stream) {
                        out[i] = r;
                    }
                }
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated record in position " + p, e);
        }
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the record in position " + p);
        }
        return out;
    }

    /**
     * {@code delivered} with the record of the messages {@code cursor} passed on every stream it
     * merges (the streams' duplicate records as of that position), for a snapshot; called while
     * the cursor stands at {@code delivered} (inside its delivery). Elsewhere, or where a record is
     * unknown, the position is returned as it is or with the known streams only.
     */
    MulticastPosition resumePosition(MergeCursor cursor, MulticastPosition delivered) {
        lock.lock();
        try {
            int count = 0;
            int size = 4;
            for (int i = 0; i < ids.length; i++) {
                if (!cursor.merged[i]) {
                    continue;
                }
                if (cursor.next[i] != delivered.next(ids[i])
                        || (logical && cursor.resume[i] != delivered.next(MulticastPosition.resumeStream(ids[i])))) {
                    return delivered; // not standing there: no record rather than a wrong one
                }
                if (cursor.passed[i] != null) {
                    count++;
                    size += 4 + cursor.passed[i].encodedSize();
                }
            }
            if (count == 0) {
                return delivered;
            }
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(size);
            b.putInt(count);
            for (int i = 0; i < ids.length; i++) {
                if (cursor.merged[i] && cursor.passed[i] != null) {
                    b.putInt(ids[i]);
                    cursor.passed[i].writeTo(b);
                }
            }
            return delivered.withRecord(b.array());
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: streams every open subscription of which starts beyond what was decided here. */
    private List<StreamPoint> installs(MergeCursor cursor) {
        List<StreamPoint> out = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            if (!cursor.merged[i]) {
                continue;
            }
            MergeCursor lowest = lowestCursor(i);
            if (lowest != null && lowest.next[i] > decidedNext[i]) {
                long needed = lowest.next[i];
                decidedNext[i] = needed;
                floor[i] = needed;
                values.get(i).headMap(needed, false).clear();
                // The duplicate record as of the install point: the one the position carried, if any.
                if (lowest.passed[i] != null) {
                    sequences[i] = lowest.passed[i].copy();
                } else {
                    sequences[i].reset();
                }
                // Numbering restarts at the cursor's resume instance with its index: the values from
                // there number as they did where the position was reported (a stale skip-to is harmless).
                numberNext[i] = needed;
                instanceNext[i] = lowest.resume[i];
                out.add(new StreamPoint(i, needed, lowest.resume[i]));
            } else if (logical && lowest != null && lowest.next[i] == decidedNext[i]
                    && lowest.resume[i] > instanceNext[i]) {
                // Same logical next, later instance: what lies between numbers nothing (NOOPs, stale
                // skips: the numbering is a function of the decided values, and both ends are at the
                // same index), so nothing is lost or reset here; but the stream's broadcast must move
                // there, or a ring whose peers compacted those instances waits for them for ever.
                instanceNext[i] = lowest.resume[i];
                out.add(new StreamPoint(i, lowest.next[i], lowest.resume[i]));
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
                long at = p.next(ids[i]);
                if (at > cursor.snapshotAt[i]) {
                    cursor.snapshotAt[i] = at;
                    cursor.snapshotResume[i] = logical ? p.next(MulticastPosition.resumeStream(ids[i])) : at;
                }
                MergeCursor least = null;
                for (MergeCursor c : open) {
                    if (c.merged[i] && (least == null || c.snapshotAt[i] < least.snapshotAt[i])) {
                        least = c;
                    }
                }
                if (least != null && least.snapshotAt[i] > compactedAt[i]) {
                    compactedAt[i] = least.snapshotAt[i];
                    out.add(new StreamPoint(i, least.snapshotAt[i], least.snapshotResume[i]));
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
     * Read-index over the merge: {@code passed} runs on {@code cursor}'s thread, between two of its
     * deliveries, once the cursor passed instance {@code points.get(id)} of every stream id it
     * merges ({@link MergeCursor#resume} at or above it): every message of those streams below the
     * points was delivered before it. Streams the cursor does not merge are ignored. Any thread.
     */
    void whenPassed(MergeCursor cursor, Map<Integer, Long> points, Runnable passed) {
        long[] byIndex = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            Long p = points.get(ids[i]);
            byIndex[i] = p == null || !cursor.merged[i] ? -1 : p;
        }
        lock.lock();
        try {
            cursor.marks.add(new ReadMark(byIndex, passed));
            decidedCond.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: the marks {@code cursor} passed, taken out of its list. */
    private static List<Runnable> passedMarks(MergeCursor cursor) {
        List<Runnable> passed = null;
        for (java.util.Iterator<ReadMark> it = cursor.marks.iterator(); it.hasNext(); ) {
            ReadMark m = it.next();
            boolean all = true;
            for (int i = 0; all && i < m.points().length; i++) {
                all = m.points()[i] < 0 || cursor.resume[i] >= m.points()[i];
            }
            if (all) {
                it.remove();
                if (passed == null) {
                    passed = new ArrayList<>();
                }
                passed.add(m.passed());
            }
        }
        return passed == null ? List.of() : passed;
    }

    /**
     * The next message for {@code cursor} in the merged order, consuming the indices before it;
     * waits until it is decided. {@code null} once the cursor or the streams are closed. Read marks
     * the cursor passed ({@link #whenPassed}) come first, as a delivery without a message.
     */
    Delivery next(MergeCursor cursor) throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                if (closed || cursor.closed) {
                    return null;
                }
                if (!cursor.marks.isEmpty()) {
                    List<Runnable> passed = passedMarks(cursor);
                    if (!passed.isEmpty()) {
                        return new Delivery(null, null, passed);
                    }
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
                Map.Entry<Long, Item> e = values.get(best).ceilingEntry(k);
                boolean gap = e == null || e.getKey() > k || e.getValue().envelope() == null;
                if (gap) {
                    // Indices k.. up to the next message are no-ops, skips and copies: nothing to
                    // deliver. Consume them to the end of this round at most, so that the cursor
                    // after each delivery is a function of the decided values, not of how far the
                    // streams had been decided when it looked (every process, and every
                    // subscription resumed from a position, reports the same positions). A gap
                    // value numbered LOGICAL is consumed whole at once, whatever its rounds: its
                    // end is decided, and a skip may cover billions of indices (its target is
                    // λ times the epoch time).
                    long target = e == null ? decidedNext[best]
                            : e.getValue().envelope() == null ? e.getKey() + 1 : e.getKey();
                    long to = logical && e != null ? target : Math.min(target, (k / roundLength + 1) * roundLength);
                    cursor.next[best] = to;
                    if (e != null && e.getValue().envelope() == null && to > e.getKey()) {
                        cursor.resume[best] = e.getValue().instance() + 1; // passed the gap value entirely
                    } else if (!logical) {
                        cursor.resume[best] = to;
                    }
                    consumedCond.signalAll();
                    continue;
                }
                cursor.next[best] = k + 1;
                cursor.resume[best] = logical ? e.getValue().instance() + 1 : k + 1;
                consumedCond.signalAll();
                Envelope env = e.getValue().envelope();
                if (cursor.passed[best] != null) {
                    cursor.passed[best].firstDecision(env.origin(), env.sequence());
                }
                if ((env.groupBits() & cursor.groups.bits()) != 0) {
                    return new Delivery(env, cursor.position(ids, logical));
                }
            }
        } finally {
            lock.unlock();
        }
    }
}
