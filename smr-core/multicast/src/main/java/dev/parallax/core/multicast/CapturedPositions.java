package dev.parallax.core.multicast;

import dev.parallax.core.spi.MulticastPosition;

import java.util.ArrayDeque;

/**
 * The merge positions a {@link MulticastBroadcast} captured for snapshots and not yet reported
 * durable, at most {@value #CAPTURED}, oldest dropped first: when the replica reports a snapshot
 * durable, its positions let the streams compact below them.
 *
 * <p>Thread-safe (one lock, held briefly); nothing blocks.
 */
final class CapturedPositions {
    /** The positions kept. */
    static final int CAPTURED = 16;

    private final ArrayDeque<Captured> captured = new ArrayDeque<>();

    /** A snapshot's positions: one merge position, or (per worker) one per worker. */
    private record Captured(long next, MulticastPosition[] positions) {
    }

    /** Keeps the positions of a snapshot whose next sequence is {@code next}. */
    synchronized void capture(long next, MulticastPosition[] positions) {
        if (captured.size() == CAPTURED) {
            captured.removeFirst();
        }
        captured.addLast(new Captured(next, positions));
    }

    /**
     * Forgets every capture up to {@code nextSequence} and returns the positions captured exactly
     * there, or null.
     */
    synchronized MulticastPosition[] taken(long nextSequence) {
        MulticastPosition[] at = null;
        while (!captured.isEmpty() && captured.peekFirst().next <= nextSequence) {
            Captured c = captured.removeFirst();
            if (c.next == nextSequence) {
                at = c.positions;
            }
        }
        return at;
    }

    /** Forgets everything (the streams moved to an installed snapshot). */
    synchronized void clear() {
        captured.clear();
    }
}
