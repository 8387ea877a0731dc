package dev.parallax.bench.load;

/**
 * One load level of a sweep: the run at {@code outstanding} commands in flight per connection.
 * Immutable.
 *
 * @param outstanding commands in flight per connection
 * @param result      the run, with CPU figures
 * @param where       the system's report on where its time went during the level, or empty
 */
public record SweepPoint(int outstanding, BenchResult result, String where) {

    /** A level without a report from the system. */
    public SweepPoint(int outstanding, BenchResult result) {
        this(outstanding, result, "");
    }

    /** Answered commands per second. */
    public double throughput() {
        return result.throughput();
    }

    /** Median latency in microseconds. */
    public long p50Us() {
        return result.percentilesUs().getOrDefault("p50", 0L);
    }

    /** 99th percentile latency in microseconds. */
    public long p99Us() {
        return result.percentilesUs().getOrDefault("p99", 0L);
    }
}
