package dev.parallax.paxos.sim;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.parallax.core.CommandId;

/**
 * The simulated replicas' snapshot files: they survive crashes (like files on disk), and a replica
 * that needs a peer's snapshot reads it from here (a successful transfer). Owned by the
 * simulation thread.
 */
final class SnapshotShelf {
    /** A replica's state after applying every instance below {@code instance}. */
    record Snap(long instance, Map<String, String> kv, Map<Long, long[]> lastSeq, Map<Long, String> lastReply,
                Set<CommandId> executed) {
        Snap copy() {
            Map<Long, long[]> seq = new HashMap<>();
            lastSeq.forEach((k, v) -> seq.put(k, v.clone()));
            return new Snap(instance, new java.util.TreeMap<>(kv), seq, new HashMap<>(lastReply), new HashSet<>(executed));
        }
    }

    private final Map<Integer, Snap> latest = new HashMap<>();
    private long installs;

    void put(int replica, Snap s) {
        latest.put(replica, s.copy());
    }

    Snap get(int replica) {
        Snap s = latest.get(replica);
        return s == null ? null : s.copy();
    }

    void installed() {
        installs++;
    }

    long installs() {
        return installs;
    }
}
