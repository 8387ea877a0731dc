package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.StringJoiner;

/**
 * Where a subscriber stands in the streams an {@link AtomicMulticast} merges: for each stream, the
 * next sequence number (consensus instance) not yet consumed. A subscription restarted from a
 * position continues exactly after the message that position was reported with: no gap, no
 * duplicate.
 *
 * <p><b>Streams.</b> A stream is one ordered sequence an implementation decides independently:
 * stream {@code g} (0..{@link GroupSet#MAX_GROUP}) is group {@code g}'s own. An
 * implementation may order multi-group messages on streams of its own with higher ids (Multi-Ring
 * Paxos' global ring, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5; the reference
 * implementation uses {@link #GLOBAL_STREAM}). A stream the position does not name is at 0.
 *
 * <p><b>Sequences.</b> Each stream numbers its instances from 0; an instance that delivered nothing
 * (a no-op, a skip, a message for other groups) still counts. {@code next(s) = k} means every
 * instance of stream {@code s} below {@code k} was consumed.
 *
 * <p><b>Logical sequences and resume streams.</b> An implementation may number a stream's values
 * with a sequence of its own instead of the consensus instances (Multi-Ring Paxos' logical
 * numbering, where one decided skip covers many sequence numbers; {@code dev.parallax.core.multicast.Numbering#LOGICAL}).
 * {@code next(s)} is then that sequence, and the position also names, under the stream id
 * {@link #resumeStream(int) resumeStream(s)} ({@value #RESUME_BASE} + s), the consensus instance
 * delivery of stream {@code s} resumes from: every instance below it was consumed, and numbering
 * restarted there at {@code next(s)} yields the same sequence numbers from {@code next(s)} on (the
 * instance after the last value whose numbers were all consumed). A resume stream is not a stream of
 * its own: no ordering happens under its id.
 *
 * <p><b>Record.</b> A position may also carry an opaque {@link #record()}: what the implementation
 * needs, beyond the indices, to resume there delivering every message once (the stream
 * multicast's record of the messages decided before the position, against which it recognises a
 * late copy decided after it; {@link Subscription#resumePosition}). The positions given to a
 * listener carry none; the one a subscriber stores in a snapshot should.
 *
 * <p>Immutable and thread-safe. {@link #writeTo} / {@link #readFrom} give a compact encoding for
 * snapshots (count, then (stream, next) pairs, then the record's length and bytes, big-endian).
 */
public final class MulticastPosition {
    /** The stream the reference implementation and Multi-Ring order multi-group messages on. */
    public static final int GLOBAL_STREAM = GroupSet.MAX_GROUP + 1;

    /** The largest stream id a position may name. */
    public static final int MAX_STREAM = 1023;

    /** The id offset of the resume streams: see {@link #resumeStream(int)}. */
    public static final int RESUME_BASE = 512;

    private static final byte[] NO_RECORD = new byte[0];

    /** Every stream at 0: before anything was delivered. */
    public static final MulticastPosition START = new MulticastPosition(new int[0], new long[0], NO_RECORD);

    /** The largest {@link #record()} a position carries. */
    public static final int MAX_RECORD_BYTES = 1 << 20;

    private final int[] streams;
    private final long[] next;
    private final byte[] record;

    private MulticastPosition(int[] streams, long[] next, byte[] record) {
        this.streams = streams;
        this.next = next;
        this.record = record;
    }

    /**
     * The id under which a position names the consensus instance stream {@code stream}'s delivery
     * resumes from, when the stream is numbered logically (see the class comment).
     *
     * @throws IllegalArgumentException if {@code stream} is not in 0..{@link #GLOBAL_STREAM}
     */
    public static int resumeStream(int stream) {
        if (stream < 0 || stream > GLOBAL_STREAM) {
            throw new IllegalArgumentException("stream must be 0.." + GLOBAL_STREAM + ", got " + stream);
        }
        return RESUME_BASE + stream;
    }

    /** The next unconsumed sequence of {@code stream}; 0 if this position does not name it. */
    public long next(int stream) {
        int i = Arrays.binarySearch(streams, stream);
        return i >= 0 ? next[i] : 0;
    }

