package dev.parallax.bench.load;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU seconds each of a set of processes spends between {@link #start} and {@link #stop}, from
 * {@link CpuSampler}. Owned by one thread at a time; the two calls may come from different threads
 * if they are ordered (the load generator calls them from its run thread).
 */
public final class CpuMeter {
    private final Map<String, Long> pids;
    private final Map<String, Double> before = new LinkedHashMap<>();
    private Map<String, Double> spent = Map.of();

    /** @param pids process name to operating-system pid */
    public CpuMeter(Map<String, Long> pids) {
        this.pids = Collections.unmodifiableMap(new LinkedHashMap<>(pids));
    }

    /** Samples every process now. */
    public void start() {
        pids.forEach((name, pid) -> before.put(name, CpuSampler.cpuSeconds(pid)));
    }

    /** Samples again; {@link #spent} then holds the differences (negative where a process could not be read). */
    public void stop() {
        Map<String, Double> m = new LinkedHashMap<>();
        before.forEach((name, b) -> {
            double now = CpuSampler.cpuSeconds(pids.get(name));
            m.put(name, b < 0 || now < 0 ? -1.0 : now - b);
        });
        spent = Collections.unmodifiableMap(m);
    }

    /** CPU seconds per process between the last {@link #start} and {@link #stop}. */
    public Map<String, Double> spent() {
        return spent;
    }
}
