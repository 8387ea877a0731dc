package dev.parallax.core.net;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Switchable link failures for one replica: the peers it can currently neither send to nor hear
 * from. Used through {@link FaultInjectingTransport} to partition replicas in tests and in the
 * {@code parallax chaos} runs. Thread-safe.
 */
public final class LinkFaults {
    private final Set<Integer> blocked = ConcurrentHashMap.newKeySet();

    /** Cuts the link to {@code peer}, both directions. */
    public void block(int peer) {
        blocked.add(peer);
    }

    public void unblock(int peer) {
        blocked.remove(peer);
    }

    /** Restores every link. */
    public void heal() {
        blocked.clear();
    }

    public boolean isBlocked(int peer) {
        return !blocked.isEmpty() && blocked.contains(peer);
    }
}
