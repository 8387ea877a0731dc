package dev.parallax.core.multicast;

import dev.parallax.core.seq.SequenceWindow;

import java.util.Arrays;

/**
 * Which messages of each origin one stream has decided, so that a message decided twice (its
 * origin resent it, see {@link OriginOutbox}) is delivered once. A pure function of the sequence
 * of decided values fed to it: every process that sees the same stream from the same point keeps
 * the same record, so every subscriber drops the same copies and delivers each message at the
 * same position.
 *
 * <p><b>Record.</b> Per origin, a watermark {@code base} (every sequence number below it is
 * decided, or given up by its origin) and a bit per sequence number in
 * {@code [base, base + WINDOW)}. A sequence number is new when it is in the window and its bit is
 * clear. The base moves up while its own bit is set; a sequence number at or beyond
 * {@code base + WINDOW} moves the window up to end there.
 *
 * <p><b>Why the window is enough.</b> An origin never has two messages outstanding (accepted and
 * not seen decided) in a stream more than {@link #WINDOW} sequence numbers apart: it numbers a new
 * message below {@code lowest outstanding + WINDOW} or refuses it ({@link OriginOutbox}). When the
 * window moves up to end at a decided {@code s}, the origin's lowest outstanding number when it
 * numbered {@code s} was above {@code s - WINDOW}, hence at or above the new base: everything the
 * window drops was seen decided by the origin or given up, and a copy of it decided later is a
 * duplicate. The first message seen of an origin opens its window ending at that message, for the
 * same reason. A new run of an origin numbers from far above its previous run
 * ({@link StreamMulticast}), so its first message moves the window past everything old, and the
 * old run's late copies are dropped.
 *
 * <p><b>Snapshots.</b> A process that starts a stream from a snapshot must know what was decided
 * before the snapshot point, or a resent copy decided after it, of a message decided before it,
 * would be delivered by that process and by no other (its sequence numbers would then differ from
 * every other replica's). A subscription therefore keeps the record of the messages it passed
 * ({@code MergeCursor}), and the position stored in a snapshot carries it
 * ({@code DecidedStreams.resumePosition}, {@link #writeTo}); a stream restarted there starts from
 * that record ({@link #copy}). Only a position without a record (a hand-made one) still
 * {@link #reset}s the stream, with that limit.
 *
 * <p>The window itself is {@link SequenceWindow} (one per origin); this class keeps one per origin.
 *
 * <p>Memory: {@code WINDOW / 8} bytes and a long per origin seen. Not thread-safe: used under the
 * {@link DecidedStreams} lock by one stream's writer.
 */
final class OriginSequences {
    /** How far apart an origin's outstanding sequence numbers may be, in one stream. */
    static final int WINDOW = SequenceWindow.WINDOW;

    /** Per origin, its window; null: never seen. */
    private final SequenceWindow[] windows;

    /** @param origins origin ids are {@code 0..origins-1} */
    OriginSequences(int origins) {
        this.windows = new SequenceWindow[origins];
    }

    /**
     * Records that message {@code (origin, sequence)} was decided.
     *
     * @return {@code true} the first time, {@code false} for a copy (or a message its origin gave up)
     * @throws IllegalArgumentException if {@code origin} is not an origin id or {@code sequence} is negative
     */
    boolean firstDecision(int origin, long sequence) {
        if (origin < 0 || origin >= windows.length || sequence < 0) {
            throw new IllegalArgumentException("no message (" + origin + ", " + sequence + ")");
        }
        SequenceWindow w = windows[origin];
        if (w == null) {
            w = SequenceWindow.openingAt(sequence);
            windows[origin] = w;
        }
        return w.firstDecision(sequence);
    }

    /** Whether {@link #firstDecision} would return {@code false} now (nothing is recorded). */
    boolean seen(int origin, long sequence) {
        SequenceWindow w = origin >= 0 && origin < windows.length ? windows[origin] : null;
        return w != null && w.seen(sequence);
    }

    /** An independent copy. */
    OriginSequences copy() {
        OriginSequences c = new OriginSequences(windows.length);
        for (int i = 0; i < windows.length; i++) {
            c.windows[i] = windows[i] == null ? null : windows[i].copy();
        }
        return c;
    }

    /** Bytes {@link #writeTo} writes. */
    int encodedSize() {
        int size = 4;
        for (SequenceWindow w : windows) {
            size += 1 + (w == null ? 0 : SequenceWindow.BYTES);
        }
        return size;
    }

    /** Writes {@code origins:4}, then per origin {@code seen:1} and, if seen, its window. */
    void writeTo(java.nio.ByteBuffer out) {
        out.putInt(windows.length);
        for (SequenceWindow w : windows) {
            out.put((byte) (w == null ? 0 : 1));
            if (w != null) {
                w.writeTo(out);
            }
        }
    }

    /**
     * Reads what {@link #writeTo} wrote.
     *
     * @throws IllegalArgumentException if the bytes are short, not a record, or of another number of origins
     */
    static OriginSequences readFrom(java.nio.ByteBuffer in, int origins) {
        if (in.remaining() < 4) {
            throw new IllegalArgumentException("truncated origin record");
        }
        int n = in.getInt();
        if (n != origins) {
            throw new IllegalArgumentException("an origin record of " + n + " origins, expected " + origins);
        }
        OriginSequences r = new OriginSequences(origins);
        for (int i = 0; i < origins; i++) {
            if (!in.hasRemaining()) {
                throw new IllegalArgumentException("truncated origin record");
            }
            byte seen = in.get();
            if (seen == 1) {
                r.windows[i] = SequenceWindow.readFrom(in);
            } else if (seen != 0) {
                throw new IllegalArgumentException("bad origin flag " + seen);
            }
        }
        return r;
    }

    /** Forgets every origin: the stream continues from a snapshot, what came before is unknown. */
    void reset() {
        Arrays.fill(windows, null);
    }
}
