package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The execution side of S-Paxos (seed 002 (S-Paxos) §IV-A, Alg. 1 l.19–22): decided
 * ordering instances, in instance order, become {@link Executable}s once every new id of the
 * head instance has its body here.
 *
 * <ul>
 *   <li>An id already in {@link ExecutedIds} (or named twice in one instance) is a duplicate and
 *       skipped (footnote 5: a new leader may propose an id decided at an instance it had not
 *       learned).</li>
 *   <li>A new id without a body: the body is asked for ({@link Bodies#want}, once per id while it
 *       is missing; the dissemination layer retries by itself) and execution stops there —
 *       instance order is kept (l.21–22).</li>
 *   <li>An instance with no new id emits nothing (as a Multi-Paxos no-op), except a configuration
 *       command: it is emitted as a {@link MembershipDecided} when its turn comes, so that the
 *       delivery side applies it in order.</li>
 * </ul>
 * {@link #add} takes instances as the ordering layer hands them out (in order, each once);
 * {@link #skipTo} drops those below an installed snapshot.
 *
 * <p>Not thread-safe: owned by {@link SPaxosCore} on the protocol thread; never blocks.
 */
final class Execution {

    /** Where bodies come from: the dissemination layer. */
    interface Bodies {
        /** The body of {@code id} if held here (a read-only view), else {@code null}. */
        ByteBuffer body(BatchId id);

        /** {@code id} is decided and its body is missing here: fetch it. */
        void want(BatchId id);

        /** {@code id} executed at {@code instance} (its body may be dropped once a snapshot covers it). */
        void executed(BatchId id, long instance);
    }

    private record Decided(long instance, List<BatchId> ids, ByteBuffer change) {
    }

    private final ArrayDeque<Decided> queue = new ArrayDeque<>();
    /** Ids of queued instances (how many times each is named): decided, not yet executed. */
    private final Map<BatchId, Integer> queued = new HashMap<>();
    private long next;
    private BatchId wanted;
    private long duplicates;
    private long waits;

    /** The next instance to execute: every instance below it was executed, skipped or covered by a snapshot. */
    long next() {
        return next;
    }

    /** Decided instances waiting for execution (for bodies, or behind one that waits). */
    int waiting() {
        return queue.size();
    }

    /** Ids executed before and skipped, so far. */
    long duplicates() {
        return duplicates;
    }

    /** Times execution stopped at an id whose body was missing, so far. */
    long waits() {
        return waits;
    }

    /** Whether {@code id} is named by a decided instance still waiting here. */
    boolean queued(BatchId id) {
        return queued.containsKey(id);
    }

    /**
     * Instance {@code instance} was decided with {@code ids} (empty for a no-op or a malformed
     * value). Instances come in order; one below {@link #next} (covered by a snapshot) is ignored.
     */
    void add(long instance, List<BatchId> ids) {
        add(instance, ids, null);
    }

    /** As {@link #add(long, List)}; {@code change} (not null) makes it a configuration command, without ids. */
    void add(long instance, List<BatchId> ids, ByteBuffer change) {
        if (instance < next || (!queue.isEmpty() && instance <= queue.peekLast().instance())) {
            return;
        }
        queue.add(new Decided(instance, ids, change));
        for (BatchId id : ids) {
            queued.merge(id, 1, Integer::sum);
        }
    }

    /**
     * Executes head instances while their bodies are here: each becomes an {@link Executable}
     * (given to {@code emit}) and its ids are recorded in {@code executed}.
     */
    void pump(ExecutedIds executed, Bodies bodies, Consumer<Executable> emit) {
        pump(executed, bodies, emit, c -> { });
    }

    /** As {@link #pump(ExecutedIds, Bodies, Consumer)}; configuration commands go to {@code changes} in their turn. */
    void pump(ExecutedIds executed, Bodies bodies, Consumer<Executable> emit, Consumer<MembershipDecided> changes) {
        while (!queue.isEmpty()) {
            Decided head = queue.peek();
            List<BatchId> fresh = new ArrayList<>(head.ids().size());
            Set<BatchId> named = head.ids().size() > 1 ? new HashSet<>() : null;
            int dups = 0;
            List<ByteBuffer> found = new ArrayList<>(head.ids().size());
            for (BatchId id : head.ids()) {
                if (executed.executed(id) || (named != null && !named.add(id))) {
                    dups++;
                    continue;
                }
                ByteBuffer body = bodies.body(id);
                if (body == null) {
                    if (!id.equals(wanted)) {
                        wanted = id;
                        waits++;
                        bodies.want(id);
                    }
                    return;
                }
                fresh.add(id);
                found.add(body);
            }
            queue.poll();
            unqueue(head);
            next = head.instance() + 1;
            duplicates += dups;
            if (head.change() != null) {
                changes.accept(new MembershipDecided(head.instance(), head.change()));
            }
            if (fresh.isEmpty()) {
                continue;
            }
            for (BatchId id : fresh) {
                executed.firstExecution(id);
                bodies.executed(id, head.instance());
            }
            emit.accept(new Executable(head.instance(), fresh, found));
        }
    }

    /** A snapshot covering every instance below {@code instance} was installed: forget what it covers. */
    void skipTo(long instance) {
        if (instance <= next) {
            return;
        }
        next = instance;
        while (!queue.isEmpty() && queue.peek().instance() < instance) {
            unqueue(queue.poll());
        }
        wanted = null;
    }

    private void unqueue(Decided d) {
        for (BatchId id : d.ids()) {
            queued.computeIfPresent(id, (k, n) -> n == 1 ? null : n - 1);
        }
    }
}
