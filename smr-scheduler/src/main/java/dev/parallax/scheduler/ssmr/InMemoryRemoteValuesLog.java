package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A {@link RemoteValuesLog} in memory (not durable): for tests, the simulation, and replicas that
 * recover by state transfer. Unbounded except by {@link #truncateThrough}, which the replica calls
 * after each durable snapshot.
 *
 * <p>Thread-safe (synchronized): one appending thread plus a truncating one.
 */
public final class InMemoryRemoteValuesLog implements RemoteValuesLog {
    private final Map<CommandId, Long> indexOf = new HashMap<>();
    private final TreeMap<Long, Entry> byIndex = new TreeMap<>();

    private record Entry(CommandId command, RemoteValues values) {
    }

    @Override
    public synchronized void append(long index, CommandId command, RemoteValues values) {
        Long old = indexOf.put(command, index);
        if (old != null) {
            byIndex.remove(old);
        }
        byIndex.put(index, new Entry(command, values));
    }

    @Override
    public synchronized Optional<RemoteValues> lookup(CommandId command) {
        Long index = indexOf.get(command);
        return index == null ? Optional.empty() : Optional.of(byIndex.get(index).values());
    }

    @Override
    public synchronized void truncateThrough(long index) {
        Map<Long, Entry> head = byIndex.headMap(index, true);
        for (Entry e : head.values()) {
            indexOf.remove(e.command());
        }
        head.clear();
    }

    /** How many entries are held. */
    public synchronized int size() {
        return byIndex.size();
    }
}
