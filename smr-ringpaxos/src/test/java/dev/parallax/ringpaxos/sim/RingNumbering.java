package dev.parallax.ringpaxos.sim;

import dev.parallax.ringpaxos.RingValue;
import dev.parallax.ringpaxos.ValueId;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One ring's decided values at a {@link MultiRingProcess} of a run with snapshots, numbered as every
 * learner numbers them (the logical numbering's rule 1: a client value takes the next index, a copy
 * of a message the ring decided before takes it too as a gap, a SKIP(upTo) moves the next index to
 * at least upTo, a NOOP or a membership change takes nothing) and kept from the last compaction
 * point on: the counterpart of the per-stream history of {@code DecidedStreams}, from which a
 * learner re-made at a snapshot's position is fed again, and which knows the numbering at every
 * instance it keeps (the next index and the message ids decided before it: what a snapshot of the
 * merge carries for the ring, so that a process resuming the ring there numbers as everyone else).
 *
 * <p>Owned by the simulation thread.
 */
final class RingNumbering {

    /** What a decided value is to the merge. */
    enum Kind {
        /** A client value decided here the first time: it takes {@code index}. */
        MESSAGE,
        /** A client value the ring decided before: it takes {@code index} as a gap. */
        COPY,
        /** SKIP({@code index}): the next index becomes at least {@code index}. */
        SKIP,
        /** A NOOP or a membership change: no index. */
        NOOP
    }

    /** The value decided at {@code instance}: its kind, index (a skip's target) and, for a message, its id and groups. */
    record Item(long instance, Kind kind, long index, long id, long groups) {
        /** The numbering after this value, given {@code before}. */
        long after(long before) {
            return switch (kind) {
                case MESSAGE, COPY -> before + 1;
                case SKIP -> Math.max(before, index);
                case NOOP -> before;
            };
        }
    }

    private final List<Item> items = new ArrayList<>();
    /** The first instance kept. */
    private long base;
    /** The numbering at {@link #base}. */
    private long baseIndex;
    /** The instance the next decided value has. */
    private long next;
    /** The index the next client value takes. */
    private long nextIndex;
    /** The ids of the messages decided below {@link #next}. */
    private Set<Long> seen = new HashSet<>();

    /**
     * The value decided at {@code instance} (the next one), numbered and kept.
     *
     * @throws AssertionError if it is not the next instance
     */
    Item number(long instance, RingValue.Chosen chosen) {
        if (instance != next) {
            throw new AssertionError("numbering: instance " + instance + " decided, expected " + next);
        }
        ValueId vid = chosen.vid();
        Item item;
        if (vid.isSkip()) {
            item = new Item(instance, Kind.SKIP, vid.upTo(), -1, 0);
        } else if (vid.isNoop() || vid.isConfig()) {
            item = new Item(instance, Kind.NOOP, -1, -1, 0);
        } else {
            ByteBuffer b = chosen.bytes();
            long id = b.getLong(b.position());
            long groups = b.getLong(b.position() + 8);
            item = new Item(instance, seen.add(id) ? Kind.MESSAGE : Kind.COPY, nextIndex, id, groups);
        }
        nextIndex = item.after(nextIndex);
        items.add(item);
        next++;
        return item;
    }

    /** The instance the next decided value has. */
    long next() {
        return next;
    }

    /** The first instance kept. */
    long base() {
        return base;
    }

    /** The index the next client value takes. */
    long nextIndex() {
        return nextIndex;
    }

    /**
     * Where the ring resumes for a merge whose cursor on it stands at {@code index}: the first kept
     * instance whose value numbers beyond {@code index}, so that feeding the values from there to a
     * merge whose next index is {@code index} numbers them as here; {@link #next} if none (also for an
     * index beyond what was decided here: a merge moved there by a snapshot whose ring resumes at the
     * next instance, a skip over that index).
     *
     * @throws IllegalArgumentException if {@code index} lies below what is kept
     */
    long resumeOf(long index) {
        if (index < baseIndex) {
            throw new IllegalArgumentException("index " + index + " below the kept numbering [" + baseIndex + ", "
                    + nextIndex + "] (instances " + base + ".." + next + ")");
        }
        long at = baseIndex;
        for (Item item : items) {
            long after = item.after(at);
            if (after > index) {
                return item.instance();
            }
            at = after;
        }
        return next;
    }

    /** The index the value at {@code instance} (kept, or {@link #next}) takes or starts from. */
    long indexAt(long instance) {
        checkKept(instance);
        long at = baseIndex;
        for (int k = 0; k < instance - base; k++) {
            at = items.get(k).after(at);
        }
        return at;
    }

    /** The ids of the messages decided below {@code instance} (kept, or {@link #next}). */
    Set<Long> seenAt(long instance) {
        checkKept(instance);
        Set<Long> out = new HashSet<>(seen);
        for (Item item : from(instance)) {
            if (item.kind() == Kind.MESSAGE) {
                out.remove(item.id());
            }
        }
        return out;
    }

    /** The values kept from {@code instance} on, in instance order. */
    List<Item> from(long instance) {
        checkKept(instance);
        return items.subList((int) (instance - base), items.size());
    }

    /** Forgets the values below {@code instance} (a compaction there); nothing if it lies at or below {@link #base}. */
    void trimBelow(long instance) {
        if (instance <= base) {
            return;
        }
        checkKept(instance);
        baseIndex = indexAt(instance);
        items.subList(0, (int) (instance - base)).clear();
        base = instance;
    }

    /**
     * The ring resumes at {@code instance}, beyond what was decided here (a snapshot installed): the
     * numbering there is {@code index} with the messages {@code seenBefore} decided before.
     */
    void resumeAt(long instance, long index, Set<Long> seenBefore) {
        if (instance < next) {
            throw new IllegalArgumentException("resume at " + instance + " below the next instance " + next);
        }
        items.clear();
        base = instance;
        next = instance;
        baseIndex = index;
        nextIndex = index;
        seen = new HashSet<>(seenBefore);
    }

    private void checkKept(long instance) {
        if (instance < base || instance > next) {
            throw new IllegalArgumentException("instance " + instance + " not kept (" + base + ".." + next + ")");
        }
    }

    @Override
    public String toString() {
        return "kept " + base + ".." + next + " indices " + baseIndex + ".." + nextIndex;
    }
}
