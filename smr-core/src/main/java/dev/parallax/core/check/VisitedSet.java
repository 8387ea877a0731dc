package dev.parallax.core.check;

/**
 * The memo of Lowe's WGL variant: the (linearized set, model state) pairs already explored. A
 * configuration seen before cannot lead anywhere new, which turns the exponential Wing–Gong
 * search into one bounded by the number of distinct configurations. Open addressing over
 * parallel arrays; the full 64-bit hash is stored and compared before the sets and states.
 * Not thread-safe: confined to one search.
 */
final class VisitedSet {

    private static final float LOAD = 0.6f;

    private long[] hashes;
    private int[] los;
    private long[][] windows;
    private Object[] states;
    private int mask;
    private int size;
    private int threshold;

    VisitedSet(int expected) {
        int capacity = Integer.highestOneBit(Math.max(16, (int) (expected / LOAD)) - 1) << 1;
        allocate(capacity);
    }

    int size() {
        return size;
    }

    /** Adds the configuration; returns false if it was already present. */
    boolean add(LinearizedSet set, Object state) {
        long h = set.hash() ^ (state.hashCode() * 0xC2B2AE3D27D4EB4FL);
        if (h == 0) {
            h = 1;
        }
        int i = index(h);
        long[] hs = hashes;
        while (hs[i] != 0) {
            if (hs[i] == h && set.matches(los[i], windows[i]) && states[i].equals(state)) {
                return false;
            }
            i = (i + 1) & mask;
        }
        hs[i] = h;
        los[i] = set.lo();
        windows[i] = set.window();
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
        states = new Object[capacity];
        mask = capacity - 1;
        threshold = (int) (capacity * LOAD);
    }

    private void grow() {
        long[] oldHashes = hashes;
        int[] oldLos = los;
        long[][] oldWindows = windows;
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
            states[i] = oldStates[j];
        }
    }
}
