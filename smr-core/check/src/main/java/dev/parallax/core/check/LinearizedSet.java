package dev.parallax.core.check;

import java.util.Arrays;

/**
 * The set of operations linearized so far, as two bitsets, one over the operations with a known
 * outcome and one over those with an unknown outcome, each numbered densely in invocation order
 * and each with an incrementally maintained Zobrist hash (XOR of one random word per member), so
 * that hashing costs O(1) per change.
 *
 * <p>Reachable sets of known operations are a run of full words, a short window of mixed words,
 * then zero words; {@code lo} and {@code hi} bound that window and {@link #window()} stores only
 * it, which keeps memo entries a few words long even for histories of many thousands of
 * operations. Unknown operations are kept apart because they may stay unlinearized for good and
 * would otherwise hold the window open from the first of them onwards, and because the memo may
 * compare them by inclusion rather than equality. Not thread-safe: confined to one search.
 */
final class LinearizedSet {

    private static final long[] NONE = new long[0];

    private final long[] words;
    /** The lowest word that is not all ones; {@code words.length} if every word is full. */
    private int lo;
    /** The highest word that is not zero; {@code lo - 1} or less when the window is empty. */
    private int hi = -1;
    private long hash;
    private long unknownHash;
    private final long[] unknown;
    private int unknownCount;

    LinearizedSet(int knownCapacity, int unknownCapacity) {
        words = new long[(knownCapacity + 63) >>> 6];
        unknown = new long[(unknownCapacity + 63) >>> 6];
    }

    void add(int index) {
        int w = index >>> 6;
        words[w] |= 1L << index;
        hash ^= mix(index + 1L);
        if (w > hi) {
            hi = w;
        }
        if (w == lo) {
            while (lo < words.length && words[lo] == -1L) {
                lo++;
            }
        }
    }

    void remove(int index) {
        int w = index >>> 6;
        words[w] &= ~(1L << index);
        hash ^= mix(index + 1L);
        if (w < lo) {
            lo = w;
        }
        if (w == hi) {
            while (hi >= 0 && words[hi] == 0L) {
                hi--;
            }
        }
    }

    boolean contains(int index) {
        return (words[index >>> 6] & (1L << index)) != 0;
    }

    void addUnknown(int index) {
        unknown[index >>> 6] |= 1L << index;
        unknownCount++;
        unknownHash ^= mix(-1L - index);
    }

    void removeUnknown(int index) {
        unknown[index >>> 6] &= ~(1L << index);
        unknownCount--;
        unknownHash ^= mix(-1L - index);
    }

    /** The hash of the known part. */
    long hash() {
        return hash;
    }

    /** The hash of the unknown part. */
    long unknownHash() {
        return unknownHash;
    }

    int lo() {
        return lo;
    }

    /** A copy of the known words between {@code lo} and {@code hi}: with {@code lo}, the known part. */
    long[] window() {
        return Arrays.copyOfRange(words, lo, Math.max(lo, hi + 1));
    }

    /** Whether the known part equals the one stored as {@code (storedLo, storedWindow)}. */
    boolean matches(int storedLo, long[] storedWindow) {
        if (storedLo != lo) {
            return false;
        }
        int length = Math.max(0, hi + 1 - lo);
        return storedWindow.length == length
                && Arrays.equals(words, lo, lo + length, storedWindow, 0, length);
    }

    /** A copy of the unknown part, shared and empty when no such operation is linearized. */
    long[] unknownSnapshot() {
        return unknownCount == 0 ? NONE : unknown.clone();
    }

    /** Whether the unknown part equals the one stored as {@code snapshot}. */
    boolean unknownMatches(long[] snapshot) {
        if (snapshot.length == 0) {
            return unknownCount == 0;
        }
        return Arrays.equals(snapshot, unknown);
    }

    /** Whether the unknown part includes the one stored as {@code snapshot}. */
    boolean unknownIncludes(long[] snapshot) {
        for (int w = 0; w < snapshot.length; w++) {
            if ((snapshot[w] & ~unknown[w]) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * SplitMix64 finalizer: a fixed pseudo-random word per operation, keyed by {@code index + 1}
     * for known operations and by {@code -1 - index} for unknown ones so that no key is 0 and the
     * two numberings do not collide.
     */
    private static long mix(long key) {
        long z = key * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
