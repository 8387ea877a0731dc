package dev.parallax.bench.load;

import dev.parallax.core.client.CommandInvoker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs the same load at the levels of a {@link SweepPlan} on one started system, over the same
 * connections (opened for the plan's largest level), until the plan says stop. CPU is measured per
 * level over the given processes. Each level is a fresh {@link LoadGenerator} over the same
 * pre-encoded commands. Before the first level, an unmeasured load of the base's warm-up length
 * (at {@link #PRE_WARM_OUTSTANDING} in flight, or the plan's largest level if smaller) warms the
 * system and the load JVM up.
 *
 * <p>{@link #run} blocks the calling thread for the whole sweep; the listener is called on it.
 */
public final class Sweep {
    /** Hears a sweep's progress; called on the sweep's thread. */
    public interface Listener {
        /** One measured second of the level at {@code outstanding}. */
        void second(int outstanding, BenchResult.Second second);

        /** A level finished. */
        void point(SweepPoint point);
    }

    /** Outstanding per connection of the unmeasured load before the first level. */
    public static final int PRE_WARM_OUTSTANDING = 64;

    /**
     * Hooks around each level's measured period, for a system that reports on its internals
     * ({@code BenchSystem.measurementStarted/Ended}); called on the sweep's thread, must not block long.
     */
    public interface Probe {
        /** A probe that does nothing and reports nothing. */
        Probe NONE = new Probe() {
            @Override
            public void started() {
            }

            @Override
            public String ended() {
                return "";
            }
        };

        /** A level's measured period begins. */
        void started();

        /** A level's measured period ended: a report on it, or an empty string. */
        String ended();

        /**
         * Bytes each server process has sent so far (cumulative counters, by process name), read
         * just after {@link #started} and just before {@link #ended}; the level records the
         * differences ({@link BenchResult#bytesSent()}). Default: none counted.
         */
        default Map<String, Double> bytesSent() {
            return Map.of();
        }

        /**
         * Peer bytes sent and bytes delivered by each replica so far (cumulative), read with
         * {@link #bytesSent}; the level records the difference ({@link BenchResult#traffic()}).
         * Default: {@link BenchResult.Traffic#NONE}.
         */
        default BenchResult.Traffic traffic() {
            return BenchResult.Traffic.NONE;
        }
    }

    private final List<? extends CommandInvoker> connections;
    private final Map<String, Long> pids;
    private final Probe probe;
    private final Duration preWarm;

    /** A sweep without a probe; see {@link #Sweep(List, Map, Probe)}. */
    public Sweep(List<? extends CommandInvoker> connections, Map<String, Long> pids) {
        this(connections, pids, Probe.NONE);
    }

    /**
     * @param connections the connections every level uses (they must allow the plan's largest level in flight)
     * @param pids        processes whose CPU is measured (name to pid), the load JVM included if wanted
     * @param probe       called around each level's measured period; its report goes to the level's point
     */
    public Sweep(List<? extends CommandInvoker> connections, Map<String, Long> pids, Probe probe) {
        this(connections, pids, probe, null);
    }

    /**
     * As {@link #Sweep(List, Map, Probe)}, with the unmeasured load before the first level lasting
     * {@code preWarm} ({@code null}: the base's warm-up). JVM systems need 10-20 s of load on a
     * 2-core machine before C2 is done; less makes the first levels measure the compiler.
     */
    public Sweep(List<? extends CommandInvoker> connections, Map<String, Long> pids, Probe probe, Duration preWarm) {
        this.connections = List.copyOf(connections);
        this.pids = new LinkedHashMap<>(pids);
        this.probe = probe;
        this.preWarm = preWarm;
    }

    /**
     * Sweeps {@code base} (its outstanding count is replaced by each level's) over {@code plan}.
     *
     * @throws InterruptedException if interrupted
     */
    public SweepResult run(String system, LoadSpec base, SweepPlan plan, Listener listener) throws InterruptedException {
        List<CommandPool> pools = LoadGenerator.pools(base);
        Duration warmFor = preWarm != null ? preWarm : base.warmup();
        if (!warmFor.isZero()) {
            // The first levels carry too few commands to get the JIT through its compilations within
            // their warm-up; a moderate unmeasured load first makes level 1 measure the system, not C2.
            LoadSpec warm = new LoadSpec(base.connections(), Math.min(PRE_WARM_OUTSTANDING, plan.max()), base.commandBytes(),
                    base.readPercent(), base.keys(), Duration.ZERO, warmFor);
            new LoadGenerator(connections, warm, pools).run(system, s -> { });
        }
        List<SweepPoint> points = new ArrayList<>();
        String reason = "";
        for (int level : plan.levels()) {
            LoadSpec spec = base.withOutstanding(level);
            CpuMeter cpu = new CpuMeter(pids);
            String[] where = {""};
            List<Map<String, Double>> bytes = new ArrayList<>(2);
            List<BenchResult.Traffic> traffic = new ArrayList<>(2);
            BenchResult r = new LoadGenerator(connections, spec, pools)
                    .run(system, s -> listener.second(level, s), () -> {
                        cpu.start();
                        probe.started();
                        bytes.add(probe.bytesSent());
                        traffic.add(probe.traffic());
                    }, () -> {
                        cpu.stop();
                        bytes.add(probe.bytesSent());
                        traffic.add(probe.traffic());
                        where[0] = probe.ended();
                    })
                    .withCpuSeconds(cpu.spent())
                    .withBytesSent(bytes.size() == 2 ? difference(bytes.get(0), bytes.get(1)) : Map.of())
                    .withTraffic(traffic.size() == 2 ? traffic.get(1).since(traffic.get(0)) : BenchResult.Traffic.NONE);
            SweepPoint p = new SweepPoint(level, r, where[0]);
            points.add(p);
            listener.point(p);
            Optional<String> stop = plan.stopReason(points);
            if (stop.isPresent()) {
                reason = stop.get();
                break;
            }
        }
        return new SweepResult(system, base, points, reason);
    }

    /** {@code after - before} per name present in both; -1 where either could not be read (negative). */
    static Map<String, Double> difference(Map<String, Double> before, Map<String, Double> after) {
        Map<String, Double> d = new LinkedHashMap<>();
        before.forEach((name, b) -> {
            Double a = after.get(name);
            if (a != null) {
                d.put(name, b < 0 || a < 0 ? -1.0 : a - b);
            }
        });
        return d;
    }
}
