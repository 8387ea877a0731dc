package dev.parallax.scheduler.psmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.ResultSink;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread-safe sink for {@link GroupMachine} commands: every result by command index, the count of
 * duplicate results, the thread that delivered each result, and the fatal errors reported.
 */
final class Results implements ResultSink {
    final Map<Integer, CommandResult> byIndex = new ConcurrentHashMap<>();
    final Map<Integer, Thread> threads = new ConcurrentHashMap<>();
    final AtomicInteger duplicates = new AtomicInteger();
    final List<Map.Entry<Command, Throwable>> fatal = new CopyOnWriteArrayList<>();

    @Override
    public void onResult(Command command, CommandResult result) {
        int index = GroupMachine.index(command);
        if (byIndex.putIfAbsent(index, result) != null) {
            duplicates.incrementAndGet();
        }
        threads.put(index, Thread.currentThread());
    }

    @Override
    public void onFatal(Command command, Throwable error) {
        fatal.add(new java.util.AbstractMap.SimpleImmutableEntry<>(command, error));
    }
}
