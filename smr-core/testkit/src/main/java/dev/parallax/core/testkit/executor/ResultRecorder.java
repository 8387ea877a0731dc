package dev.parallax.core.testkit.executor;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.ResultSink;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ResultSink} that keeps every result by command id, counts duplicate deliveries, and
 * notes which results came through {@link #onUnclassifiable} and which fatal errors were reported.
 *
 * <p>Thread-safe: the sink methods may be called from any number of executor threads at once and
 * never block; the accessors return live, unmodifiable views.
 */
public final class ResultRecorder implements ResultSink {
    private final Map<CommandId, CommandResult> results = new ConcurrentHashMap<>();
    private final AtomicInteger duplicates = new AtomicInteger();
    private final Set<CommandId> unclassifiable = ConcurrentHashMap.newKeySet();
    private final List<Map.Entry<Command, Throwable>> fatal = new CopyOnWriteArrayList<>();

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
        fatal.add(new AbstractMap.SimpleImmutableEntry<>(command, error));
    }

    /** The first result of every command that got one, by id. */
    public Map<CommandId, CommandResult> results() {
        return Collections.unmodifiableMap(results);
    }

    /** How many results came for a command that already had one. */
    public int duplicates() {
        return duplicates.get();
    }

    /** The commands whose result came through {@link #onUnclassifiable}. */
    public Set<CommandId> unclassifiable() {
        return Collections.unmodifiableSet(unclassifiable);
    }

    /** Every {@link #onFatal} call, in order: the command (or {@code null}) and the error. */
    public List<Map.Entry<Command, Throwable>> fatal() {
        return Collections.unmodifiableList(fatal);
    }
}
