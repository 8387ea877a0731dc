package dev.parallax.paxos.sim;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Checks S-Paxos bodies on every persist and every execution, as they happen: every copy of a
 * batch any replica stores under an id is byte-for-byte the body its origin persisted for that id
 * (an id is never reused for other bytes: seed 002 (S-Paxos) §IV-C's ⟨origin : sn⟩ plus the origin's incarnation),
 * and every body a replica executes is that body (Alg. 1 l.19–22: execution uses the disseminated
 * bytes, never something else under the same id).
 *
 * <p>Generic in the id type ({@code BatchId} for S-Paxos). Owned by the simulation thread.
 *
 * @param <I> the batch id type (immutable, with value equality)
 */
final class BodyMonitor<I> {
    private final Map<I, byte[]> bodies = new HashMap<>();
    private long executions;

    /**
     * Replica {@code replica} persisted {@code body} under {@code id} (its own new batch, a copy it
     * received, or a re-persist at compaction). The buffer is not moved.
     *
     * @throws AssertionError if another body was persisted under {@code id} before
     */
    void persisted(int replica, I id, ByteBuffer body) {
        byte[] bytes = bytes(body);
        byte[] before = bodies.putIfAbsent(id, bytes);
        if (before != null && !Arrays.equals(before, bytes)) {
            throw new AssertionError("body: replica " + replica + " persisted " + bytes.length + " bytes under " + id
                    + " but " + before.length + " other bytes were persisted under it before");
        }
    }

    /**
     * Replica {@code replica} executed {@code body} as batch {@code id}. The buffer is not moved.
     *
     * @throws AssertionError if no body was persisted under {@code id}, or another one was
     */
    void executed(int replica, I id, ByteBuffer body) {
        executions++;
        byte[] persisted = bodies.get(id);
        if (persisted == null) {
            throw new AssertionError("body: replica " + replica + " executed " + id + ", which nobody persisted");
        }
        if (!Arrays.equals(persisted, bytes(body))) {
            throw new AssertionError("body: replica " + replica + " executed " + id + " with bytes other than its origin's");
        }
    }

    /** Bodies executed and checked. */
    long executions() {
        return executions;
    }

    /** Distinct ids persisted. */
    int ids() {
        return bodies.size();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
