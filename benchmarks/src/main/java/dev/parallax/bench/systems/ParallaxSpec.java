package dev.parallax.bench.systems;

import dev.parallax.core.config.Settings;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.core.runtime.ExecutionRegistry;
import dev.parallax.core.runtime.OrderingProvider;
import dev.parallax.core.runtime.OrderingRegistry;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a benchmarked Parallax cluster runs, in the product's own terms: the cluster file's keys
 * (docs/operations.md "Configuration key reference": the tables {@code ClusterConfig},
 * {@code ReplicaKeys}, {@code PaxosKeys}, {@code RingKeys}, {@code MultiRingKeys} and
 * {@code ExamplesKeys}), which is the contract between the benchmarks and the replicas they start
 * with {@code parallax replica --config FILE} ({@link ReplicaCluster}). The spec fixes the ordering
 * protocol ({@code ordering}), the executor ({@code execution}, {@code execution.threads}), the
 * cluster size, the replicated service ({@code service}), the acceptor log ({@code log.sync}, or no
 * log at all), TLS, and any further {@code key=value} settings; {@link #clusterFile} renders them,
 * with what only the machine knows (members, ports, the data directory, the TLS files), as the
 * plain {@code key=value} text the replicas read.
 *
 * <p>Names are checked against the library's registries, not a list of its own: an ordering must
 * be registered in {@link OrderingRegistry}, an executor in {@link ExecutionRegistry} or be
 * {@value #S_SMR} (S-SMR, seed 004, whose executor the replica launcher builds itself for the
 * partitioned services). The checks across keys that a replica would refuse at start-up are made
 * here too, with the key named: {@value #P_SMR} needs an ordering with groups and as many workers
 * as groups, {@value #S_SMR} needs {@code ordering=multi-ring}, {@code service=volery} runs under
 * {@value #S_SMR} only. Every other key is checked by {@link ClusterConfig} when the file is
 * written ({@link ReplicaCluster}).
 *
 * <p>An immutable value; safe from any thread; nothing here blocks.
 *
 * @param ordering         the ordering protocol, a name of {@link OrderingRegistry#orderings()}
 * @param execution        the executor, a name of {@link ExecutionRegistry#executions()} or {@value #S_SMR}
 * @param executionThreads workers of a parallel executor ({@code execution.threads}), or 0 for the
 *                         cluster file's default (2; {@value #P_SMR}: one per group)
 * @param replicas         the cluster size, at least 1
 * @param service          the replicated service, {@value #KV} or {@value #VOLERY}
 * @param logSync          the acceptor log: {@code none} (a Chronicle log flushed by the OS),
 *                         {@code every-batch} (synced per batch) or {@code memory} (no log, no data
 *                         directory)
 * @param tls              mutual TLS between the replicas and TLS on their client ports
 * @param settings         further cluster-file keys and values (throughput settings, ring counts,
 *                         {@code threads}, ...), in the order they are written; none of the keys
 *                         the other components write
 */
public record ParallaxSpec(String ordering, String execution, int executionThreads, int replicas, String service,
                           String logSync, boolean tls, Map<String, String> settings) {
    /** The key-value store, the default service. */
    public static final String KV = "kv";
    /** Volery, the ZooKeeper service of seed 004 (S-SMR) §V-B. */
    public static final String VOLERY = "volery";
    /** The reference executor: one command at a time on the delivering thread; the default. */
    public static final String SEQUENTIAL = "sequential";
    /** P-SMR (seed 003 ch. 6): one worker per group of the ordering. */
    public static final String P_SMR = "p-smr";
    /** S-SMR (seed 004 §IV): the state split into partitions, one multi-ring ring each; built by the replica itself. */
    public static final String S_SMR = "s-smr";
    /** The ordering the replicas order by with S-SMR: one ring per partition and the global ring. */
    public static final String MULTI_RING = "multi-ring";
    /** The acceptor-log choices: {@code none}, {@code every-batch}, {@code memory} (no log). */
    public static final List<String> LOG_SYNCS = List.of("none", "every-batch", "memory");
    /** The keys the components write; {@link #settings} may not set them. */
    private static final Set<String> OWN_KEYS = Set.of(ClusterConfig.ORDERING.name(), ClusterConfig.EXECUTION.name(),
            ClusterConfig.EXECUTION_THREADS.name(), "service", "log.sync", "members", "data.dir");

    /**
     * @throws IllegalArgumentException naming the key and the accepted values if a name is not
     *                                  registered, a value is out of range, {@code settings} sets a
     *                                  key of another component, or the replicas would refuse the
     *                                  combination
     */
    public ParallaxSpec {
        OrderingRegistry.ordering(ordering); // "ordering must be one of ..."
        ordering = ordering.trim().toLowerCase(java.util.Locale.ROOT);
        execution = execution.trim().toLowerCase(java.util.Locale.ROOT);
        if (!executions().contains(execution)) {
            throw new IllegalArgumentException("execution must be one of " + String.join(", ", executions()) + "; got '"
                    + execution + "'");
        }
        if (executionThreads < 0) {
            throw new IllegalArgumentException("execution.threads must be >= 1 (or 0 for the default), got " + executionThreads);
        }
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1, not " + replicas);
        }
        if (!List.of(KV, VOLERY).contains(service)) {
            throw new IllegalArgumentException("service must be " + KV + " or " + VOLERY + ", not " + service);
        }
        if (!LOG_SYNCS.contains(logSync)) {
            throw new IllegalArgumentException("sync must be none, every-batch or memory, not " + logSync);
        }
        for (String key : settings.keySet()) {
            if (OWN_KEYS.contains(key) || key.startsWith("tls.")) {
                throw new IllegalArgumentException(key + " is not an extra setting: the spec's own fields write it");
            }
        }
        settings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
        checkAcrossKeys(ordering, execution, executionThreads, replicas, service, settings);
    }

    private static void checkAcrossKeys(String ordering, String execution, int threads, int replicas, String service,
                                        Map<String, String> settings) {
        if (P_SMR.equals(execution)) {
            Optional<String> groupsKey = OrderingRegistry.ordering(ordering).groupsKey();
            if (groupsKey.isEmpty()) {
                throw new IllegalArgumentException("execution=" + P_SMR + " needs an ordering with groups ("
                        + orderingsWithGroups() + "), got ordering=" + ordering);
            }
            int groups = threads == 0 ? 0 : groups(ordering, replicas, settings, false);
            if (threads != 0 && threads != groups) {
                throw new IllegalArgumentException("execution=" + P_SMR + " runs one worker per group: execution.threads="
                        + threads + " must equal " + groupsKey.get() + "=" + groups);
            }
        }
        if (S_SMR.equals(execution) && !MULTI_RING.equals(ordering)) {
            throw new IllegalArgumentException("execution=" + S_SMR + " needs ordering=" + MULTI_RING + ", got ordering=" + ordering);
        }
        if (VOLERY.equals(service) && !S_SMR.equals(execution)) {
            throw new IllegalArgumentException("service=" + VOLERY + " runs with execution=" + S_SMR + ", got execution=" + execution);
        }
    }

    /** A cluster of {@code replicas} running the key-value store: Multi-Paxos, sequential execution, log sync {@code none}. */
    public static ParallaxSpec of(int replicas) {
        return new ParallaxSpec(OrderingRegistry.DEFAULT_ORDERING, SEQUENTIAL, 0, replicas, KV, "none", false, Map.of());
    }

    /**
     * Every executor name a spec accepts: {@value #SEQUENTIAL} (the default) first, then the rest
     * of {@link ExecutionRegistry}'s, then {@value #S_SMR}.
     */
    public static List<String> executions() {
        List<String> names = new ArrayList<>(List.of(SEQUENTIAL));
        ExecutionRegistry.executions().keySet().stream().filter(n -> !n.equals(SEQUENTIAL)).forEach(names::add);
        if (!names.contains(S_SMR)) {
            names.add(S_SMR);
        }
        return List.copyOf(names);
    }

    /** Every ordering name a spec accepts: {@link OrderingRegistry}'s, the default ({@code multi-paxos}) first. */
    public static List<String> orderings() {
        List<String> names = new ArrayList<>(List.of(OrderingRegistry.DEFAULT_ORDERING));
        OrderingRegistry.orderings().keySet().stream().filter(n -> !names.contains(n)).forEach(names::add);
        return List.copyOf(names);
    }

    private static String orderingsWithGroups() {
        return String.join(" or ", OrderingRegistry.orderings().values().stream().filter(p -> p.groupsKey().isPresent())
                .map(OrderingProvider::name).toList());
    }

    /** This spec with ordering protocol {@code name}. */
    public ParallaxSpec withOrdering(String name) {
        return new ParallaxSpec(name, execution, executionThreads, replicas, service, logSync, tls, settings);
    }

    /** This spec with executor {@code name} on {@code threads} workers (0: the default). */
    public ParallaxSpec withExecution(String name, int threads) {
        return new ParallaxSpec(ordering, name, threads, replicas, service, logSync, tls, settings);
    }

    /** This spec with TLS {@code on} or off. */
    public ParallaxSpec withTls(boolean on) {
        return new ParallaxSpec(ordering, execution, executionThreads, replicas, service, logSync, on, settings);
    }

    /** This spec with {@code more} written over (or after) its settings. */
    public ParallaxSpec withSettings(Map<String, String> more) {
        Map<String, String> all = new LinkedHashMap<>(settings);
        all.putAll(more);
        return new ParallaxSpec(ordering, execution, executionThreads, replicas, service, logSync, tls, all);
    }

    /**
     * This spec with cluster-file {@code keys} written over it, each where it belongs:
     * {@code ordering}, {@code execution}, {@code execution.threads}, {@code service} and
     * {@code log.sync} to their fields, every other key to the {@link #settings} (the command
     * line's {@code --ordering} / {@code --execution} / {@code --threads}, an experiment's
     * {@code key=value} list).
     *
     * @throws IllegalArgumentException as the constructor, or if {@code execution.threads} is not a whole number
     */
    public ParallaxSpec with(Map<String, String> keys) {
        String o = ordering;
        String e = execution;
        int threads = executionThreads;
        String svc = service;
        String sync = logSync;
        Map<String, String> more = new LinkedHashMap<>(settings);
        for (Map.Entry<String, String> kv : keys.entrySet()) {
            String v = kv.getValue().trim();
            switch (kv.getKey()) {
                case "ordering" -> o = v;
                case "execution" -> e = v;
                case "execution.threads" -> threads = wholeNumber(v);
                case "service" -> svc = v;
                case "log.sync" -> sync = v;
                default -> more.put(kv.getKey(), v);
            }
        }
        return new ParallaxSpec(o, e, threads, replicas, svc, sync, tls, more);
    }

    private static int wholeNumber(String v) {
        try {
            int n = Integer.parseInt(v);
            if (n < 1) {
                throw new IllegalArgumentException("execution.threads must be >= 1, got " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("execution.threads is not a whole number: '" + v + "'");
        }
    }

    /** Whether the replicas keep an acceptor log and snapshots on disk (every {@link #logSync} but {@code memory}). */
    public boolean durable() {
        return !logSync.equals("memory");
    }

    /** Whether each replica holds one partition of the state ({@value #S_SMR}). */
    public boolean partitioned() {
        return S_SMR.equals(execution);
    }

    /** Whether the executor runs on {@code execution.threads} workers: all but {@value #SEQUENTIAL} and {@value #S_SMR}. */
    public boolean parallel() {
        return !SEQUENTIAL.equals(execution) && !partitioned();
    }

    /** Whether the executor runs one worker per group of the ordering ({@value #P_SMR}). */
    public boolean oneWorkerPerGroup() {
        return P_SMR.equals(execution);
    }

    /**
     * Whether the ordering orders commands by group (its provider has a groups key, e.g.
     * {@code multiring.rings}, {@code multicast.groups}), so that clients address each command by key.
     */
    public boolean routesByKey() {
        return OrderingRegistry.ordering(ordering).groupsKey().isPresent();
    }

    /** k, the groups the ordering orders commands by ({@link OrderingProvider#groups}); 1 with one stream. */
    public int groups() {
        return groups(ordering, replicas, settings, partitioned());
    }

    private static int groups(String ordering, int replicas, Map<String, String> settings, boolean partitioned) {
        return OrderingRegistry.ordering(ordering).groups(new OrderingProvider.Context(Settings.of(settings), replicas, partitioned));
    }

    /**
     * The workers of the executor: {@link #executionThreads} if set, else one per group for
     * {@value #P_SMR} and {@link ClusterConfig#DEFAULT_EXECUTION_THREADS} for the others (meaningful
     * when {@link #parallel}).
     */
    public int workers() {
        return executionThreads > 0 ? executionThreads : oneWorkerPerGroup() ? groups() : ClusterConfig.DEFAULT_EXECUTION_THREADS;
    }

    /**
     * The keys this spec writes, in order: {@code service}, {@code ordering}, {@code execution},
     * {@code execution.threads} (when set), {@code log.sync} (when {@link #durable}), then the
     * {@link #settings}.
     */
    public Map<String, String> keys() {
        Map<String, String> k = new LinkedHashMap<>();
        k.put("service", service);
        k.put(ClusterConfig.ORDERING.name(), ordering);
        k.put(ClusterConfig.EXECUTION.name(), execution);
        if (executionThreads > 0) {
            k.put(ClusterConfig.EXECUTION_THREADS.name(), Integer.toString(executionThreads));
        }
        if (durable()) {
            k.put("log.sync", logSync);
        }
        k.putAll(settings);
        return k;
    }

    /**
     * The cluster file, as {@code parallax replica --config} reads it: a comment line, then
     * {@link #keys()} and the {@code deployment}'s keys, one {@code key=value} a line (backslashes
     * escaped, as {@link java.util.Properties} reads them).
     *
     * @param deployment what the machine decides: {@code members} (required), {@code clients},
     *                   {@code data.dir} (required when {@link #durable}), the {@code tls.*} files
     *                   (required with {@link #tls}), ports of this machine ({@code mring.port}, ...)
     * @throws IllegalArgumentException if a required key is missing, the deployment sets a key of
     *                                  this spec, or a key or value spans lines
     */
    public String clusterFile(Map<String, String> deployment) {
        Map<String, String> keys = keys();
        for (String k : deployment.keySet()) {
            if (keys.containsKey(k)) {
                throw new IllegalArgumentException("the deployment sets " + k + ", a key of the spec");
            }
        }
        require(deployment, "members", "the cluster's members");
        if (durable()) {
            require(deployment, "data.dir", "log.sync=" + logSync + " keeps a log");
        }
        if (tls) {
            require(deployment, "tls.ca", "TLS is on");
        }
        StringBuilder text = new StringBuilder("# Parallax cluster (benchmarks: ParallaxSpec)\n");
        Map<String, String> all = new LinkedHashMap<>(keys);
        all.putAll(deployment);
        all.forEach((k, v) -> text.append(line(k, v)).append('\n'));
        return text.toString();
    }

    private static void require(Map<String, String> deployment, String key, String why) {
        if (!deployment.containsKey(key)) {
            throw new IllegalArgumentException("the deployment must set " + key + " (" + why + ")");
        }
    }

    private static String line(String key, String value) {
        if (key.isEmpty() || (key + value).contains("\n") || (key + value).contains("\r") || key.contains("=")
                || key.contains(":") || key.contains(" ")) {
            throw new IllegalArgumentException("not a cluster-file key and value: '" + key + "' = '" + value + "'");
        }
        String v = value.replace("\\", "\\\\");
        return key + "=" + (v.startsWith(" ") ? "\\" + v : v);
    }
}
