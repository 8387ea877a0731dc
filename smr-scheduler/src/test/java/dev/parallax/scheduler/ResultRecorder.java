package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.ResultSink;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A thread-safe sink that keeps every result by command id and counts duplicate deliveries. */
final class ResultRecorder implements ResultSink {
    final Map<CommandId, CommandResult> results = new ConcurrentHashMap<>();
    final AtomicInteger duplicates = new AtomicInteger();

    @Override
    public void onResult(Command command, CommandResult result) {
        if (results.putIfAbsent(command.id(), result) != null) {
            duplicates.incrementAndGet();
        }
    }
}
