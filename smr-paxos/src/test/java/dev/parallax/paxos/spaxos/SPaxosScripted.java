package dev.parallax.paxos.spaxos;

import dev.parallax.core.testkit.ScriptedCluster;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.Value;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The testkit's {@link ScriptedCluster} bound to {@link SPaxosCore}: one core per member, recovered
 * from its log with {@link SPaxosRecordCodec}, incarnation floor = virtual milliseconds + 1, and
 * an observer that records what each replica reported (stable ids, ordering decisions, executed
 * ids) into {@link #events}. Hand-driven, no randomness.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class SPaxosScripted extends ScriptedCluster<SPaxosCore, SPaxosWire, SPaxosRecord, SPaxosValue> {
    static final long MS = 1_000_000L;

    /** What replica {@code replica} reported, in report order. */
    record Event(int replica, String kind, long instance, List<BatchId> ids) {
    }

    final List<Event> events;

    private SPaxosScripted(SPaxosConfig config, List<Event> events) {
        super(config.members(), new SPaxosRecordCodec(),
                (id, recovered, now) -> new SPaxosCore(config, id, recovered, false, 1 + now / MS, now, recorder(id, events)));
        this.events = events;
    }

    /** A cluster over {@code config}. */
    static SPaxosScripted of(SPaxosConfig config) {
        return new SPaxosScripted(config, new ArrayList<>());
    }

    /** n replicas, Multi-Paxos window {@code window}, timeouts of the core tests, {@code idsPerValue}. */
    static SPaxosConfig config(int n, int window, int idsPerValue) {
        PaxosConfig paxos = PaxosConfig.builder(n).window(window).heartbeat(Duration.ofMillis(50))
                .suspect(Duration.ofMillis(500)).retransmit(Duration.ofMillis(200)).catchUp(Duration.ofMillis(100)).build();
        return SPaxosConfig.builder(n).paxos(paxos).idsPerValue(idsPerValue).build();
    }

    private static SPaxosCore.Observer recorder(int replica, List<Event> events) {
        return new SPaxosCore.Observer() {
            @Override
            public void orderingDecided(long instance, Value ids) {
                List<BatchId> list;
                try {
                    list = ids.isNoop() ? List.of() : IdList.decode(ids);
                } catch (IllegalArgumentException e) {
                    list = List.of();
                }
                events.add(new Event(replica, "decided", instance, list));
            }

            @Override
            public void stable(BatchId id) {
                events.add(new Event(replica, "stable", -1, List.of(id)));
            }

            @Override
            public void executed(long instance, List<BatchId> ids) {
                events.add(new Event(replica, "executed", instance, ids));
            }
        };
    }

    /** A client batch whose body is {@code text}. */
    static SPaxosValue.ClientBatch batch(String text) {
        return new SPaxosValue.ClientBatch(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Ticks 1 ms and delivers everything, {@code ms} times. */
    void run(int ms) {
        for (int i = 0; i < ms; i++) {
            tick(MS);
            deliverAll(100_000);
        }
    }

    /** Replica 0 leads view 0 after its Phase 1. */
    void electZero() {
        tick(MS);
        deliverAll(100_000);
    }

    /** Events of {@code kind} at {@code replica}, in order. */
    List<Event> events(int replica, String kind) {
        return events.stream().filter(e -> e.replica() == replica && e.kind().equals(kind)).toList();
    }

    /** Every id {@code replica} executed, in execution order. */
    List<BatchId> executed(int replica) {
        return events(replica, "executed").stream().flatMap(e -> e.ids().stream()).toList();
    }

    /** Every id in {@code replica}'s ordering decisions, in instance order (duplicates kept). */
    List<BatchId> decidedIds(int replica) {
        return events(replica, "decided").stream().flatMap(e -> e.ids().stream()).toList();
    }

    /** The delivered executables' bodies at {@code replica}, as text. */
    List<String> deliveredBodies(int replica) {
        List<String> out = new ArrayList<>();
        for (SPaxosValue v : delivered(replica)) {
            for (ByteBuffer b : ((Executable) v).bodies()) {
                byte[] a = new byte[b.remaining()];
                b.duplicate().get(a);
                out.add(new String(a, StandardCharsets.UTF_8));
            }
        }
        return out;
    }
}
