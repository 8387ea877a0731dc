package dev.parallax.ringpaxos;

import dev.parallax.core.testkit.ScriptedCluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The testkit's {@link ScriptedCluster} bound to {@link RingPaxosCore}: one core per member of
 * {@code config}, recovered from its log with {@link RingRecordCodec}, incarnation floor = the
 * virtual time. Hand-driven, no randomness; see the testkit class for script operations and the
 * trace format. Helpers turn strings into batches and delivered values back into strings.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class RingCluster extends ScriptedCluster<RingPaxosCore, RingWire, RingRecord, RingValue> {
    static final long MS = 1_000_000L;

    RingCluster(RingConfig config) {
        this(config, RingPaxosCore.Observer.NONE);
    }

    RingCluster(RingConfig config, RingPaxosCore.Observer observer) {
        this(config, id -> observer);
    }

    /**
     * {@code processes} cores (ids {@code 0..processes-1}), of which the first {@code config.members()}
     * are the initial members; the others are replicas that may join by a membership change.
     */
    RingCluster(RingConfig config, int processes, java.util.function.IntFunction<RingPaxosCore.Observer> observers) {
        super(processes, new RingRecordCodec(),
                (id, recovered, now) -> new RingPaxosCore(config, id, recovered, false, now, now, observers.apply(id)));
    }

    /** Each member gets its own observer ({@code observers.apply(id)}, asked again on a restart). */
    RingCluster(RingConfig config, java.util.function.IntFunction<RingPaxosCore.Observer> observers) {
        super(config.members(), new RingRecordCodec(),
                (id, recovered, now) -> new RingPaxosCore(config, id, recovered, false, now, now, observers.apply(id)));
    }

    static RingConfig uRing(int members) {
        return RingConfig.builder(members, Ring.Kind.U_RING).build();
    }

    static RingValue.ClientBatch batch(String s) {
        return new RingValue.ClientBatch(ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer());
    }

    static String text(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] bytes = new byte[d.remaining()];
        d.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Member {@code id}'s delivered values as strings, no-ops, skips and configuration commands left out. */
    List<String> texts(int id) {
        List<String> out = new ArrayList<>();
        for (RingValue v : delivered(id)) {
            RingValue.Chosen c = (RingValue.Chosen) v;
            if (c.vid().isClientValue()) {
                out.add(text(c.bytes()));
            }
        }
        return out;
    }

    /** Ticks by {@code ms} and delivers everything (bounded), {@code times} times. */
    void settle(long ms, int times) {
        for (int i = 0; i < times; i++) {
            tick(ms * MS);
            deliverAll(10_000);
        }
    }

    /** Starts the cluster: member 0 leads round 0 on its first tick; everything delivered. */
    void start() {
        tick(MS);
        deliverAll(10_000);
    }
}
