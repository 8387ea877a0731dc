package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.ResultSink;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread-safe sink that keeps every result by command id, counts duplicate deliveries, and notes
 * which results came through {@link #onUnclassifiable} and which fatal errors were reported.
 */
final class ResultRecorder implements ResultSink {
    final Map<CommandId, CommandResult> results = new ConcurrentHashMap<>();
    final AtomicInteger duplicates = new AtomicInteger();
    final Set<CommandId> unclassifiable = ConcurrentHashMap.newKeySet();
    final List<Map.Entry<Command, Throwable>> fatal = new CopyOnWriteArrayList<>();

    @Override
    public void onResult(Command command, CommandResult result) {
        if (results.putIfAbsent(command.id(), result) != null) {
            duplicates.incrementAndGet();
        }
    }

    @Override
    public void onUnclassifiable(Command command, CommandResult result) {
        unclassifiable.add(command.id());
        onResult(command, result);
    }

    @Override
    public void onFatal(Command command, Throwable error) {
        fatal.add(new java.util.AbstractMap.SimpleImmutableEntry<>(command, error));
    }
}
