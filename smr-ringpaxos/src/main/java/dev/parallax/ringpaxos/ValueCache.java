package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;

/**
 * Bodies of values this member may need for an id-only decision (rule C5): proposals it forwarded,
 * 2As it received, values it saw go by. Keyed by {@link ValueId} (one body per id), so
 * resolving an id-only decision is exact. Bounded by {@code mring.learner.buffer} entries and
 * {@code mring.learner.buffer.bytes}: beyond, a body is dropped and counted
 * ({@code event=values.beyond.buffer}); the learner then fetches it by catch-up (C6).
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class ValueCache {
    private final int maxEntries;
    private final long maxBytes;
    private final LinkedHashMap<ValueId, ByteBuffer> bodies = new LinkedHashMap<>();
    private long bytes;
    private long dropped;

    ValueCache(int maxEntries, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    /** Keeps {@code vid}'s body; false (counted) if the bound refuses it. A known id is kept as it is. */
    boolean remember(ValueId vid, ByteBuffer value) {
        if (vid.isBodiless() || bodies.containsKey(vid)) {
            return true;
        }
        int size = value.remaining();
        if (bodies.size() >= maxEntries || bytes + size > maxBytes) {
            dropped++;
            return false;
        }
        bodies.put(vid, value.asReadOnlyBuffer());
        bytes += size;
        return true;
    }

    ByteBuffer get(ValueId vid) {
        return bodies.get(vid);
    }

    /** Forgets {@code vid} (decided and delivered: the learner holds it now). */
    void forget(ValueId vid) {
        ByteBuffer b = bodies.remove(vid);
        if (b != null) {
            bytes -= b.remaining();
        }
    }

    int size() {
        return bodies.size();
    }

    long bytes() {
        return bytes;
    }

    long dropped() {
        return dropped;
    }
}
