package dev.parallax.bench.load;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * @param traffic       peer bytes sent and bytes delivered per replica during the measured period,
 *                      for the efficiency (seed 003 (Ring Paxos) §3.1 ¶2); {@link Traffic#NONE} when
 *                      the system does not count them
 */
public record BenchResult(String system, LoadSpec spec, long completed, long failed, double seconds,
                          Map<String, Long> percentilesUs, List<Second> timeline, Map<String, Double> cpuSeconds,
                          Map<String, Double> bytesSent, Traffic traffic) {

    /** The name of the load generator's own process in {@link #cpuSeconds}. */
    public static final String LOAD_PROCESS = "load";

    /** Copies the collections, keeping their order. */
    public BenchResult {
        percentilesUs = Collections.unmodifiableMap(new LinkedHashMap<>(percentilesUs));
        timeline = List.copyOf(timeline);
        cpuSeconds = Collections.unmodifiableMap(new LinkedHashMap<>(cpuSeconds));
        bytesSent = Collections.unmodifiableMap(new LinkedHashMap<>(bytesSent));
        traffic = traffic == null ? Traffic.NONE : traffic;
    }

    /** A result without traffic counts. */
    public BenchResult(String system, LoadSpec spec, long completed, long failed, double seconds,
                       Map<String, Long> percentilesUs, List<Second> timeline, Map<String, Double> cpuSeconds,
                       Map<String, Double> bytesSent) {
        this(system, spec, completed, failed, seconds, percentilesUs, timeline, cpuSeconds, bytesSent, Traffic.NONE);
    }

    /** A result without byte counts. */
    public BenchResult(String system, LoadSpec spec, long completed, long failed, double seconds,
                       Map<String, Long> percentilesUs, List<Second> timeline, Map<String, Double> cpuSeconds) {
        this(system, spec, completed, failed, seconds, percentilesUs, timeline, cpuSeconds, Map.of(), Traffic.NONE);
    }

    /** One second of the timeline: commands answered in it and their p99 latency. */
    public record Second(int second, long completed, long p99Us) {
    }

    /** This result with {@code cpuSeconds} as its CPU figures. */
    public BenchResult withCpuSeconds(Map<String, Double> cpuSeconds) {
        return new BenchResult(system, spec, completed, failed, seconds, percentilesUs, timeline, cpuSeconds, bytesSent, traffic);
    }

    /** This result with {@code bytesSent} as its per-process byte counts. */
    public BenchResult withBytesSent(Map<String, Double> bytesSent) {
        return new BenchResult(system, spec, completed, failed, seconds, percentilesUs, timeline, cpuSeconds, bytesSent, traffic);
    }

    /** This result with {@code traffic} as its peer and delivered byte counts. */
    public BenchResult withTraffic(Traffic traffic) {
        return new BenchResult(system, spec, completed, failed, seconds, percentilesUs, timeline, cpuSeconds, bytesSent, traffic);
    }

    /**
     * What the replicas sent to each other and delivered during a period, by replica name: the
     * input of the efficiency metric (seed 003 (Ring Paxos) §3.1 ¶2, Table 3.2).
     * The paper's efficiency is the delivered throughput per receiver over the capacity of the
     * busiest sender's link; on one host we report the byte ratio instead:
     * {@link #senderBytesPerDeliveredByte} = the bytes the busiest replica sent to its peers (TCP and
     * datagrams, client replies excluded) over the mean bytes a replica delivered, and its inverse
     * {@link #efficiency}. Expected: Multi-Paxos leader about n-1, U-Ring and S-Paxos about
     * (n-1)/n per member, the M-Ring coordinator about 1 whatever n.
     *
     * @param peerBytesSent  bytes each replica sent to its peers (replica port and datagram group)
     * @param deliveredBytes bytes of decided values each replica handed to its state machine
     */
    public record Traffic(Map<String, Double> peerBytesSent, Map<String, Double> deliveredBytes) {
        /** No counts: the system does not report traffic. */
        public static final Traffic NONE = new Traffic(Map.of(), Map.of());

        /** Copies the maps, keeping their order. */
        public Traffic {
            peerBytesSent = Collections.unmodifiableMap(new LinkedHashMap<>(peerBytesSent));
            deliveredBytes = Collections.unmodifiableMap(new LinkedHashMap<>(deliveredBytes));
        }

        /** The counts of this cumulative reading since {@code earlier} (per name present in both; -1 kept as unreadable). */
        public Traffic since(Traffic earlier) {
            return new Traffic(minus(peerBytesSent, earlier.peerBytesSent), minus(deliveredBytes, earlier.deliveredBytes));
        }

        /** The replica that sent the most bytes to its peers, if any was counted. */
        public Optional<String> busiestSender() {
            return peerBytesSent.entrySet().stream().filter(e -> e.getValue() >= 0).max(Map.Entry.comparingByValue())
                    .map(Map.Entry::getKey);
        }

        /**
         * The busiest replica's peer bytes over the mean delivered bytes per replica; empty when
         * nothing was counted, some replica could not be read, or nothing was delivered.
         */
        public OptionalDouble senderBytesPerDeliveredByte() {
            if (peerBytesSent.isEmpty() || deliveredBytes.isEmpty()
                    || peerBytesSent.values().stream().anyMatch(v -> v < 0)
                    || deliveredBytes.values().stream().anyMatch(v -> v < 0)) {
                return OptionalDouble.empty();
            }
            double busiest = peerBytesSent.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            double meanDelivered = deliveredBytes.values().stream().mapToDouble(Double::doubleValue).average().orElseThrow();
            return meanDelivered <= 0 ? OptionalDouble.empty() : OptionalDouble.of(busiest / meanDelivered);
        }

        /** The paper's efficiency: mean delivered bytes over the busiest sender's bytes (the inverse of the above). */
        public OptionalDouble efficiency() {
            OptionalDouble r = senderBytesPerDeliveredByte();
            return r.isPresent() && r.getAsDouble() > 0 ? OptionalDouble.of(1 / r.getAsDouble()) : OptionalDouble.empty();
        }

        private static Map<String, Double> minus(Map<String, Double> now, Map<String, Double> before) {
            Map<String, Double> d = new LinkedHashMap<>();
            now.forEach((name, v) -> {
                Double b = before.get(name);
                d.put(name, b == null || b < 0 || v < 0 ? -1.0 : v - b);
            });
            return d;
        }
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
