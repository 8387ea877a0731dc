package dev.parallax.core.speculation;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.TreeMap;
import java.util.function.ObjLongConsumer;

/**
 * Speculative execution over tentative positions (seed 003 (Marandi thesis) §4.2.1) as a
 * deterministic step function: the ordering protocol tells where a value will most likely be
 * decided ({@link #tentative}, M-Ring's Phase 2A), that an order guessed so far may change
 * ({@link #revoke}, a new round), and what was decided ({@link #decided}); the ledger has its
 * {@link Host} execute, undo, confirm or plainly deliver. Rules:
 * <ol>
 *   <li><b>S1 execute in position order.</b> A tentative value runs ({@link Host#execute}) only at
 *       the next position after every decided and every speculated one: tentatives beyond a gap
 *       (a lost 2A) wait until the gap is filled, by a tentative or a decision.</li>
 *   <li><b>S2 confirm only on decide.</b> A speculated position becomes final only when its
 *       decision arrives with the same bytes ({@link Host#confirm}: the host answers clients there,
 *       never before).</li>
 *   <li><b>S3 mismatch.</b> A decision whose bytes differ from what ran there, or a tentative that
 *       replaces a speculated value, undoes every speculated position from that one on, last first
 *       ({@link Host#undo}); the decision is then delivered plainly ({@link Host#deliver}).</li>
 *   <li><b>S4 revoke.</b> {@link #revoke}(p), sent when the coordinator (the round) changes,
 *       undoes every speculated position at or past {@code max(p, frontier)} and drops the
 *       tentatives held there: a new coordinator may decide other values for undecided
 *       positions.</li>
 *   <li><b>S5 re-execute in decided order.</b> After a rollback the positions are executed again
 *       only from tentatives or decisions that come later, in position order (S1).</li>
 *   <li><b>S6 confirmed state only.</b> {@link #suspend} undoes every speculated position but keeps
 *       their tentatives; {@link #resume} re-executes them: around a snapshot capture or a query,
 *       which must see decided state only.</li>
 * </ol>
 * A position whose value delivers nothing (a no-op) is passed as {@code null}; it occupies its
 * position like any other. Safety does not rest on revocations arriving: S2 and S3 compare bytes.
 *
 * <p>Events ({@link #reportEvents}): {@code speculation.executed}, {@code speculation.confirmed},
 * {@code speculation.rolledback} (positions), {@code speculation.mismatches},
 * {@code speculation.revocations}, {@code speculation.dropped} (tentatives beyond
 * {@link #MAX_PENDING}).
 *
 * <p>Not thread-safe: one thread (the replica's delivery thread, or the simulator) drives it; it
 * never blocks by itself.
 *
 * @param <E> what the host keeps of one speculated position (its commands and their undos)
 */
public final class SpeculationLedger<E> {

    /** Tentatives held beyond the speculated positions at most; more are dropped (highest first). */
    public static final int MAX_PENDING = 4096;

    /** Who executes: the replica's service (sessions and state machine), or a simulated one. */
    public interface Host<E> {
        /** Executes the value at {@code position} speculatively (its bytes owned by the ledger); what it ran. */
        E execute(long position, ByteBuffer value);

        /** Undoes what {@link #execute} ran at {@code position}; called last position first. */
        void undo(long position, E executed);

        /**
         * {@code position} was decided with the bytes it ran with: make it final (admit, answer the
         * clients). If the host finds that what it guessed does not hold (a session verdict changed),
         * it first calls {@code rollbackLater} (which undoes every later speculated position, keeping
         * their tentatives), then undoes and re-runs what it must of this position itself.
         */
        void confirm(long position, E executed, Runnable rollbackLater);

        /** Delivers the decided {@code value} at {@code position} plainly (nothing ran there). */
        void deliver(long position, ByteBuffer value);
    }

    private record Entry<E>(long position, ByteBuffer value, E executed) {
    }

    /** The marker of a position that delivers nothing (a no-op), in {@link #pending}. */
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private final Host<E> host;
    /** Every position below it is decided and was handed to the host. */
    private long frontier;
    /** Positions frontier, frontier+1, ... executed speculatively, in order. */
    private final ArrayDeque<Entry<E>> speculated = new ArrayDeque<>();
    /** Tentatives not executed: beyond a gap, or kept across a {@link #suspend}. */
    private final TreeMap<Long, ByteBuffer> pending = new TreeMap<>();
    private boolean suspended;
    private long executed;
    private long confirmed;
    private long rolledBack;
    private long mismatches;
    private long revocations;
    private long dropped;

    /** @param frontier the first position not yet decided (everything below is delivered) */
    public SpeculationLedger(Host<E> host, long frontier) {
        this.host = java.util.Objects.requireNonNull(host, "host");
        this.frontier = frontier;
    }

