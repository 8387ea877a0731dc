package dev.parallax.paxos.spaxos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The ordering leader's id proposer (seed 002 (S-Paxos) §IV-A, Alg. 1 l.16–18 and l.32–36, §IV-B b):
 * which stable ids this replica still has to propose while it leads the ordering layer.
 *
 * <ul>
 *   <li>{@code stable}: ids that became stable here and are not known decided. Fed by the
 *       dissemination layer ({@link #onStable}) at every replica, leader or not, so that a replica
 *       that becomes leader knows them; pruned by decisions ({@link #onDecided}).</li>
 *   <li>On a completed Phase 1 ({@link #lead}): {@code proposed := ids(reproposed) ∪ decided} —
 *       reset, not a union with earlier leaderships (an id whose Propose reached no acceptor in an
 *       earlier leadership must be proposed again; the paper's l.34 would keep it "proposed"
 *       forever) — and {@code pending := stable \ proposed} in (origin, incarnation, sn)
 *       order. "Decided" is implicit: decided ids are never in {@code stable}.</li>
 *   <li>While leading, each new stable id joins {@code pending} (l.16–18); {@link #take} hands
 *       out at most {@code idsPerValue} of them for one value, each exactly once per leadership.</li>
 *   <li>{@link #clear} when this replica no longer leads: pending and proposed are forgotten,
 *       {@code stable} is kept.</li>
 * </ul>
 * An id decided at an instance this leader has not learned yet may be proposed again: execution
 * skips the duplicate (footnote 5).
 *
 * <p>Not thread-safe: owned by {@link SPaxosCore} on the protocol thread; never blocks.
 */
final class LeaderProposals {
    private final TreeSet<BatchId> stable = new TreeSet<>();
    private final TreeSet<BatchId> pending = new TreeSet<>();
    private final Set<BatchId> proposed = new HashSet<>();
    private boolean leading;

    /** Whether a completed Phase 1 made this replica propose ids ({@link #lead}) and it has not stopped since. */
    boolean leading() {
        return leading;
    }

    /**
     * {@code id} became stable here (held by f+1 replicas). Ignored if {@code decided} says it is
     * known decided (executed, or waiting for execution).
     */
    void onStable(BatchId id, Predicate<BatchId> decided) {
        if (decided.test(id) || !stable.add(id)) {
            return;
        }
        if (leading && !proposed.contains(id)) {
            pending.add(id);
        }
    }

    /** {@code id} was decided (at some instance): never propose it again. */
    void onDecided(BatchId id) {
        stable.remove(id);
        pending.remove(id);
        proposed.remove(id);
    }

    /** Forgets every id that {@code decided} says is known decided (after a snapshot was installed). */
    void prune(Predicate<BatchId> decided) {
        stable.removeIf(decided);
        pending.removeIf(decided);
        proposed.removeIf(decided);
    }

    /**
     * Phase 1 of a new leadership completed and re-proposes {@code reproposed}: those count as
     * proposed, every other stable id is pending (Alg. 1 l.32–36 with the reset rule).
     */
    void lead(Collection<BatchId> reproposed) {
        leading = true;
        proposed.clear();
        pending.clear();
        proposed.addAll(reproposed);
        for (BatchId id : stable) {
            if (!proposed.contains(id)) {
                pending.add(id);
            }
        }
    }

    /** This replica no longer leads: forget what it would propose and what it proposed. */
    void clear() {
        leading = false;
        pending.clear();
        proposed.clear();
    }

    /** Ids waiting to be proposed in this leadership. */
    int pending() {
        return pending.size();
    }

    /** Stable ids not known decided. */
    int stable() {
        return stable.size();
    }

    /**
     * The first {@code max} pending ids that {@code orderable} accepts, in order, without taking
     * them; the others stay pending and do not block later ones.
     */
    List<BatchId> peek(int max, Predicate<BatchId> orderable) {
        List<BatchId> ids = new ArrayList<>(Math.min(max, pending.size()));
        Iterator<BatchId> it = pending.iterator();
        while (it.hasNext() && ids.size() < max) {
            BatchId id = it.next();
            if (orderable.test(id)) {
                ids.add(id);
            }
        }
        return ids;
    }

    /** {@code ids} (pending) were proposed: they leave {@code pending} for good in this leadership. */
    void take(List<BatchId> ids) {
        for (BatchId id : ids) {
            if (pending.remove(id)) {
                proposed.add(id);
            }
        }
    }
}
