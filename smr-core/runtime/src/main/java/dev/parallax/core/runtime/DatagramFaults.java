package dev.parallax.core.runtime;

import java.util.HashSet;
import java.util.Set;

/**
 * Faults injected into the datagrams a replica receives from a datagram group, for tests and chaos
 * runs only (cluster-file key {@code mring.test.faults}): each arriving datagram is dropped with
 * probability {@link #drop}, otherwise delivered twice with probability {@link #duplicate}; with a
 * {@link #reorderWindow} of 2 or more, up to that many datagrams are held and released in a shuffled
 * order (the held ones also leave once the oldest has waited 5 ms). The draws come from a random
 * generator seeded by {@link #seed} (mixed with the receiving member's id), so a run is reproducible
 * as far as arrival order allows. {@link #NONE} injects nothing: datagrams pass untouched.
 *
 * <p>The network may do all of this on its own (seed 003 (Ring Paxos) §3.3.2: ip-multicast is
 * unreliable); the injector makes it happen on loopback, where datagrams are rarely lost.
 *
 * <p>Immutable and thread-safe.
 *
 * @param drop          probability in [0, 1] that a datagram is lost
 * @param duplicate     probability in [0, 1] that a datagram that is not lost arrives twice
 * @param reorderWindow how many datagrams may be held and shuffled, ≥ 0 (0 and 1 keep the order)
 * @param seed          seed of the fault draws
 */
public record DatagramFaults(double drop, double duplicate, int reorderWindow, long seed) {

    /** No faults. */
    public static final DatagramFaults NONE = new DatagramFaults(0, 0, 0, 0);

    /**
     * @throws IllegalArgumentException if a probability is outside [0, 1] (or NaN), or the window is negative
     */
    public DatagramFaults {
        if (!(drop >= 0 && drop <= 1)) {
            throw new IllegalArgumentException("drop must be a probability in [0, 1], got " + drop);
        }
        if (!(duplicate >= 0 && duplicate <= 1)) {
            throw new IllegalArgumentException("dup must be a probability in [0, 1], got " + duplicate);
        }
        if (reorderWindow < 0) {
            throw new IllegalArgumentException("reorder must be >= 0, got " + reorderWindow);
        }
    }

    /** Whether these faults change anything (a drop or duplicate probability above 0, or a window of 2 or more). */
    public boolean active() {
        return drop > 0 || duplicate > 0 || reorderWindow > 1;
    }

    /**
     * Parses {@code drop=0.02,dup=0.01,reorder=4,seed=7}: comma-separated {@code key=value} pairs in any
     * order, each key at most once, missing keys 0; blank text is {@link #NONE}. Keys: {@code drop} and
     * {@code dup} (probabilities), {@code reorder} (window, an int), {@code seed} (a long).
     *
     * @throws IllegalArgumentException naming the offending key (or pair) if the text is malformed
     */
    public static DatagramFaults parse(String text) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        double drop = 0;
        double dup = 0;
        int reorder = 0;
        long seed = 0;
        Set<String> seen = new HashSet<>();
        for (String pair : text.split(",", -1)) {
            String p = pair.trim();
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("datagram faults: '" + p + "' is not key=value (keys drop, dup, reorder, seed)");
            }
            String key = p.substring(0, eq).trim();
            String value = p.substring(eq + 1).trim();
            if (!seen.add(key)) {
                throw new IllegalArgumentException("datagram faults: key '" + key + "' given twice");
            }
            try {
                switch (key) {
                    case "drop" -> drop = probability(value);
                    case "dup" -> dup = probability(value);
                    case "reorder" -> reorder = Integer.parseInt(value);
                    case "seed" -> seed = Long.parseLong(value);
                    default -> throw new IllegalArgumentException("unknown key (keys drop, dup, reorder, seed)");
                }
                if (reorder < 0) {
                    throw new IllegalArgumentException("must be >= 0");
                }
            } catch (IllegalArgumentException e) { // NumberFormatException included
                throw new IllegalArgumentException("datagram faults: key '" + key + "' = '" + value + "': " + e.getMessage(), e);
            }
        }
        return new DatagramFaults(drop, dup, reorder, seed);
    }

    private static double probability(String value) {
        double p = Double.parseDouble(value);
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("not a probability in [0, 1]");
        }
        return p;
    }

    /** The {@link #parse} form: {@code drop=..,dup=..,reorder=..,seed=..}, or {@code ""} for {@link #NONE}. */
    @Override
    public String toString() {
        return equals(NONE) ? "" : "drop=" + drop + ",dup=" + duplicate + ",reorder=" + reorderWindow + ",seed=" + seed;
    }
}
