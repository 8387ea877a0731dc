package dev.parallax.paxos.sim;

import dev.parallax.paxos.Value;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Checks Paxos safety on every decision of every replica, as it happens: agreement (no two
 * replicas decide different values for one instance) and validity (only proposed values, or the
 * no-op, are decided). Owned by the simulation thread.
 */
final class SafetyMonitor {
    private final Map<Long, Value> decided = new HashMap<>();
    private final Set<Value> proposed = new HashSet<>();
    private long decisions;

    void proposed(Value v) {
        proposed.add(v);
    }

    void decided(int replica, long instance, Value v) {
        decisions++;
        if (!v.isNoop() && !proposed.contains(v)) {
            throw new AssertionError("validity: replica " + replica + " decided " + v + " at " + instance
                    + ", which nobody proposed");
        }
        Value before = decided.putIfAbsent(instance, v);
        if (before != null && !before.equals(v)) {
            throw new AssertionError("agreement: replica " + replica + " decided " + v + " at instance " + instance
                    + " but another replica decided " + before);
        }
    }

    long decisions() {
        return decisions;
    }

    int instances() {
        return decided.size();
    }
}
