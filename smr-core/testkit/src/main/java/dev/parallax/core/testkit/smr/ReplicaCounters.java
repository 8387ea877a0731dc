package dev.parallax.core.testkit.smr;

/**
 * Counts what the simulated replicas' session layers saw, over every replica and incarnation (it
 * survives crashes), so that a test can check its faults really produced session gaps. Owned by
 * the simulation thread.
 */
public final class ReplicaCounters {
    private long gaps;
    private long duplicates;

    /** A decided command was not executed: its session expected an earlier sequence (a GAP verdict). */
    public void gap() {
        gaps++;
    }

    /** GAP verdicts counted so far. */
    public long gaps() {
        return gaps;
    }

    /** A decided command was not executed again: its session had executed it (a DUPLICATE verdict). */
    public void duplicate() {
        duplicates++;
    }

    /** DUPLICATE verdicts counted so far. */
    public long duplicates() {
        return duplicates;
    }

    private final java.util.Map<String, Long> events = new java.util.TreeMap<>();

    /** Adds {@code delta} to the core event {@code name} (summed over every replica and incarnation). */
    public void event(String name, long delta) {
        if (delta != 0) {
            events.merge(name, delta, Long::sum);
        }
    }

    /** The sum of the core event {@code name} so far; 0 if never reported. */
    public long event(String name) {
        return events.getOrDefault(name, 0L);
    }
}
