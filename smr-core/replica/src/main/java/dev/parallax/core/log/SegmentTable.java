package dev.parallax.core.log;

import java.util.Arrays;

/**
 * Which segment holds which indexes: segment {@code i} (in append order) is Chronicle cycle
 * {@code cycle(i)} and holds the records from {@code firstIndex(i)} to
 * {@code firstIndex(i + 1) - 1} (the last one up to the log's next index). Within a segment,
 * Chronicle's sequence number of a record is its index minus the segment's first index.
 *
 * <p>Single-threaded (owned by the log's writer thread); never blocks.
 */
final class SegmentTable {
    private int[] cycles = new int[8];
    private long[] firstIndexes = new long[8];
    private int size;

    int size() {
        return size;
    }

    int cycle(int slot) {
        return cycles[slot];
    }

    long firstIndex(int slot) {
        return firstIndexes[slot];
    }

    /** The last segment's cycle, or -1 if there is none. */
    int lastCycle() {
        return size == 0 ? -1 : cycles[size - 1];
    }

    /** Adds a segment after every existing one. */
    void add(int cycle, long firstIndex) {
        if (size > 0 && (cycle <= cycles[size - 1] || firstIndex <= firstIndexes[size - 1])) {
            throw new IllegalArgumentException("segment " + cycle + "@" + firstIndex + " does not follow "
                    + cycles[size - 1] + "@" + firstIndexes[size - 1]);
        }
        if (size == cycles.length) {
            cycles = Arrays.copyOf(cycles, size * 2);
            firstIndexes = Arrays.copyOf(firstIndexes, size * 2);
        }
        cycles[size] = cycle;
        firstIndexes[size] = firstIndex;
        size++;
    }

    /** The slot of the segment holding {@code index}: the last one whose first index is not above it. */
    int slotOf(long index) {
        int lo = 0;
        int hi = size - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (firstIndexes[mid] <= index) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** How many leading segments hold only indexes below {@code index} (never the last segment). */
    int countWhollyBelow(long index) {
        int n = 0;
        while (n + 1 < size && firstIndexes[n + 1] <= index) {
            n++;
        }
        return n;
    }

    /** Forgets the first {@code n} segments. */
    void removeFirst(int n) {
        System.arraycopy(cycles, n, cycles, 0, size - n);
        System.arraycopy(firstIndexes, n, firstIndexes, 0, size - n);
        size -= n;
    }
}
