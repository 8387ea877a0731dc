package dev.parallax.bench.report;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.SweepPoint;
import dev.parallax.bench.load.SweepResult;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The comparison of systems at one command size: per system its best throughput (and that level's
 * p50/p99 and CPU per command), its best throughput with p99 within a target (the equal-latency
 * point), the ratios of Parallax to it, and how evenly the work of that level fell on the server
 * processes: CPU and bytes sent per command of each, and their max/min (S-Paxos spreads
 * the leader's work over every replica, seed 002 (S-Paxos) §V-A). "Parallax" is the {@code parallax-*} system with the
 * best throughput among those swept. Immutable; built by the pure function {@link #of}.
 *
 * @param commandBytes  the command size compared
 * @param p99TargetUs   the p99 target of the equal-latency column, in microseconds
 * @param parallax      the Parallax system the ratios refer to, if one was swept
 * @param rows          one row per system, in the order given
 */
public record ComparisonTable(int commandBytes, long p99TargetUs, Optional<String> parallax, List<Row> rows) {

    /** Copies the rows. */
    public ComparisonTable {
        rows = List.copyOf(rows);
    }

    /**
     * One system's figures; for a failed system only {@code system} and {@code failure} are set.
     *
     * @param system              its name
     * @param failure             why it has no figures, or null
     * @param bestThroughput      highest throughput of its sweep (ops/s)
     * @param bestOutstanding     the level (outstanding per connection) of that throughput
     * @param bestP50Us           p50 at that level
     * @param bestP99Us           p99 at that level
     * @param cpuUsPerCommand     CPU microseconds per command at that level, all processes
     * @param atTarget            highest throughput with p99 within the target, if a level met it
     * @param ratioBest           Parallax's best throughput over this one's, if Parallax was swept
     * @param ratioAtTarget       the same at the p99 target, if both met it
     * @param serverCpuUsPerCommand CPU microseconds per command of each server process at that level
     * @param bytesPerCommand     bytes sent per command by each server process at that level (to peers
     *                            and clients), empty if the system does not count them
     * @param traffic             peer bytes sent and bytes delivered per replica at that level (the
     *                            efficiency metric), {@link BenchResult.Traffic#NONE} if not counted
     */
    public record Row(String system, String failure, double bestThroughput, int bestOutstanding, long bestP50Us,
                      long bestP99Us, double cpuUsPerCommand, OptionalDouble atTarget, OptionalDouble ratioBest,
                      OptionalDouble ratioAtTarget, Map<String, Double> serverCpuUsPerCommand,
                      Map<String, Double> bytesPerCommand, BenchResult.Traffic traffic) {
        /** Copies the maps, keeping their order. */
        public Row {
            serverCpuUsPerCommand = Collections.unmodifiableMap(new LinkedHashMap<>(serverCpuUsPerCommand));
            bytesPerCommand = Collections.unmodifiableMap(new LinkedHashMap<>(bytesPerCommand));
            traffic = traffic == null ? BenchResult.Traffic.NONE : traffic;
        }

        /** True if the system has no figures. */
        public boolean failed() {
            return failure != null;
        }

        /** The busiest server's CPU per command over the idlest's (1.0 = even), if two or more were measured. */
        public OptionalDouble cpuMaxOverMin() {
            return BenchResult.maxOverMin(serverCpuUsPerCommand);
        }

        /** The most sending server's bytes per command over the least's, if counted for two or more. */
        public OptionalDouble bytesMaxOverMin() {
            return BenchResult.maxOverMin(bytesPerCommand);
        }
    }

    /**
     * The table of {@code outcomes} at {@code commandBytes}, with the equal-latency column at
     * {@code p99TargetUs}.
     */
    public static ComparisonTable of(int commandBytes, List<SystemOutcome> outcomes, long p99TargetUs) {
        Optional<SweepResult> ref = outcomes.stream().map(SystemOutcome::sweep)
                .filter(s -> s != null && s.system().startsWith("parallax"))
                .max(Comparator.comparingDouble(s -> s.best().throughput()));
        OptionalDouble refBest = ref.map(s -> OptionalDouble.of(s.best().throughput())).orElse(OptionalDouble.empty());
        OptionalDouble refTarget = ref.map(s -> atTarget(s, p99TargetUs)).orElse(OptionalDouble.empty());
        List<Row> rows = new ArrayList<>();
        for (SystemOutcome o : outcomes) {
            if (o.sweep() == null) {
                rows.add(new Row(o.system(), o.failure(), 0, 0, 0, 0, 0, OptionalDouble.empty(), OptionalDouble.empty(),
                        OptionalDouble.empty(), Map.of(), Map.of(), BenchResult.Traffic.NONE));
                continue;
            }
            SweepPoint best = o.sweep().best();
            OptionalDouble target = atTarget(o.sweep(), p99TargetUs);
            rows.add(new Row(o.system(), null, best.throughput(), best.outstanding(), best.p50Us(), best.p99Us(),
                    best.result().cpuUsPerCommand(), target, ratio(refBest, OptionalDouble.of(best.throughput())),
                    ratio(refTarget, target), best.result().serverCpuUsPerCommand(), best.result().bytesPerCommand(),
                    best.result().traffic()));
        }
        return new ComparisonTable(commandBytes, p99TargetUs, ref.map(SweepResult::system), rows);
    }

    /** The row of {@code system}, if it is in the table. */
    public Optional<Row> row(String system) {
        return rows.stream().filter(r -> r.system().equals(system)).findFirst();
    }

    private static OptionalDouble atTarget(SweepResult s, long p99TargetUs) {
        return s.bestWithin(p99TargetUs).map(p -> OptionalDouble.of(p.throughput())).orElse(OptionalDouble.empty());
    }

    private static OptionalDouble ratio(OptionalDouble numerator, OptionalDouble denominator) {
        if (numerator.isEmpty() || denominator.isEmpty() || denominator.getAsDouble() <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(numerator.getAsDouble() / denominator.getAsDouble());
    }
}
