package dev.parallax.examples.volery.zk;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The ZooKeeper front end's meters, all registered up front (clients cannot grow the tag sets):
 * <ul>
 *   <li>{@code parallax.volery.zk.requests{op}}: requests received by ZooKeeper operation name,
 *       types ZooKeeper does not define under {@code unknown};</li>
 *   <li>{@code parallax.volery.zk.unsupported{feature}}: requests answered UNIMPLEMENTED or INVALIDACL
 *       ({@link Unsupported});</li>
 *   <li>{@code parallax.volery.zk.refused{reason}}: connections closed for bad input or past the bound on
 *       connections ({@link Refusal});</li>
 *   <li>{@code parallax.volery.zk.failures{kind}}: backend failures ({@code unavailable},
 *       {@code outcome-unknown}: answered CONNECTIONLOSS; {@code internal}: SYSTEMERROR);</li>
 *   <li>{@code parallax.volery.zk.sessions{event}}: {@code created}, {@code resumed}, {@code rejected}
 *       (reconnect with an unknown or expired session or a wrong password), {@code closed},
 *       {@code expired};</li>
 *   <li>{@code parallax.volery.zk.watches{event}}: {@code set} (reads that set a watch),
 *       {@code delivered} (events written to a session), {@code undeliverable} (events for a session
 *       not connected here: dropped, its client re-arms with setWatches), {@code poll-failed}
 *       (watch polls the backend failed; retried at the next interval), {@code refused} (reads and addWatch
 *       answered THROTTLEDOP: the partition's bound on watches was reached), {@code overflow} (a
 *       partition's queue of this front end's events overflowed: its sessions' connections were
 *       closed, their clients re-register);</li>
 *   <li>{@code parallax.volery.zk.reads{path}}: reads (exists, getData, getChildren, getChildren2,
 *       getACL) by how the front end sent them: {@code query} (outside the order, {@link VoleryBackend#query})
 *       or {@code ordered} (reads that set a watch, reads behind an ordered request of their
 *       connection still in flight, and every read of a backend without queries);</li>
 *   <li>{@code parallax.volery.zk.connections.accepted}, and the gauges
 *       {@code parallax.volery.zk.connections.open} and {@code parallax.volery.zk.sessions.live}.</li>
 * </ul>
 * Thread-safe.
 */
final class ZkMetrics implements AutoCloseable {
    /** Why a connection was closed for bad input. */
    enum Refusal {
        /** A frame longer than the configured bound. */
        OVERSIZED,
        /** A negative frame length. */
        BAD_LENGTH,
        /** A first frame that is not a ConnectRequest. */
        BAD_CONNECT,
        /** A request frame whose header or body jute cannot decode. */
        UNDECODABLE,
        /** A request type ZooKeeper does not define (answered UNIMPLEMENTED first). */
        UNKNOWN_OPCODE,
        /** No ConnectRequest within the maximum session time-out. */
        CONNECT_TIMEOUT,
        /** A new session past the configured bound. */
        TOO_MANY_SESSIONS,
        /** An authentication packet with a scheme other than digest (answered AUTHFAILED first). */
        AUTH,
        /** A new connection past the configured bound ({@link ZkServerConfig#maxConnections()}), closed at once. */
        TOO_MANY_CONNECTIONS;

        String tag() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** What an unsupported request asked for. */
    enum Unsupported {
        /** An ephemeral, container or TTL create mode. */
        CREATE_MODE,
        /** An ACL other than world:anyone with all permissions. */
        ACL,
        /** Another operation ZooKeeper has and Volery does not (setACL, multi, reconfig, ...). */
        OPERATION;

        String tag() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** The kind of a backend failure. */
    enum Failure { UNAVAILABLE, OUTCOME_UNKNOWN, INTERNAL }

    /**
     * A session event; ADOPTED: a session another server of the cluster created, taken over here;
     * TICK_FAILED: a session tick or a reconnection's check could not reach the order.
     */
    enum SessionEvent { CREATED, RESUMED, ADOPTED, REJECTED, CLOSED, EXPIRED, TICK_FAILED }

    /** What happened to a watch or a watch event. */
    enum WatchEvent { SET, DELIVERED, UNDELIVERABLE, POLL_FAILED, REFUSED, OVERFLOW }

    private static final String PREFIX = "parallax.volery.zk.";

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final Map<String, Counter> requests = new HashMap<>();
    private final Counter unknownRequests;
    private final Map<Unsupported, Counter> unsupported = new EnumMap<>(Unsupported.class);
    private final Map<Refusal, Counter> refused = new EnumMap<>(Refusal.class);
    private final Map<Failure, Counter> failures = new EnumMap<>(Failure.class);
    private final Map<SessionEvent, Counter> sessions = new EnumMap<>(SessionEvent.class);
    private final Map<WatchEvent, Counter> watches = new EnumMap<>(WatchEvent.class);
    private final Counter connections;
    private final Counter queryReads;
    private final Counter orderedReads;

    ZkMetrics(MeterRegistry registry, Supplier<Number> openConnections, Supplier<Number> liveSessions) {
        this.registry = registry;
        for (ZkOp op : ZkOp.values()) {
            requests.put(op.tag(), counter("requests", "Requests received, by ZooKeeper operation", Tags.of("op", op.tag())));
        }
        unknownRequests = counter("requests", "Requests received, by ZooKeeper operation", Tags.of("op", ZkOp.UNKNOWN_TAG));
        for (Unsupported u : Unsupported.values()) {
            unsupported.put(u, counter("unsupported", "Requests for features Volery does not have", Tags.of("feature", u.tag())));
        }
        for (Refusal r : Refusal.values()) {
            refused.put(r, counter("refused", "Connections closed for bad input or past the bound on connections", Tags.of("reason", r.tag())));
        }
        for (Failure f : Failure.values()) {
            failures.put(f, counter("failures", "Backend failures, by kind",
                    Tags.of("kind", f.name().toLowerCase(Locale.ROOT).replace('_', '-'))));
        }
        for (SessionEvent e : SessionEvent.values()) {
            sessions.put(e, counter("sessions", "Session events", Tags.of("event", e.name().toLowerCase(Locale.ROOT))));
        }
        for (WatchEvent e : WatchEvent.values()) {
            watches.put(e, counter("watches", "Watches set and watch events, by what happened",
                    Tags.of("event", e.name().toLowerCase(Locale.ROOT).replace('_', '-'))));
        }
        connections = counter("connections.accepted", "Connections accepted", Tags.empty());
        queryReads = counter("reads", "Reads, by how they were sent: as a query or ordered", Tags.of("path", "query"));
        orderedReads = counter("reads", "Reads, by how they were sent: as a query or ordered", Tags.of("path", "ordered"));
        meters.add(Gauge.builder(PREFIX + "connections.open", openConnections)
                .description("Open client connections").register(registry));
        meters.add(Gauge.builder(PREFIX + "sessions.live", liveSessions)
                .description("Sessions connected or not yet expired").register(registry));
    }

    private Counter counter(String name, String description, Tags tags) {
        Counter c = Counter.builder(PREFIX + name).description(description).tags(tags).register(registry);
        meters.add(c);
        return c;
    }

    void request(ZkOp op) {
        (op == null ? unknownRequests : requests.get(op.tag())).increment();
    }

    void unsupported(Unsupported what) {
        unsupported.get(what).increment();
    }

    void refused(Refusal reason) {
        refused.get(reason).increment();
    }

    void failure(Failure kind) {
        failures.get(kind).increment();
    }

    void session(SessionEvent event) {
        sessions.get(event).increment();
    }

    void watch(WatchEvent event) {
        watches.get(event).increment();
    }

    /** A read went as a query ({@code asQuery}) or ordered. */
    void read(boolean asQuery) {
        (asQuery ? queryReads : orderedReads).increment();
    }

    void connectionAccepted() {
        connections.increment();
    }

    /** Removes the meters from the registry (the gauges hold the server). */
    @Override
    public void close() {
        meters.forEach(registry::remove);
    }
}
