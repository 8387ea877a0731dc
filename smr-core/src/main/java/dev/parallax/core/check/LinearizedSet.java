package dev.parallax.core.check;

import java.util.Arrays;

/**
 * The set of operations linearized so far, as a bitset over operation indices with an
 * incrementally maintained Zobrist hash (XOR of one random word per member) so that hashing costs
 * O(1) per change.
 *
 * <p>Operations are numbered in invocation order, so reachable sets are a run of full words, a
 * short window of mixed words, then zero words. {@code lo} and {@code hi} bound that window and
 * {@link #window()} stores only it, which keeps memo entries a few words long even for histories
 * of many thousands of operations. Not thread-safe: confined to one search.
 */
final class LinearizedSet {

    private final long[] words;
    /** The lowest word that is not all ones; {@code words.length} if every word is full. */
    private int lo;
    /** The highest word that is not zero; {@code lo - 1} or less when the window is empty. */
    private int hi = -1;
    private long hash;

    LinearizedSet(int capacity) {
        words = new long[(capacity + 63) >>> 6];
    }

    void add(int index) {
        int w = index >>> 6;
        words[w] |= 1L << index;
        hash ^= zobrist(index);
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
        hash ^= zobrist(index);
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

    long hash() {
        return hash;
    }

    int lo() {
        return lo;
    }

    /** A copy of the words between {@code lo} and {@code hi}, which with {@code lo} is the set. */
    long[] window() {
        return Arrays.copyOfRange(words, lo, Math.max(lo, hi + 1));
    }

    /** Whether this set equals the one stored as {@code (storedLo, storedWindow)}. */
    boolean matches(int storedLo, long[] storedWindow) {
        if (storedLo != lo) {
            return false;
        }
        int length = Math.max(0, hi + 1 - lo);
        return storedWindow.length == length
                && Arrays.equals(words, lo, lo + length, storedWindow, 0, length);
    }

    /** SplitMix64 finalizer of the index: a fixed pseudo-random word per operation. */
    private static long zobrist(int index) {
        long z = (index + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
