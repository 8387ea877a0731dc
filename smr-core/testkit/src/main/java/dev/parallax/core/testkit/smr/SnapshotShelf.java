package dev.parallax.core.testkit.smr;

import dev.parallax.core.CommandId;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The simulated replicas' snapshot files: they survive crashes (like files on disk), and a replica
 * that needs a peer's snapshot reads it from here (a successful transfer). Owned by the
 * simulation thread.
 */
public final class SnapshotShelf {
    /**
     * A replica's state after applying every instance below {@code instance}: the KV data, the
     * state machine's application counts, and the client sessions as
     * {@link dev.parallax.core.session.ClientSessions#writeTo} wrote them, and the ordering
     * layer's delivery state as of {@code instance} (what {@code AtomicBroadcast.deliveryState()}
     * puts into a production snapshot; empty for Multi-Paxos, the executed-id windows for S-Paxos).
     */
    public record Snap(long instance, Map<String, String> kv, Map<CommandId, Integer> applications, byte[] sessions,
                byte[] deliveryState) {
        Snap copy() {
            return new Snap(instance, new TreeMap<>(kv), new HashMap<>(applications), sessions.clone(),
                    deliveryState.clone());
        }
    }

    private final Map<Integer, Snap> latest = new HashMap<>();
    private long installs;

    /** Stores (a copy of) {@code replica}'s latest snapshot, replacing the one before. */
    public void put(int replica, Snap s) {
        latest.put(replica, s.copy());
    }

    /** A copy of {@code replica}'s latest snapshot, or {@code null} if it has none. */
    public Snap get(int replica) {
        Snap s = latest.get(replica);
        return s == null ? null : s.copy();
    }

    /** Counts one snapshot installed by some replica. */
    public void installed() {
        installs++;
    }

    /** Snapshots installed so far, over every replica. */
    public long installs() {
        return installs;
    }
}
