package dev.parallax.core.check;

/**
 * The memo of Lowe's WGL variant: the configurations (linearized set, model state) already
 * explored. A configuration seen before cannot lead anywhere new, which turns the exponential
 * Wing–Gong search into one bounded by the number of distinct configurations.
 *
 * <p>With {@code coverByUnknownSubset}, a configuration also counts as seen when one with the same
 * known operations and state but only a subset of its unknown-outcome operations was: those never
 * need to be linearized, so whatever completes the larger set completes the smaller. Such entries
 * share a hash (the unknown part is left out of it) and are compared by inclusion.
 *
 * <p>Open addressing over parallel arrays; the full 64-bit hash is stored and compared first.
 * Not thread-safe: confined to one search.
 */
final class VisitedSet {

    private static final float LOAD = 0.6f;

    private long[] hashes;
    private int[] los;
    private long[][] windows;
    private long[][] unknowns;
    private Object[] states;
    private int mask;
    private int size;
    private int threshold;
    private final boolean coverByUnknownSubset;

    VisitedSet(int expected, boolean coverByUnknownSubset) {
        this.coverByUnknownSubset = coverByUnknownSubset;
        int capacity = Integer.highestOneBit(Math.max(16, (int) (expected / LOAD)) - 1) << 1;
        allocate(capacity);
    }

    int size() {
        return size;
    }

    /** Adds the configuration; returns false if it, or one that covers it, was already present. */
    boolean add(LinearizedSet set, Object state) {
        long h = set.hash() ^ (state.hashCode() * 0xC2B2AE3D27D4EB4FL);
        if (!coverByUnknownSubset) {
            h ^= set.unknownHash();
        }
        if (h == 0) {
            h = 1;
        }
        int i = index(h);
        long[] hs = hashes;
        while (hs[i] != 0) {
            if (hs[i] == h
                    && set.matches(los[i], windows[i])
                    && (coverByUnknownSubset ? set.unknownIncludes(unknowns[i]) : set.unknownMatches(unknowns[i]))
                    && states[i].equals(state)) {
                return false;
            }
            i = (i + 1) & mask;
        }
        hs[i] = h;
        los[i] = set.lo();
        windows[i] = set.window();
        unknowns[i] = set.unknownSnapshot();
        states[i] = state;
        if (++size > threshold) {
            grow();
        }
        return true;
    }

    private int index(long h) {
        long x = h ^ (h >>> 32);
        return (int) (x ^ (x >>> 16)) & mask;
    }

    private void allocate(int capacity) {
        hashes = new long[capacity];
        los = new int[capacity];
        windows = new long[capacity][];
        unknowns = new long[capacity][];
        states = new Object[capacity];
        mask = capacity - 1;
        threshold = (int) (capacity * LOAD);
    }

    private void grow() {
        long[] oldHashes = hashes;
        int[] oldLos = los;
        long[][] oldWindows = windows;
        long[][] oldUnknowns = unknowns;
        Object[] oldStates = states;
        allocate(oldHashes.length << 1);
        for (int j = 0; j < oldHashes.length; j++) {
            long h = oldHashes[j];
            if (h == 0) {
                continue;
            }
            int i = index(h);
            while (hashes[i] != 0) {
                i = (i + 1) & mask;
            }
            hashes[i] = h;
            los[i] = oldLos[j];
            windows[i] = oldWindows[j];
            unknowns[i] = oldUnknowns[j];
            states[i] = oldStates[j];
        }
    }
}
