package dev.parallax.bench.load;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

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
 * @param cpuSeconds    CPU seconds per process during the measured period (name → seconds; the load
 *                      JVM is {@link #LOAD_PROCESS})
 * @param bytesSent     bytes each server process sent during the measured period, to its peers and
 *                      its clients (name → bytes); empty when the system does not count them
 */
public record BenchResult(String system, LoadSpec spec, long completed, long failed, double seconds,
                          Map<String, Long> percentilesUs, List<Second> timeline, Map<String, Double> cpuSeconds,
                          Map<String, Double> bytesSent) {

    /** The name of the load generator's own process in {@link #cpuSeconds}. */
    public static final String LOAD_PROCESS = "load";

    /** Copies the collections, keeping their order. */
    public BenchResult {
        percentilesUs = Collections.unmodifiableMap(new LinkedHashMap<>(percentilesUs));
        timeline = List.copyOf(timeline);
        cpuSeconds = Collections.unmodifiableMap(new LinkedHashMap<>(cpuSeconds));
        bytesSent = Collections.unmodifiableMap(new LinkedHashMap<>(bytesSent));
    }

    /** A result without byte counts. */
    public BenchResult(String system, LoadSpec spec, long completed, long failed, double seconds,
                       Map<String, Long> percentilesUs, List<Second> timeline, Map<String, Double> cpuSeconds) {
        this(system, spec, completed, failed, seconds, percentilesUs, timeline, cpuSeconds, Map.of());
    }

    /** One second of the timeline: commands answered in it and their p99 latency. */
    public record Second(int second, long completed, long p99Us) {
    }

    /** This result with {@code cpuSeconds} as its CPU figures. */
    public BenchResult withCpuSeconds(Map<String, Double> cpuSeconds) {
        return new BenchResult(system, spec, completed, failed, seconds, percentilesUs, timeline, cpuSeconds, bytesSent);
    }

    /** This result with {@code bytesSent} as its per-process byte counts. */
    public BenchResult withBytesSent(Map<String, Double> bytesSent) {
        return new BenchResult(system, spec, completed, failed, seconds, percentilesUs, timeline, cpuSeconds, bytesSent);
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

    /**
     * CPU microseconds per answered command of each server process (every process measured but
     * {@link #LOAD_PROCESS}, and none that could not be read), in the order measured; empty if
     * nothing was answered.
     */
    public Map<String, Double> serverCpuUsPerCommand() {
        Map<String, Double> m = new LinkedHashMap<>();
        if (completed > 0) {
            cpuSeconds.forEach((name, s) -> {
                if (!name.equals(LOAD_PROCESS) && s >= 0) {
                    m.put(name, s * 1e6 / completed);
                }
            });
        }
        return Collections.unmodifiableMap(m);
    }

    /** Bytes sent per answered command by each server process, in the order measured; empty if not counted. */
    public Map<String, Double> bytesPerCommand() {
        Map<String, Double> m = new LinkedHashMap<>();
        if (completed > 0) {
            bytesSent.forEach((name, b) -> {
                if (b >= 0) {
                    m.put(name, b / completed);
                }
            });
        }
        return Collections.unmodifiableMap(m);
    }

    /**
     * The largest value over the smallest, the balance of a per-process figure (1.0 = even); empty
     * for fewer than two values or a smallest value of zero.
     */
    public static OptionalDouble maxOverMin(Map<String, Double> perProcess) {
        if (perProcess.size() < 2) {
            return OptionalDouble.empty();
        }
        double max = perProcess.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        double min = perProcess.values().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        return min <= 0 ? OptionalDouble.empty() : OptionalDouble.of(max / min);
    }
}
