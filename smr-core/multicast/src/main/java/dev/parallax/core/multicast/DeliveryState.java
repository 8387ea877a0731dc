package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;

import java.nio.ByteBuffer;

/**
 * A {@link MulticastBroadcast}'s delivery state, as stored in the replica's snapshot: one merge
 * position ({@link #STATE_VERSION}, then the position), or per worker (P-SMR,
 * {@link #PER_WORKER_VERSION}, the worker count, then per worker its next sequence and its
 * position). Encoding and decoding only.
 *
 * <p>Immutable value (its arrays are not copied: do not change them); thread-safe, nothing blocks.
 *
 * @param nexts     per worker its next sequence number, or {@code null} for one merge
 * @param positions the merge position, or one per worker
 */
record DeliveryState(long[] nexts, MulticastPosition[] positions) {
    /** The version byte of the delivery state of one merge. */
    static final byte STATE_VERSION = 2;
    /** The version byte of a per-worker delivery state. */
    static final byte PER_WORKER_VERSION = 3;

    /** Whether this state holds per-worker positions. */
    boolean perWorker() {
        return nexts != null;
    }

    /** {@link #STATE_VERSION}, then {@code position}. */
    static byte[] encode(MulticastPosition position) {
        ByteBuffer b = ByteBuffer.allocate(1 + position.encodedSize());
        b.put(STATE_VERSION);
        position.writeTo(b);
        return b.array();
    }

    /** {@link #PER_WORKER_VERSION}, k, then per worker its next sequence and its position. */
    static byte[] encode(long[] nexts, MulticastPosition[] positions) {
        int size = 1 + 4;
        for (MulticastPosition p : positions) {
            size += 8 + p.encodedSize();
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(PER_WORKER_VERSION).putInt(positions.length);
        for (int i = 0; i < positions.length; i++) {
            b.putLong(nexts[i]);
            positions[i].writeTo(b);
        }
        return b.array();
    }

    /**
     * Decodes a delivery state of one merge ({@link #STATE_VERSION}).
     *
     * @throws IllegalArgumentException if it is empty (a snapshot of another ordering protocol, or
     *                                  one written before delivery states), per worker, or malformed
     */
    static MulticastPosition position(byte[] state) {
        DeliveryState d = decode(state);
        if (d.perWorker()) {
            throw new IllegalArgumentException("the snapshot holds per-worker positions (taken with p-smr execution): "
                    + "this replica delivers one merge");
        }
        return d.positions()[0];
    }

    /**
     * Decodes a delivery state, of one merge or per worker.
     *
     * @throws IllegalArgumentException if it is empty (a snapshot of another ordering protocol, or
     *                                  one written before delivery states) or malformed
     */
    static DeliveryState decode(byte[] state) {
        if (state.length == 0) {
            throw new IllegalArgumentException("the snapshot carries no multicast merge position (written by another "
                    + "ordering protocol?): the multicast cannot resume its streams from it");
        }
        ByteBuffer b = ByteBuffer.wrap(state);
        byte version = b.get();
        DeliveryState d;
        if (version == STATE_VERSION) {
            d = new DeliveryState(null, new MulticastPosition[] {MulticastPosition.readFrom(b)});
        } else if (version == PER_WORKER_VERSION) {
            int k = b.getInt();
            if (k < 1 || k > GroupSet.MAX_GROUP + 1) {
                throw new IllegalArgumentException("a per-worker multicast delivery state of " + k + " workers");
            }
            long[] nexts = new long[k];
            MulticastPosition[] positions = new MulticastPosition[k];
            for (int i = 0; i < k; i++) {
                nexts[i] = b.getLong();
                if (nexts[i] < 0) {
                    throw new IllegalArgumentException("worker " + i + " resumes at a negative sequence " + nexts[i]);
                }
                positions[i] = MulticastPosition.readFrom(b);
            }
            d = new DeliveryState(nexts, positions);
        } else {
            throw new IllegalArgumentException("unknown multicast delivery state version " + version + " (this build "
                    + "reads " + STATE_VERSION + " and " + PER_WORKER_VERSION + "; 1 was a development version without the "
                    + "duplicate record)");
        }
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the multicast merge position");
        }
        return d;
    }
}