    /**
     * The protocol fixed {@code value} (null: a no-op) at {@code position}, not decided yet (S1).
     * The bytes are copied; the buffer is not kept.
     */
    public void tentative(long position, ByteBuffer value) {
        if (position < frontier) {
            return;
        }
        ByteBuffer copy = copyOf(value);
        Entry<E> there = at(position);
        if (there != null) {
            if (same(there.value, copy)) {
                return; // a duplicate 2A
            }
            mismatches++;
            rollbackFrom(position, false);   // S3: the old round's guesses from here on are stale
        }
        pending.put(position, copy);
        while (pending.size() > MAX_PENDING) {
            pending.pollLastEntry();
            dropped++;
        }
        advance();
    }

    /**
     * {@code position} is decided as {@code value} (null: a no-op, nothing to deliver): confirm
     * (S2), or undo and deliver plainly (S3). Decisions come in position order; one below the
     * frontier is ignored, one above it (positions skipped by an installed snapshot) first drops
     * every speculation.
     */
    public void decided(long position, ByteBuffer value) {
        if (position < frontier) {
            return;
        }
        if (position > frontier) {
            rollbackFrom(frontier, false);
            frontier = position;
        }
        Entry<E> head = speculated.peekFirst();
        ByteBuffer decided = value == null ? NOTHING : value;
        frontier = position + 1;
        pending.headMap(frontier).clear();
        if (head != null && same(head.value, decided)) {
            speculated.pollFirst();
            confirmed++;
            if (head.executed != null) {
                host.confirm(position, head.executed, () -> rollbackFrom(position + 1, true));
            }
        } else {
            if (head != null) {
                mismatches++;
                rollbackFrom(position, false);
            }
            if (value != null) {
                host.deliver(position, value);
            }
        }
        advance();
    }

    /** S4: the round changed; positions at or past {@code from} may be decided otherwise. */
    public void revoke(long from) {
        long p = Math.max(from, frontier);
        revocations++;
        rollbackFrom(p, false);
        pending.tailMap(p, true).clear();
    }

    /** S6: undo every speculated position, keeping its tentative; nothing runs until {@link #resume}. */
    public void suspend() {
        suspended = true;
        rollbackFrom(frontier, true);
    }

    /** S6: re-execute what {@link #suspend} undid, and go on speculating. */
    public void resume() {
        suspended = false;
        advance();
    }

    /** An installed snapshot covers every position below {@code frontier}: undo and forget everything. */
    public void reset(long newFrontier) {
        rollbackFrom(frontier, false);
        pending.clear();
        frontier = Math.max(frontier, newFrontier);
    }

    /** Positions executed speculatively and not yet confirmed or undone. */
    public int speculating() {
        return speculated.size();
    }

    /** Every position below it was decided and handed to the host. */
    public long frontier() {
        return frontier;
    }

    /** Tentatives waiting (beyond a gap, or suspended). */
    public int pending() {
        return pending.size();
    }

    /** Positions executed speculatively so far (re-executions included). */
    public long executed() {
        return executed;
    }

    /** Speculated positions a decision confirmed. */
    public long confirmed() {
        return confirmed;
    }

    /** Speculated positions undone (S3, S4, S6 and a host's rollback). */
    public long rolledBack() {
        return rolledBack;
    }

    /** The ledger's event counts as (name, count) pairs; names fixed, counts never decrease. */
    public void reportEvents(ObjLongConsumer<String> sink) {
        sink.accept("speculation.executed", executed);
        sink.accept("speculation.confirmed", confirmed);
        sink.accept("speculation.rolledback", rolledBack);
        sink.accept("speculation.mismatches", mismatches);
        sink.accept("speculation.revocations", revocations);
        sink.accept("speculation.dropped", dropped);
    }

    /** S1: executes the pending tentatives that are next in position order. */
    private void advance() {
        if (suspended) {
            return;
        }
        long next = frontier + speculated.size();
        ByteBuffer v;
        while ((v = pending.remove(next)) != null) {
            E ran = v == NOTHING ? null : host.execute(next, v.duplicate());
            speculated.addLast(new Entry<>(next, v, ran));
            executed++;
            next++;
        }
    }

    /** Undoes speculated positions at or past {@code from}, last first; keeps their tentatives if asked. */
    private void rollbackFrom(long from, boolean keep) {
        Entry<E> last;
        while ((last = speculated.peekLast()) != null && last.position >= from) {
            speculated.pollLast();
            if (last.executed != null) {
                host.undo(last.position, last.executed);
            }
            rolledBack++;
            if (keep) {
                pending.putIfAbsent(last.position, last.value);
            }
        }
    }

    private Entry<E> at(long position) {
        long offset = position - frontier;
        if (offset >= speculated.size()) {
            return null;
        }
        Iterator<Entry<E>> it = speculated.iterator();
        for (long i = 0; i < offset; i++) {
            it.next();
        }
        return it.next();
    }

    private static ByteBuffer copyOf(ByteBuffer value) {
        if (value == null) {
            return NOTHING;
        }
        ByteBuffer copy = ByteBuffer.allocate(value.remaining());
        copy.put(value.duplicate()).flip();
        return copy.asReadOnlyBuffer();
    }

    private static boolean same(ByteBuffer a, ByteBuffer b) {
        if (a == NOTHING || b == NOTHING) {
            return a == b;
        }
        return a.equals(b);
    }
}
