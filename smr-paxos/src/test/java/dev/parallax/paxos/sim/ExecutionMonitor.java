package dev.parallax.paxos.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks S-Paxos execution on every executed instance of every replica, as it happens (seed 002
 * (S-Paxos) §IV-A, Alg. 1 l.19–22 and footnote 5): an instance executes the same ids at every
 * replica (the ids that are new there — so the replicas' duplicate filters must agree, which is why
 * the executed-id windows travel in snapshots); no id executes at two instances (exactly once in
 * the one sequence); and each replica incarnation executes instances in increasing order. Together:
 * every replica's sequence of executed ids is a prefix (from its snapshot on) of one sequence, and
 * no id is in it twice.
 *
 * <p>Generic in the id type ({@code BatchId} for S-Paxos) so it depends on nothing but
 * {@code equals}. Owned by the simulation thread.
 *
 * @param <I> the batch id type (immutable, with value equality)
 */
final class ExecutionMonitor<I> {
    private final Map<Long, List<I>> byInstance = new HashMap<>();
    private final Map<I, Long> instanceOf = new HashMap<>();
    private final Map<Integer, Long> lastInstance = new HashMap<>();
    private final Set<Integer> seen = new HashSet<>();
    private long executions;

    /**
     * Replica {@code replica} starts executing at {@code instance} (a restart, or a snapshot it
     * installed or restored): it may go on at any instance at or above.
     */
    void startsAt(int replica, long instance) {
        lastInstance.put(replica, instance - 1);
    }

    /**
     * Replica {@code replica} executed {@code ids} (the new ones, in order) at {@code instance}.
     *
     * @throws AssertionError if it breaks one of the rules above
     */
    void executed(int replica, long instance, List<I> ids) {
        executions++;
        seen.add(replica);
        Long last = lastInstance.get(replica);
        if (last != null && instance <= last) {
            throw new AssertionError("execution order: replica " + replica + " executed instance " + instance
                    + " after instance " + last);
        }
        lastInstance.put(replica, instance);
        List<I> copy = List.copyOf(ids);
        List<I> before = byInstance.putIfAbsent(instance, copy);
        if (before != null && !before.equals(copy)) {
            throw new AssertionError("execution: replica " + replica + " executed " + copy + " at instance " + instance
                    + " but another replica executed " + before + " there");
        }
        for (I id : copy) {
            Long at = instanceOf.putIfAbsent(id, instance);
            if (at != null && at != instance) {
                throw new AssertionError("exactly once: replica " + replica + " executed " + id + " at instance "
                        + instance + ", already executed at instance " + at);
            }
        }
        if (new HashSet<>(copy).size() != copy.size()) {
            throw new AssertionError("exactly once: replica " + replica + " executed an id twice in instance "
                    + instance + ": " + copy);
        }
    }

    /** Instance executions seen, over every replica. */
    long executions() {
        return executions;
    }

    /** Distinct ids executed. */
    int ids() {
        return instanceOf.size();
    }

    /** The ids executed at {@code instance} (empty if none seen there). */
    List<I> at(long instance) {
        List<I> ids = byInstance.get(instance);
        return ids == null ? List.of() : new ArrayList<>(ids);
    }
}
