package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link MulticastBroadcast}'s delivery state, as stored in the replica's snapshot: one merge
 * position ({@link #STATE_VERSION}, then the position), or per worker (P-SMR,
 * {@link #PER_WORKER_VERSION}, the worker count, then per worker its next sequence and its
 * position); then, where streams have delivery states of their own (a ring's member history, when
 * its members change), {@code count:4} and per stream {@code id:4 length:4 bytes} (absent in
 * snapshots that have none). Encoding and decoding only.
 *
 * <p>Immutable value (its arrays are not copied: do not change them); thread-safe, nothing blocks.
 *
 * @param nexts     per worker its next sequence number, or {@code null} for one merge
 * @param positions the merge position, or one per worker
 * @param streams   by stream id, the stream's own delivery state where it has one
 */
record DeliveryState(long[] nexts, MulticastPosition[] positions, Map<Integer, byte[]> streams) {
    /** The version byte of the delivery state of one merge. */
    static final byte STATE_VERSION = 2;
    /** The version byte of a per-worker delivery state. */
    static final byte PER_WORKER_VERSION = 3;

    /** Whether this state holds per-worker positions. */
    boolean perWorker() {
        return nexts != null;
    }

    /** {@link #STATE_VERSION}, then {@code position}, then the streams' states. */
    static byte[] encode(MulticastPosition position, Map<Integer, byte[]> streams) {
        ByteBuffer b = ByteBuffer.allocate(1 + position.encodedSize() + trailerSize(streams));
        b.put(STATE_VERSION);
        position.writeTo(b);
        writeTrailer(b, streams);
        return b.array();
    }

    /** {@link #PER_WORKER_VERSION}, k, then per worker its next sequence and its position, then the streams' states. */
    static byte[] encode(long[] nexts, MulticastPosition[] positions, Map<Integer, byte[]> streams) {
        int size = 1 + 4 + trailerSize(streams);
        for (MulticastPosition p : positions) {
            size += 8 + p.encodedSize();
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(PER_WORKER_VERSION).putInt(positions.length);
        for (int i = 0; i < positions.length; i++) {
            b.putLong(nexts[i]);
            positions[i].writeTo(b);
        }
        writeTrailer(b, streams);
        return b.array();
    }

    private static int trailerSize(Map<Integer, byte[]> streams) {
        if (streams.isEmpty()) {
            return 0;
        }
        int size = 4;
        for (byte[] s : streams.values()) {
            size += 8 + s.length;
        }
        return size;
    }

    private static void writeTrailer(ByteBuffer b, Map<Integer, byte[]> streams) {
        if (streams.isEmpty()) {
            return;
        }
        b.putInt(streams.size());
        for (Map.Entry<Integer, byte[]> e : new TreeMap<>(streams).entrySet()) {
            b.putInt(e.getKey()).putInt(e.getValue().length).put(e.getValue());
        }
    }

    private static Map<Integer, byte[]> readTrailer(ByteBuffer b) {
        if (!b.hasRemaining()) {
            return Map.of();
        }
        if (b.remaining() < 4) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the multicast merge position");
        }
        int count = b.getInt();
        if (count < 0 || count > GroupSet.MAX_GROUP + 2) {
            throw new IllegalArgumentException("a multicast delivery state with the states of " + count + " streams");
        }
        Map<Integer, byte[]> streams = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            if (b.remaining() < 8) {
                throw new IllegalArgumentException("truncated state of stream number " + i + " of " + count);
            }
            int id = b.getInt();
            int length = b.getInt();
            if (length < 0 || length > b.remaining()) {
                throw new IllegalArgumentException("stream " + id + "'s state of " + length + " bytes, " + b.remaining()
                        + " left");
            }
            byte[] state = new byte[length];
            b.get(state);
            streams.put(id, state);
        }
        return streams;
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
            d = new DeliveryState(null, new MulticastPosition[] {MulticastPosition.readFrom(b)}, readTrailer(b));
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
            d = new DeliveryState(nexts, positions, readTrailer(b));
        } else {
            throw new IllegalArgumentException("unknown multicast delivery state version " + version + " (this build "
                    + "reads " + STATE_VERSION + " and " + PER_WORKER_VERSION + "; 1 was a development version without the "
                    + "duplicate record)");
        }
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the multicast delivery state");
        }
        return d;
    }
}
