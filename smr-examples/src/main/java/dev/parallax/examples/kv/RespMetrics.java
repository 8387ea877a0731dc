package dev.parallax.examples.kv;

import dev.parallax.core.wire.ConnectionLimit;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The front end's meters: commands by name ({@code parallax.kv.resp.commands}, unknown names
 * counted under {@code unknown} so clients cannot grow the tag set), protocol errors, failed
 * invocations by kind, accepted, open and refused connections ({@link ConnectionLimit}). Counters are registered up front, so the
 * hot path does a map lookup and an increment. Thread-safe.
 */
final class RespMetrics implements AutoCloseable {
    static final String UNKNOWN = "unknown";

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final Map<String, Counter> commands = new HashMap<>();
    private final Counter protocolErrors;
    private final Counter connections;
    private final Map<RespErrors.Kind, Counter> failures = new EnumMap<>(RespErrors.Kind.class);

    RespMetrics(MeterRegistry registry, Collection<String> commandNames, ConnectionLimit connectionLimit) {
        this.registry = registry;
        for (String name : commandNames) {
            commands.put(name, counter("parallax.kv.resp.commands", "Commands received, by name", Tags.of("command", name)));
        }
        commands.put(UNKNOWN, counter("parallax.kv.resp.commands", "Commands received, by name", Tags.of("command", UNKNOWN)));
        protocolErrors = counter("parallax.kv.resp.protocol.errors", "Connections closed for a protocol error", Tags.empty());
        connections = counter("parallax.kv.resp.connections.accepted", "Connections accepted", Tags.empty());
        for (RespErrors.Kind kind : RespErrors.Kind.values()) {
            failures.put(kind, counter("parallax.kv.resp.command.failures", "Failed invocations, by kind",
                    Tags.of("kind", kind.name().toLowerCase(java.util.Locale.ROOT))));
        }
        // parallax.kv.resp.connections.open (admitted, not yet closed) and parallax.kv.resp.connections.refused
        meters.addAll(connectionLimit.register(registry, "parallax.kv.resp.connections", Tags.empty()));
    }

    private Counter counter(String name, String description, Tags tags) {
        Counter c = Counter.builder(name).description(description).tags(tags).register(registry);
        meters.add(c);
        return c;
    }

    void command(String name) {
        commands.get(name).increment();
    }

    void protocolError() {
        protocolErrors.increment();
    }

    void connectionAccepted() {
        connections.increment();
    }

    void failure(RespErrors.Kind kind) {
        failures.get(kind).increment();
    }

    /** Removes the meters from the registry (the open-connections gauge holds the connection limit). */
    @Override
    public void close() {
        meters.forEach(registry::remove);
    }
}
