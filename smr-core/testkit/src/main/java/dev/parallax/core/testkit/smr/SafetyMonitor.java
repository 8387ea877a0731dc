package dev.parallax.core.testkit.smr;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Checks consensus safety on every decision of every replica, as it happens: agreement (no two
 * replicas decide different values for one instance) and validity (only proposed values, or the
 * no-op, are decided), whatever the protocol's value type {@code V} (compared with
 * {@code equals}). Not thread-safe: owned by the simulation thread; never blocks.
 *
 * @param <V> the decided value type (Multi-Paxos' {@code Value}, a Ring Paxos value, ...)
 */
public final class SafetyMonitor<V> {
    private final Predicate<V> isNoop;
    private final Map<Long, V> decided = new HashMap<>();
    private final Set<V> proposed = new HashSet<>();
    private long decisions;
    private final java.util.List<String> alarms = new java.util.ArrayList<>();

    /** @param isNoop whether a decided value is the protocol's no-op (valid without a proposal) */
    public SafetyMonitor(Predicate<V> isNoop) {
        this.isNoop = isNoop;
    }

    /** Some proposer proposed {@code v}: deciding it is valid from now on. */
    public void proposed(V v) {
        proposed.add(v);
    }

    /**
     * Replica {@code replica} decided {@code v} for {@code instance}.
     *
     * @throws AssertionError if {@code v} breaks validity or agreement
     */
    public void decided(int replica, long instance, V v) {
        decisions++;
        if (!isNoop.test(v) && !proposed.contains(v)) {
            throw new AssertionError("validity: replica " + replica + " decided " + v + " at " + instance
                    + ", which nobody proposed");
        }
        V before = decided.putIfAbsent(instance, v);
        if (before != null && !before.equals(v)) {
            throw new AssertionError("agreement: replica " + replica + " decided " + v + " at instance " + instance
                    + " but another replica decided " + before);
        }
    }

    /**
     * Replica {@code replica}'s core reported {@code violation} (its driver stopped it): recorded,
     * then reported as a failure of the run.
     *
     * @throws AssertionError always, naming the replica and both decisions' origins
     */
    public void alarm(int replica, dev.parallax.core.protocol.SafetyViolation violation) {
        String line = "safety alarm: replica " + replica + " saw " + violation.describe();
        alarms.add(line);
        throw new AssertionError(line);
    }

    /** The safety alarms raised so far, one line each (empty in a correct run). */
    public java.util.List<String> alarms() {
        return java.util.List.copyOf(alarms);
    }

    /** Decisions checked so far (every replica's). */
    public long decisions() {
        return decisions;
    }

    /** Instances decided by some replica so far. */
    public int instances() {
        return decided.size();
    }
}
