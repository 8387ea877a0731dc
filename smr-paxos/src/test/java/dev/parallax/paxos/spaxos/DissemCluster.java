package dev.parallax.paxos.spaxos;

import dev.parallax.core.testkit.ScriptedCluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongUnaryOperator;

/**
 * The testkit's {@link ScriptedCluster} bound to {@link DisseminationCore}: one core per member,
 * recovered from its log with {@link DisseminationRecordCodec}; the incarnation floor is a function
 * of the virtual time (identity unless told). {@link #powerLoss} restarts a member amnesiac with
 * nothing recovered. Hand-driven, no randomness.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class DissemCluster extends ScriptedCluster<DisseminationCore, DisseminationMessage, DisseminationRecord, Batch> {
    static final long MS = 1_000_000L;

    DissemCluster(SPaxosConfig config) {
        this(config, now -> now);
    }

    private final Set<Integer> amnesiac;

    DissemCluster(SPaxosConfig config, LongUnaryOperator floor) {
        this(config, floor, new HashSet<>());
    }

    private DissemCluster(SPaxosConfig config, LongUnaryOperator floor, Set<Integer> amnesiac) {
        super(config.members(), new DisseminationRecordCodec(),
                (id, recovered, now) -> amnesiac.remove(id)
                        ? new DisseminationCore(config, id, List.of(), true, floor.applyAsLong(now), now)
                        : new DisseminationCore(config, id, recovered, false, floor.applyAsLong(now), now));
        this.amnesiac = amnesiac;
    }

    /**
     * Crashes member {@code id} with a power loss under sync policy {@code none}: its next start
     * recovers no record (the log keeps them for a later ordinary restart) and is amnesiac.
     */
    void powerLoss(int id) {
        amnesiac.add(id);
        note("power loss at " + id + ": every record lost, restart amnesiac");
        crashAndRestart(id);
    }

    /** A local client batch with {@code text} as its body. */
    static Batch batch(String text) {
        return Batch.unnumbered(body(text));
    }

    static ByteBuffer body(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    static String text(ByteBuffer body) {
        ByteBuffer b = body.duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
