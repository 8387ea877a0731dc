package dev.parallax.core.seq;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Which sequence numbers of one origin's stream were seen (decided, executed), so that a number
 * seen twice is recognised as a duplicate: a watermark {@code base} (every number below it was
 * seen, or given up by its origin) and one bit per number in {@code [base, base + WINDOW)}. A
 * number is new when it is in the window and its bit is clear. The base moves up while its own
 * bit is set; a number at or beyond {@code base + WINDOW} moves the window up to end there.
 *
 * <p><b>Why the window is enough</b> (the argument the users rely on): an origin never has two
 * numbers outstanding (numbered and not yet seen) more than {@link #WINDOW} apart — it numbers a
 * new message below {@code lowest outstanding + WINDOW} or refuses it. When the window moves up to
 * end at a seen {@code s}, the origin's lowest outstanding number when it numbered {@code s} was
 * above {@code s - WINDOW}, hence at or above the new base: everything the window drops was seen
 * already or given up, and a copy of it seen later is a duplicate. The first number seen of a
 * stream opens the window ending at it ({@link #openingAt}), for the same reason.
 *
 * <p>Extracted from the multicast's {@code OriginSequences}; S-Paxos' {@code ExecutedIds} keeps
 * one per (origin, incarnation) and puts it into snapshots ({@link #writeTo}, {@link #readFrom}).
 *
 * <p>Memory: {@code WINDOW / 8} bytes and a long. Not thread-safe: one writer, or confined to one
 * thread; never blocks.
 */
public final class SequenceWindow {
    /** How far apart an origin's outstanding sequence numbers may be. */
    public static final int WINDOW = 1024;
    /** Bytes of {@link #writeTo}: the base and the ring. */
    public static final int BYTES = Long.BYTES + WINDOW / Byte.SIZE;
    private static final int WORDS = WINDOW / Long.SIZE;

    private long base;
    /** A ring of WINDOW bits: bit {@code s % WINDOW} is sequence number {@code s}. */
    private final long[] bits = new long[WORDS];

    private SequenceWindow(long base) {
        this.base = base;
    }

    /**
     * A window for a stream whose first seen number is {@code sequence}: it ends there, so the
     * numbers below {@code sequence - WINDOW + 1} count as seen (nothing is recorded yet).
     *
     * @throws IllegalArgumentException if {@code sequence} is negative
     */
    public static SequenceWindow openingAt(long sequence) {
        return openingAt(sequence, 0);
    }

    /**
     * As {@link #openingAt(long)} for a stream whose origin numbers from {@code first} (the
     * numbers below it count as seen).
     *
     * @throws IllegalArgumentException if {@code first} is negative or above {@code sequence}
     */
    public static SequenceWindow openingAt(long sequence, long first) {
        if (first < 0 || sequence < first) {
            throw new IllegalArgumentException("sequence number " + sequence + " outside a stream numbered from " + first);
        }
        return new SequenceWindow(Math.max(first, sequence - WINDOW + 1));
    }

    /**
     * Records that {@code sequence} was seen.
     *
     * @return {@code true} the first time, {@code false} for a copy (or a number below the window)
     * @throws IllegalArgumentException if {@code sequence} is negative
     */
    public boolean firstDecision(long sequence) {
        if (sequence < 0) {
            throw new IllegalArgumentException("negative sequence number " + sequence);
        }
        if (sequence < base) {
            return false;
        }
        if (sequence - base >= WINDOW) {
            slide(sequence - WINDOW + 1);
        }
        if (get(sequence)) {
            return false;
        }
        set(sequence, true);
        while (get(base)) {
            set(base, false);
            base++;
        }
        return true;
    }

    /** Whether {@link #firstDecision} would return {@code false} now (nothing is recorded). */
    public boolean seen(long sequence) {
        if (sequence < 0) {
            return false;
        }
        if (sequence < base) {
            return true;
        }
        return sequence - base < WINDOW && get(sequence);
    }

    /** An independent copy of this window (a record taken at a point, that goes on separately). */
    public SequenceWindow copy() {
        SequenceWindow w = new SequenceWindow(base);
        System.arraycopy(bits, 0, w.bits, 0, WORDS);
        return w;
    }

    /** Every number below this was seen or dropped below the window; the lowest that may be new. */
    public long base() {
        return base;
    }

    /** Writes {@link #BYTES} bytes: {@code base:8 ring:128}. */
    public void writeTo(ByteBuffer out) {
        out.putLong(base);
        for (long w : bits) {
            out.putLong(w);
        }
    }

    /**
     * Reads what {@link #writeTo} wrote.
     *
     * @throws IllegalArgumentException if the bytes are short or not a window (negative base, or
     *         the base's own bit set, which {@link #firstDecision} never leaves)
     */
    public static SequenceWindow readFrom(ByteBuffer in) {
        if (in.remaining() < BYTES) {
            throw new IllegalArgumentException("a sequence window needs " + BYTES + " bytes, " + in.remaining() + " left");
        }
        long base = in.getLong();
        if (base < 0) {
            throw new IllegalArgumentException("negative window base " + base);
        }
        SequenceWindow w = new SequenceWindow(base);
        for (int i = 0; i < WORDS; i++) {
            w.bits[i] = in.getLong();
        }
        if (w.get(base)) {
            throw new IllegalArgumentException("window base " + base + " marked seen");
        }
        return w;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof SequenceWindow w && base == w.base && Arrays.equals(bits, w.bits);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(base) * 31 + Arrays.hashCode(bits);
    }

    @Override
    public String toString() {
        return "SequenceWindow{base=" + base + ", above=" + Arrays.stream(bits).map(Long::bitCount).sum() + "}";
    }

    private void slide(long newBase) {
        if (newBase - base >= WINDOW) {
            Arrays.fill(bits, 0);
        } else {
            for (long s = base; s < newBase; s++) {
                set(s, false);
            }
        }
        base = newBase;
    }

    private boolean get(long sequence) {
        int i = (int) (sequence % WINDOW);
        return (bits[i >>> 6] & (1L << i)) != 0;
    }

    private void set(long sequence, boolean on) {
        int i = (int) (sequence % WINDOW);
        if (on) {
            bits[i >>> 6] |= 1L << i;
        } else {
            bits[i >>> 6] &= ~(1L << i);
        }
    }
}
