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
}
