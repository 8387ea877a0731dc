package dev.parallax.paxos.spaxos;

import dev.parallax.core.testkit.ScriptedCluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.LongUnaryOperator;

/**
 * The testkit's {@link ScriptedCluster} bound to {@link DisseminationCore}: one core per member,
 * recovered from its log with {@link DisseminationRecordCodec}; the incarnation floor is a function
 * of the virtual time (identity unless told). Hand-driven, no randomness.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class DissemCluster extends ScriptedCluster<DisseminationCore, DisseminationMessage, DisseminationRecord, Batch> {
    static final long MS = 1_000_000L;

    DissemCluster(SPaxosConfig config) {
        this(config, now -> now);
    }

    DissemCluster(SPaxosConfig config, LongUnaryOperator floor) {
        super(config.members(), new DisseminationRecordCodec(),
                (id, recovered, now) -> new DisseminationCore(config, id, recovered, floor.applyAsLong(now), now));
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
