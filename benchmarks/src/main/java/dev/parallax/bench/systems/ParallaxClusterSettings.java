package dev.parallax.bench.systems;

import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.examples.cli.ClusterFile;
import dev.parallax.examples.cli.Executions;
import dev.parallax.examples.cli.Orderings;
import dev.parallax.examples.cli.ProcessCluster;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The cluster-file settings a {@link ParallaxSystem} writes for its replicas, and how its results
 * describe them: the acceptor log's sync policy, the throughput settings, the settings the system
 * fixes (e.g. {@code multiring.rings}), the runtime chosen on the command line ({@code --ordering},
 * {@code --execution}, {@code --execution-threads}, {@code --threads}) under the ordering and
 * executor the system fixes, and the experiment settings of {@link #PROPS_PROPERTY}.
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
record ParallaxClusterSettings(String sync, Orderings fixed, int replicas, Map<String, String> fixedSettings,
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
    private static final List<String> RUNTIME_KEYS = List.of(Orderings.KEY, Executions.KEY, "execution.threads", "threads");

    /**
     * @throws IllegalArgumentException if the sync policy or the cluster size is out of range, or a
     *                                  runtime key is not a runtime setting
     */
    ParallaxClusterSettings {
        if (!List.of("none", "every-batch", "memory").contains(sync)) {
            throw new IllegalArgumentException("sync must be none, every-batch or memory, not " + sync);
        }
        if (replicas < 1 || replicas > 9) {
            throw new IllegalArgumentException("replicas must be 1..9, not " + replicas);
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
        if (fixed == null && fixedRuntime.isEmpty()) {
            return runtime;
        }
        Map<String, String> r = new LinkedHashMap<>(runtime);
        if (fixed != null) {
            r.put(Orderings.KEY, fixed.configName());
        }
        r.putAll(fixedRuntime);
        return r;
    }

    /** Whether the replicas run the store partitioned by S-SMR ({@link ParallaxSystem#ssmr}). */
    boolean partitioned() {
        return Executions.S_SMR.configName().equals(effectiveRuntime().get(Executions.KEY));
    }

    /**
     * The cluster-file settings for a run in {@code workDir} (durable state under
     * {@code workDir/data}): the sync policy, the throughput settings, the fixed settings, the
     * runtime (fixed parts winning) and {@link #PROPS_PROPERTY}'s; {@link ProcessCluster} adds the
     * members, ports and TLS keys.
     */
    Properties properties(Path workDir) {
        boolean durable = !sync.equals("memory");
        Properties props = ProcessCluster.localDefaults(durable ? workDir.resolve("data") : null, 100_000);
        if (durable) {
            props.setProperty("log.sync", sync);
        }
        props.putAll(THROUGHPUT_SETTINGS);
        props.putAll(fixedSettings);
        props.putAll(effectiveRuntime());
        putExperimentSettings(props);
        return props;
    }

    /** Writes {@link #PROPS_PROPERTY}'s {@code key=value,key=value} settings (if any) over {@code props}. */
    static void putExperimentSettings(Properties props) {
        String extra = System.getProperty(PROPS_PROPERTY, "");
        for (String kv : extra.split(",")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                props.setProperty(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
    }

    /**
     * The settings as the results list them, one line each, with {@code tls} as the TLS setting and
     * {@code jvm} as the replicas' JVM options.
     *
     * @throws IllegalArgumentException if the cluster file would be refused, naming the key
     */
    Map<String, String> describe(boolean tls, List<String> jvm) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("log.sync", sync.equals("memory") ? "no log" : sync);
        s.put("replicas", Integer.toString(replicas));
        s.put("client.io.threads", "1 per replica");
        s.put("tls", tls ? "mutual TLS between replicas, TLS on client ports (JDK provider, EC P-256)" : "off");
        THROUGHPUT_SETTINGS.forEach(s::put);
        fixedSettings.forEach(s::put);
        Map<String, String> runtime = effectiveRuntime();
        s.put(Orderings.KEY, runtime.getOrDefault(Orderings.KEY, Orderings.DEFAULT.configName()));
        Executions execution = Executions.parse(runtime.getOrDefault(Executions.KEY, Executions.DEFAULT.configName()));
        // P-SMR's default is one worker per group (ClusterFile.executionThreads), the others' a fixed count.
        String defaultWorkers = Integer.toString(execution.oneWorkerPerGroup() ? orderingGroups()
                : ClusterFile.DEFAULT_EXECUTION_THREADS);
        s.put(Executions.KEY, execution.configName() + (execution.parallel() ? ", " + runtime.getOrDefault("execution.threads",
                defaultWorkers) + " workers" + (execution.oneWorkerPerGroup() ? ", one per group" : "") : ""));
        ThreadPlacement threads = ThreadPlacement.parse(runtime.getOrDefault("threads", ThreadPlacement.AUTO.configName()));
        int cores = Runtime.getRuntime().availableProcessors();
        s.put("threads", threads.configName() + (threads == ThreadPlacement.AUTO
                ? " (" + threads.resolve(cores).configName() + " with " + cores + " cores)" : ""));
        if (partitioned()) {
            s.put("partitions", (replicas / 3) + " (3 replicas each: partition p = replicas 3p..3p+2; KvRouter(P) by key)");
        }
        s.put("jvm", String.join(" ", jvm));
        return s;
    }

    /**
     * The groups of the ordering the replicas run, as their cluster file sets them
     * ({@link ClusterFile#orderingGroups()}: {@code multiring.rings}, {@code multicast.groups}, else 1),
     * read from {@link #properties} without the executor keys (checked when the cluster starts).
     *
     * @throws IllegalArgumentException if the cluster file would be refused, naming the key
     */
    private int orderingGroups() {
        Properties props = properties(Path.of("work"));
        props.remove(Executions.KEY);
        props.remove("execution.threads");
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < replicas; i++) {
            members.append(i == 0 ? "" : ",").append(i).append("=127.0.0.1:").append(7000 + i);
        }
        props.setProperty("members", members.toString());
        return ClusterFile.of(props).orderingGroups();
    }
}
