package dev.parallax.paxos.sim;

import dev.parallax.core.CommandId;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The simulated replicas' snapshot files: they survive crashes (like files on disk), and a replica
 * that needs a peer's snapshot reads it from here (a successful transfer). Owned by the
 * simulation thread.
 */
final class SnapshotShelf {
    /**
     * A replica's state after applying every instance below {@code instance}: the KV data, the
     * state machine's application counts, and the client sessions as
     * {@link dev.parallax.core.replica.ClientSessions#writeTo} wrote them, and the ordering
     * layer's delivery state as of {@code instance} (what {@code AtomicBroadcast.deliveryState()}
     * puts into a production snapshot; empty for Multi-Paxos, the executed-id windows for S-Paxos).
     */
    record Snap(long instance, Map<String, String> kv, Map<CommandId, Integer> applications, byte[] sessions,
                byte[] deliveryState) {
        Snap copy() {
            return new Snap(instance, new TreeMap<>(kv), new HashMap<>(applications), sessions.clone(),
                    deliveryState.clone());
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
