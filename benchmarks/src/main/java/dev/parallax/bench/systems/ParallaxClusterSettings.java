package dev.parallax.bench.systems;

import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.core.runtime.OrderingRegistry;
import dev.parallax.core.stage.ThreadPlacement;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@link ParallaxSystem} chooses for its replicas, and how its results describe it: the
 * acceptor log's sync policy, the throughput settings, the settings the system fixes (e.g.
 * {@code multiring.rings}), the runtime chosen on the command line ({@code --ordering},
 * {@code --execution}, {@code --execution-threads}, {@code --threads}) under the ordering and
 * executor the system fixes, and the experiment settings of {@link #PROPS_PROPERTY}; all of it
 * becomes one {@link ParallaxSpec} ({@link #spec}).
 *
 * <p>An immutable value; safe from any thread; nothing here blocks.
 *
 * @param sync          {@code none}, {@code every-batch} or {@code memory}
 * @param fixed         the ordering this system always runs, whatever the runtime says, or null for
 *                      the runtime's (default) one
 * @param replicas      the cluster size, 1..9
 * @param fixedSettings cluster-file settings always written (over the throughput ones)
 * @param fixedRuntime  runtime settings always written over the runtime's besides the ordering,
 *                      e.g. {@code execution}
 * @param runtime       the runtime settings chosen on the command line
 */
record ParallaxClusterSettings(String sync, String fixed, int replicas, Map<String, String> fixedSettings,
                               Map<String, String> fixedRuntime, Map<String, String> runtime) {
    /** System property with extra cluster-file settings for experiments: {@code key=value,key=value}. */
    static final String PROPS_PROPERTY = "parallax.bench.props";
    /**
     * Cluster-file settings for throughput (docs/benchmarks.md): natural batching — a partial batch
     * is proposed (Multi-Paxos, Ring Paxos) or disseminated (S-Paxos) at once only when nothing is
     * in flight, and batches grow to 16 KiB under load (Ring Paxos: to 8000 bytes, one M-Ring
     * datagram, seed 003 §3.5.2). {@link VolerySystem} writes them too.
     */
    static final Map<String, String> THROUGHPUT_SETTINGS = Map.of("paxos.eager.below", "1",
            "paxos.batch.bytes", "16384", "spaxos.eager.below", "1", "spaxos.batch.bytes", "16384",
            "ring.eager.below", "1", "ring.batch.bytes", "8000");
    /** Decided instances between snapshots of a replica that keeps a log. */
    static final String SNAPSHOT_EVERY = "100000";
    private static final List<String> RUNTIME_KEYS = List.of(ClusterConfig.ORDERING.name(), ClusterConfig.EXECUTION.name(),
            ClusterConfig.EXECUTION_THREADS.name(), "threads");

    /**
     * @throws IllegalArgumentException if the sync policy or the cluster size is out of range, the
     *                                  fixed ordering is not registered, or a runtime key is not a
     *                                  runtime setting
     */
    ParallaxClusterSettings {
        if (!ParallaxSpec.LOG_SYNCS.contains(sync)) {
            throw new IllegalArgumentException("sync must be none, every-batch or memory, not " + sync);
        }
        if (replicas < 1 || replicas > 9) {
            throw new IllegalArgumentException("replicas must be 1..9, not " + replicas);
        }
        if (fixed != null) {
            OrderingRegistry.ordering(fixed);
        }
        for (String key : runtime.keySet()) {
            if (!RUNTIME_KEYS.contains(key)) {
                throw new IllegalArgumentException("not a runtime setting: " + key + "; runtime settings are " + RUNTIME_KEYS);
            }
        }
        fixedSettings = Map.copyOf(fixedSettings);
        fixedRuntime = Map.copyOf(fixedRuntime);
        runtime = Map.copyOf(runtime);
    }

    /**
     * These settings with {@code runtime} as the runtime ({@code ordering}, {@code execution},
     * {@code execution.threads}, {@code threads}).
     *
     * @throws IllegalArgumentException if a key is not one of those four
     */
    ParallaxClusterSettings withRuntime(Map<String, String> runtime) {
        return new ParallaxClusterSettings(sync, fixed, replicas, fixedSettings, fixedRuntime, runtime);
    }

    /**
     * The runtime settings with the fixed ordering, if any, over {@code --ordering}, and the fixed
     * executor settings, if any, over {@code --execution} and {@code --execution-threads}.
     */
    Map<String, String> effectiveRuntime() {
        Map<String, String> r = new LinkedHashMap<>(runtime);
        if (fixed != null) {
            r.put(ClusterConfig.ORDERING.name(), fixed);
        }
        r.putAll(fixedRuntime);
        return r;
    }

    /**
     * The spec of the replicas: the key-value store on {@link #replicas} replicas with the sync
     * policy ({@code memory}: no log, no data directory), one client event loop per replica, a
     * snapshot every {@value #SNAPSHOT_EVERY} instances when durable, the throughput settings, the
     * fixed settings, the runtime (fixed parts winning) and {@link #PROPS_PROPERTY}'s settings, with
     * TLS {@code tls}.
     *
     * @throws IllegalArgumentException naming the key if the runtime or the experiment settings make
     *                                  a combination the replicas refuse
     */
    ParallaxSpec spec(boolean tls) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("client.io.threads", "1");
        if (!sync.equals("memory")) {
            s.put("snapshot.every", SNAPSHOT_EVERY);
        }
        s.putAll(THROUGHPUT_SETTINGS);
        s.putAll(fixedSettings);
        return new ParallaxSpec(OrderingRegistry.DEFAULT_ORDERING, ParallaxSpec.SEQUENTIAL, 0, replicas, ParallaxSpec.KV, sync,
                tls, s).with(effectiveRuntime()).with(experimentSettings());
    }

    /** Whether the replicas run the store partitioned by S-SMR ({@link ParallaxSystem#ssmr}). */
    boolean partitioned() {
        return ParallaxSpec.S_SMR.equals(effectiveRuntime().get(ClusterConfig.EXECUTION.name()));
    }

    /** {@link #PROPS_PROPERTY}'s {@code key=value,key=value} settings, in order; empty if unset. */
    static Map<String, String> experimentSettings() {
        Map<String, String> props = new LinkedHashMap<>();
        for (String kv : System.getProperty(PROPS_PROPERTY, "").split(",")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                props.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return props;
    }

    /**
     * The settings as the results list them, one line each, with {@code tls} as the TLS setting and
     * {@code jvm} as the replicas' JVM options.
     *
     * @throws IllegalArgumentException if the replicas would refuse the spec, naming the key
     */
    Map<String, String> describe(boolean tls, List<String> jvm) {
        ParallaxSpec spec = spec(tls);
        Map<String, String> s = new LinkedHashMap<>();
        s.put("log.sync", sync.equals("memory") ? "no log" : sync);
        s.put("replicas", Integer.toString(replicas));
        s.put("client.io.threads", "1 per replica");
        s.put("tls", tls ? "mutual TLS between replicas, TLS on client ports (JDK provider, EC P-256)" : "off");
        THROUGHPUT_SETTINGS.forEach(s::put);
        fixedSettings.forEach(s::put);
        s.put(ClusterConfig.ORDERING.name(), spec.ordering());
        // P-SMR's default is one worker per group, the others' a fixed count.
        s.put(ClusterConfig.EXECUTION.name(), spec.execution() + (spec.parallel() ? ", " + spec.workers() + " workers"
                + (spec.oneWorkerPerGroup() ? ", one per group" : "") : ""));
        ThreadPlacement threads = ThreadPlacement.parse(spec.settings().getOrDefault("threads", ThreadPlacement.AUTO.configName()));
        int cores = Runtime.getRuntime().availableProcessors();
        s.put("threads", threads.configName() + (threads == ThreadPlacement.AUTO
                ? " (" + threads.resolve(cores).configName() + " with " + cores + " cores)" : ""));
        if (spec.partitioned()) {
            s.put("partitions", (replicas / 3) + " (3 replicas each: partition p = replicas 3p..3p+2; KvRouter(P) by key)");
        }
        s.put("jvm", String.join(" ", jvm));
        return s;
    }
}
