package dev.parallax.paxos.spaxos;

import dev.parallax.core.seq.SequenceWindow;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which batch ids this replica executed, so that an id decided twice executes once (seed 002
 * (S-Paxos) §IV-B b, footnote 5: a new leader may re-propose an id already decided). One
 * {@link SequenceWindow} per (origin, incarnation); the first id executed of a stream opens its
 * window ending there.
 *
 * <p><b>Exact.</b> An origin numbers an sn only below its lowest undecided own sn plus B
 * ({@link SPaxosConfig#maxUndecidedPerOrigin()}, at most {@link SequenceWindow#WINDOW}), so when
 * sn {@code s} is decided every sn at or below {@code s - B} was decided earlier in the stream of
 * decisions, hence executed earlier here: the window never slides past an id that is still to
 * execute (the argument of {@link SequenceWindow}).
 *
 * <p><b>Replicated state.</b> Whether an id is a duplicate must be decided identically at every
 * replica, including one that installed a snapshot: {@link #toBytes} goes into snapshots and
 * {@link #fromBytes} restores it. The encoding is deterministic (streams in (origin, incarnation)
 * order): {@code count:4 (origin:4 incarnation:8 window:136){count}}.
 *
 * <p>Not thread-safe: one writer (the protocol thread, or the delivery thread for a mirror).
 */
public final class ExecutedIds {
    /** Origins number from 1 in every incarnation: sn 0 is never new. */
    private static final long FIRST_SN = 1;
    private static final int STREAM_BYTES = 4 + 8 + SequenceWindow.BYTES;

    private final TreeMap<Stream, SequenceWindow> windows = new TreeMap<>();

    /** An empty record: nothing executed. */
    public ExecutedIds() {
    }

    /** Receives one stream's watermark; see {@link #forEachStream}. */
    @FunctionalInterface
    public interface StreamConsumer {
        /** Every sn below {@code executedBelow} of {@code (origin, incarnation)} was executed (or can never be new). */
        void accept(int origin, long incarnation, long executedBelow);
    }

    /**
     * Records that {@code id} executes.
     *
     * @return {@code true} the first time, {@code false} for a duplicate
     * @throws IllegalArgumentException if a field of {@code id} is negative or its sn is 0
     */
    public boolean firstExecution(BatchId id) {
        check(id);
        Stream s = new Stream(id.origin(), id.incarnation());
        SequenceWindow w = windows.get(s);
        if (w == null) {
            w = SequenceWindow.openingAt(id.sn(), FIRST_SN);
            windows.put(s, w);
        }
        return w.firstDecision(id.sn());
    }

    /** Whether {@code id} was executed ({@link #firstExecution} would return false); records nothing. */
    public boolean executed(BatchId id) {
        SequenceWindow w = windows.get(new Stream(id.origin(), id.incarnation()));
        return w != null && w.seen(id.sn());
    }

    /** The lowest sn of {@code (origin, incarnation)} that may still be new (0 when the stream is unknown: nothing executed). */
    public long executedBelow(int origin, long incarnation) {
        SequenceWindow w = windows.get(new Stream(origin, incarnation));
        return w == null ? 0 : w.base();
    }

    /** Calls {@code sink} for every stream seen, in (origin, incarnation) order. */
    public void forEachStream(StreamConsumer sink) {
        for (Map.Entry<Stream, SequenceWindow> e : windows.entrySet()) {
            sink.accept(e.getKey().origin, e.getKey().incarnation, e.getValue().base());
        }
    }

    /** Number of (origin, incarnation) streams recorded. */
    public int streams() {
        return windows.size();
    }

    /** Bytes of {@link #toBytes}. */
    public int encodedSize() {
        return 4 + windows.size() * STREAM_BYTES;
    }

    /** Writes {@link #encodedSize} bytes. */
    public void writeTo(ByteBuffer out) {
        out.putInt(windows.size());
        for (Map.Entry<Stream, SequenceWindow> e : windows.entrySet()) {
            out.putInt(e.getKey().origin).putLong(e.getKey().incarnation);
            e.getValue().writeTo(out);
        }
    }

    /** The record's bytes, for a snapshot. */
    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(encodedSize());
        writeTo(b);
        return b.array();
    }

    /**
     * Reads what {@link #writeTo} wrote, consuming exactly its bytes. An empty buffer is the empty
     * record (a snapshot without delivery state).
     *
     * @throws IllegalArgumentException if the bytes are not a record (truncated, a count that does
     *         not fit, negative fields, a stream twice)
     */
    public static ExecutedIds readFrom(ByteBuffer in) {
        ExecutedIds r = new ExecutedIds();
        if (!in.hasRemaining()) {
            return r;
        }
        try {
            int count = in.getInt();
            if (count < 0 || (long) count * STREAM_BYTES > in.remaining()) {
                throw new IllegalArgumentException("executed-id record claims " + count + " streams in " + in.remaining() + " bytes");
            }
            for (int i = 0; i < count; i++) {
                int origin = in.getInt();
                long incarnation = in.getLong();
                if (origin < 0 || incarnation < 0) {
                    throw new IllegalArgumentException("executed-id stream " + origin + ":" + incarnation + " has a negative field");
                }
                if (r.windows.put(new Stream(origin, incarnation), SequenceWindow.readFrom(in)) != null) {
                    throw new IllegalArgumentException("executed-id stream " + origin + ":" + incarnation + " appears twice");
                }
            }
            return r;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("executed-id record is truncated", e);
        }
    }

    /**
     * The record in {@code bytes} (all of them).
     *
     * @throws IllegalArgumentException if they are not exactly one record
     */
    public static ExecutedIds fromBytes(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate();
        ExecutedIds r = readFrom(b);
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " trailing bytes after the executed-id record");
        }
        return r;
    }

    /** The record in {@code bytes}; see {@link #fromBytes(ByteBuffer)}. */
    public static ExecutedIds fromBytes(byte[] bytes) {
        return fromBytes(ByteBuffer.wrap(bytes));
    }

    /** An independent copy. */
    public ExecutedIds copy() {
        return fromBytes(toBytes());
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof ExecutedIds e && windows.equals(e.windows);
    }

    @Override
    public int hashCode() {
        return windows.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ExecutedIds{");
        forEachStream((o, inc, below) -> sb.append(o).append(':').append(inc).append("<").append(below).append(' '));
        return sb.append('}').toString();
    }

    private static void check(BatchId id) {
        if (id.origin() < 0 || id.incarnation() < 0 || id.sn() < FIRST_SN) {
            throw new IllegalArgumentException("no batch id " + id);
        }
    }

    private record Stream(int origin, long incarnation) implements Comparable<Stream> {
        @Override
        public int compareTo(Stream o) {
            int c = Integer.compare(origin, o.origin);
            return c != 0 ? c : Long.compare(incarnation, o.incarnation);
        }
    }
}
