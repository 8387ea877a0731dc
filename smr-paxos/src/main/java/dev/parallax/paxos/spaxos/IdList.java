package dev.parallax.paxos.spaxos;

import dev.parallax.paxos.Value;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The Paxos {@link Value} S-Paxos orders: a non-empty list of batch ids (seed 002 (S-Paxos) §IV-A,
 * Alg. 1 l.16–18: the leader proposes ids, not bodies). Format {@code count:4 (origin:4
 * incarnation:8 sn:8){count}}, {@link BatchId#BYTES} bytes per id. Never empty: {@link Value#NOOP}
 * stays the no-op.
 *
 * <p>Stateless and thread-safe.
 */
public final class IdList {
    /** The most ids one list may claim before the byte count is checked (a corrupt count is refused). */
    public static final int MAX_IDS = 1 << 20;

    private IdList() {
    }

    /** Bytes of a list of {@code count} ids. */
    public static int encodedSize(int count) {
        return 4 + count * BatchId.BYTES;
    }

    /**
     * The value naming {@code ids}, in their order.
     *
     * @throws IllegalArgumentException if {@code ids} is empty or longer than {@link #MAX_IDS}
     */
    public static Value encode(List<BatchId> ids) {
        if (ids.isEmpty() || ids.size() > MAX_IDS) {
            throw new IllegalArgumentException("an id list holds 1.." + MAX_IDS + " ids, got " + ids.size());
        }
        ByteBuffer b = ByteBuffer.allocate(encodedSize(ids.size()));
        b.putInt(ids.size());
        for (BatchId id : ids) {
            id.writeTo(b);
        }
        return Value.of(b.flip());
    }

    /**
     * The ids {@code value} names.
     *
     * @throws IllegalArgumentException if {@code value} is the no-op, or its bytes are not an id
     *         list (count not positive or not matching the size, negative fields, sn 0)
     */
    public static List<BatchId> decode(Value value) {
        ByteBuffer b = value.bytes();
        try {
            int count = b.getInt();
            if (count <= 0 || count > MAX_IDS || b.remaining() != count * BatchId.BYTES) {
                throw new IllegalArgumentException("id list claims " + count + " ids in " + value.size() + " bytes");
            }
            List<BatchId> ids = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                BatchId id = BatchId.readFrom(b);
                if (id.origin() < 0 || id.incarnation() < 0 || id.sn() < 1) {
                    throw new IllegalArgumentException("id list holds an impossible id (negative field, or sn 0): " + id);
                }
                ids.add(id);
            }
            return ids;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("id list of " + value.size() + " bytes is truncated", e);
        }
    }
}
