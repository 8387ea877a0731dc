package dev.parallax.paxos.sim;

/**
 * Counts what the simulated replicas' session layers saw, over every replica and incarnation (it
 * survives crashes), so that a test can check its faults really produced session gaps. Owned by
 * the simulation thread.
 */
final class ReplicaCounters {
    private long gaps;
    private long duplicates;

    /** A decided command was not executed: its session expected an earlier sequence (a GAP verdict). */
    void gap() {
        gaps++;
    }

    long gaps() {
        return gaps;
    }

    /** A decided command was not executed again: its session had executed it (a DUPLICATE verdict). */
    void duplicate() {
        duplicates++;
    }

    long duplicates() {
        return duplicates;
    }
}
