package dev.parallax.bench.load;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one load run. Immutable (the collections are copied in).
 *
 * @param system        what was measured ({@code parallax-paxos/none}, ...)
 * @param spec          the load
 * @param completed     commands answered in the measured period
 * @param failed        commands that failed or timed out
 * @param seconds       length of the measured period
 * @param percentilesUs latency percentiles in microseconds (p50, p90, p99, p99.9, max)
 * @param timeline      per measured second: commands answered and p99 latency
 * @param cpuSeconds    CPU seconds per process during the measured period (name → seconds)
 */
public record BenchResult(String system, LoadSpec spec, long completed, long failed, double seconds,
                          Map<String, Long> percentilesUs, List<Second> timeline, Map<String, Double> cpuSeconds) {

    /** Copies the collections, keeping their order. */
    public BenchResult {
        percentilesUs = Collections.unmodifiableMap(new LinkedHashMap<>(percentilesUs));
        timeline = List.copyOf(timeline);
        cpuSeconds = Collections.unmodifiableMap(new LinkedHashMap<>(cpuSeconds));
    }

    /** One second of the timeline: commands answered in it and their p99 latency. */
    public record Second(int second, long completed, long p99Us) {
    }

    /** This result with {@code cpuSeconds} as its CPU figures. */
    public BenchResult withCpuSeconds(Map<String, Double> cpuSeconds) {
        return new BenchResult(system, spec, completed, failed, seconds, percentilesUs, timeline, cpuSeconds);
    }

    /** Answered commands per second of the measured period. */
    public double throughput() {
        return completed / seconds;
    }

    /** CPU microseconds spent per answered command, summed over every process measured. */
    public double cpuUsPerCommand() {
        double total = cpuSeconds.values().stream().mapToDouble(Double::doubleValue).filter(v -> v >= 0).sum();
        return completed == 0 ? 0 : total * 1e6 / completed;
    }
}