    /**
     * This position with {@code stream} at {@code nextSequence}.
     *
     * @throws IllegalArgumentException if the stream is out of 0..{@link #MAX_STREAM} or the
     *                                  sequence is negative
     */
    public MulticastPosition with(int stream, long nextSequence) {
        if (stream < 0 || stream > MAX_STREAM) {
            throw new IllegalArgumentException("stream must be 0.." + MAX_STREAM + ", got " + stream);
        }
        if (nextSequence < 0) {
            throw new IllegalArgumentException("a sequence is never negative, got " + nextSequence);
        }
        int i = Arrays.binarySearch(streams, stream);
        if (i >= 0) {
            if (next[i] == nextSequence) {
                return this;
            }
            long[] n = next.clone();
            n[i] = nextSequence;
            return new MulticastPosition(streams, n, record);
        }
        int at = -i - 1;
        int[] s = new int[streams.length + 1];
        long[] n = new long[next.length + 1];
        System.arraycopy(streams, 0, s, 0, at);
        System.arraycopy(next, 0, n, 0, at);
        s[at] = stream;
        n[at] = nextSequence;
        System.arraycopy(streams, at, s, at + 1, streams.length - at);
        System.arraycopy(next, at, n, at + 1, next.length - at);
        return new MulticastPosition(s, n, record);
    }

    /**
     * This position carrying {@code record} (copied) instead of its own: see the class comment.
     *
     * @throws IllegalArgumentException if it is longer than {@link #MAX_RECORD_BYTES}
     */
    public MulticastPosition withRecord(byte[] record) {
        if (record.length > MAX_RECORD_BYTES) {
            throw new IllegalArgumentException("a position record of " + record.length + " bytes, above " + MAX_RECORD_BYTES);
        }
        return new MulticastPosition(streams, next, record.length == 0 ? NO_RECORD : record.clone());
    }

    /** The implementation's resume record (a copy), empty if the position carries none. */
    public byte[] record() {
        return record.length == 0 ? NO_RECORD : record.clone();
    }

    /** How many streams this position names. */
    public int streamCount() {
        return streams.length;
    }

    /** The {@code i}-th named stream, in increasing id order (0 &le; i &lt; {@link #streamCount()}). */
    public int stream(int i) {
        return streams[i];
    }

    /** Bytes {@link #writeTo} writes. */
    public int encodedSize() {
        return 4 + streams.length * 12 + 4 + record.length;
    }

    /** Writes this position at {@code out}'s position, advancing it. */
    public void writeTo(ByteBuffer out) {
        out.putInt(streams.length);
        for (int i = 0; i < streams.length; i++) {
            out.putInt(streams[i]);
            out.putLong(next[i]);
        }
        out.putInt(record.length);
        out.put(record);
    }

    /**
     * Reads a position {@link #writeTo} wrote, advancing {@code in}.
     *
     * @throws IllegalArgumentException if the bytes are not a position (truncated, streams out of
     *                                  range or not increasing, negative sequences)
     */
    public static MulticastPosition readFrom(ByteBuffer in) {
        try {
            int count = in.getInt();
            if (count < 0 || count > MAX_STREAM + 1 || count * 12L > in.remaining()) {
                throw new IllegalArgumentException("bad stream count " + count);
            }
            int[] s = new int[count];
            long[] n = new long[count];
            for (int i = 0; i < count; i++) {
                s[i] = in.getInt();
                n[i] = in.getLong();
                if (s[i] < 0 || s[i] > MAX_STREAM || (i > 0 && s[i] <= s[i - 1]) || n[i] < 0) {
                    throw new IllegalArgumentException("bad stream entry " + s[i] + "=" + n[i]);
                }
            }
            int length = in.getInt();
            if (length < 0 || length > MAX_RECORD_BYTES || length > in.remaining()) {
                throw new IllegalArgumentException("bad record length " + length);
            }
            byte[] record = length == 0 ? NO_RECORD : new byte[length];
            in.get(record);
            return new MulticastPosition(s, n, record);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated multicast position", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MulticastPosition p)) {
            return false;
        }
        // Streams at 0 are the same as absent ones.
        return covers(this, p) && covers(p, this) && Arrays.equals(record, p.record);
    }

    private static boolean covers(MulticastPosition a, MulticastPosition b) {
        for (int i = 0; i < a.streams.length; i++) {
            if (a.next[i] != b.next(a.streams[i])) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 0;
        for (int i = 0; i < streams.length; i++) {
            if (next[i] != 0) {
                h += streams[i] * 31 + Long.hashCode(next[i]);
            }
        }
        return h;
    }

    @Override
    public String toString() {
        StringJoiner j = new StringJoiner(",", "[", "]");
        for (int i = 0; i < streams.length; i++) {
            j.add(streams[i] + ":" + next[i]);
        }
        return record.length == 0 ? j.toString() : j + "+record(" + record.length + " B)";
    }
}
