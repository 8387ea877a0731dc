package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;

import java.util.HashMap;
import java.util.Map;

/**
 * The simulation's durable log ({@link SsmrSimulation}), checking that a replay re-appends an
 * entry with the same finish index and values as the first time (finish indexes are
 * deterministic, also across snapshot restores). Not thread-safe.
 */
final class CheckingRemoteValuesLog implements RemoteValuesLog {
    private final InMemoryRemoteValuesLog log = new InMemoryRemoteValuesLog();
    private final Map<CommandId, Long> indexes = new HashMap<>();

    @Override
    public void append(long index, CommandId command, RemoteValues values) {
        Long before = indexes.put(command, index);
        java.util.Optional<RemoteValues> old = log.lookup(command);
        if (before != null && before != index || old.isPresent() && !old.get().equals(values)) {
            throw new AssertionError("re-append of " + command + " at index " + index + " with " + values
                    + ", first at " + before + " with " + old);
        }
        log.append(index, command, values);
    }

    @Override
    public java.util.Optional<RemoteValues> lookup(CommandId command) {
        return log.lookup(command);
    }

    @Override
    public void truncateThrough(long index) {
        log.truncateThrough(index);
    }
}
