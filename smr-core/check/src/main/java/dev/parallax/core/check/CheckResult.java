package dev.parallax.core.check;

import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of a linearizability check: the {@link Verdict}, which partition decided it, and a
 * short human-readable report that {@link #toString()} returns. For
 * {@link Verdict#NOT_LINEARIZABLE} the report shows the failing partition, the end of the longest
 * partial linearization found, the state it leads to, and the operations open where the search got
 * stuck, with times relative to the first operation of the history. Immutable and therefore
 * thread-safe.
 */
public final class CheckResult {

    private final Verdict verdict;
    private final String partition;
    private final String report;
    private final int operations;
    private final int partitions;
    private final long steps;

    CheckResult(Verdict verdict, String partition, String report, int operations, int partitions, long steps) {
        this.verdict = Objects.requireNonNull(verdict);
        this.partition = partition;
        this.report = Objects.requireNonNull(report);
        this.operations = operations;
        this.partitions = partitions;
        this.steps = steps;
    }

    /** The verdict. Non-blocking. */
    public Verdict verdict() {
        return verdict;
    }

    /** Whether the verdict is {@link Verdict#LINEARIZABLE}. Non-blocking. */
    public boolean isLinearizable() {
        return verdict == Verdict.LINEARIZABLE;
    }

    /**
     * The label of the partition that was not linearizable, or where the budget ran out; empty
     * for {@link Verdict#LINEARIZABLE}. Non-blocking.
     */
    public Optional<String> partition() {
        return Optional.ofNullable(partition);
    }

    /** The report, starting with the verdict; the same text as {@link #toString()}. Non-blocking. */
    public String report() {
        return report;
    }

    /** The operations checked, after dropping reads with unknown outcome. Non-blocking. */
    public int operations() {
        return operations;
    }

    /** The partitions the history was split into. Non-blocking. */
    public int partitions() {
        return partitions;
    }

    /** The search steps spent over all partitions checked. Non-blocking. */
    public long steps() {
        return steps;
    }

    @Override
    public String toString() {
        return report;
    }
}
