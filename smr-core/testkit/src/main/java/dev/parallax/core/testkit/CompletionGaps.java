package dev.parallax.core.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * The longest stretch without a completion, for tests that bound how long writes stall under a
 * fault (e.g. that writes resume within twice the suspect timeout). Pure; thread-safe.
 */
public final class CompletionGaps {
    private CompletionGaps() {
    }

    /**
     * The longest time in {@code [from, to]} without a completion: from {@code from} to the first
     * completion, between two completions, and from the last one to {@code to}. Completion times
     * outside the interval are ignored; the iterable is read once and need not be sorted.
     *
     * @param completions completion times (any unit, the same as {@code from} and {@code to})
     */
    public static long longest(Iterable<Long> completions, long from, long to) {
        List<Long> times = new ArrayList<>();
        for (long t : completions) {
            if (t >= from && t <= to) {
                times.add(t);
            }
        }
        times.sort(null);
        long last = from;
        long gap = 0;
        for (long t : times) {
            gap = Math.max(gap, t - last);
            last = t;
        }
        return Math.max(gap, to - last);
    }
}
