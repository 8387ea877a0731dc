package dev.parallax.bench.systems;

import dev.parallax.bench.profile.StageSampler;
import dev.parallax.bench.profile.ThreadCpu;
import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.examples.cli.ClusterFile;
import dev.parallax.examples.cli.Executions;
import dev.parallax.examples.cli.KvRouting;
import dev.parallax.examples.cli.Orderings;
import dev.parallax.examples.cli.ProcessCluster;
import dev.parallax.examples.cli.RuntimeOptions;
import dev.parallax.paxos.multicast.MulticastOrdering;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Parallax: three (or {@link #replicas}) {@code parallax replica} JVMs running the key-value example, driven through
 * {@link SmrClient}s sharing two client event loops. The acceptor log's sync policy is the
 * variable: {@code none} and {@code every-batch} keep a Chronicle log ({@code none} leaves flushing
 * to the OS), {@code memory} keeps no log at all. The ordering protocol, executor and thread
 * placement are the cluster file's defaults unless {@link #runtime} chose others
 * ({@code ./parallax bench --ordering/--execution/--threads}). With {@link #tls} ({@code --tls}) the
 * replicas run mutual TLS between them and TLS on their client ports, with throwaway certificates
 * generated into the work directory, and the clients talk TLS: the system is then named
 * {@code parallax-<sync>-tls}, so a comparison shows both. A system made with a fixed ordering
 * ({@code parallax-spaxos-none}: S-Paxos, seed 002; {@code parallax-uring-none},
 * {@code parallax-mring-none}: Ring Paxos, seed 003 ch. 3; {@code parallax-multiring-<k>}: Multi-Ring
 * Paxos over k M-Ring rings, ch. 5, made by {@link #multiRing}) runs it whatever {@code --ordering} says;
 * {@code parallax-psmr-<k>} ({@link #psmr}) also fixes the executor: P-SMR (ch. 6) with one worker per
 * ring, whatever {@code --execution} and {@code --execution-threads} say. {@code parallax-multicast-<k>}
 * ({@link #multicast}) runs the reference multicast (one Multi-Paxos instance per group and a global
 * one, {@code ordering=multicast}) over k groups, {@code parallax-psmr-multicast-<k>}
 * ({@link #psmrMulticast}) P-SMR over it: the correctness baseline next to the Multi-Ring ones.
 * {@code parallax-ssmr-<P>} ({@link #ssmr}) splits the store into P partitions of three replicas
 * under S-SMR (seed 004), its clients sending each command to a replica of a partition it involves.
 * With an ordering that orders by group (multi-ring, multicast) the clients address each command
 * by key ({@link KvRouting}).
 * Connections are spread over the replicas ({@link #connect}); {@link #bytesSent} counts what each
 * replica sends to its peers and its clients, for the per-replica balance columns, and
 * {@link #peerBytesSent} and {@link #deliveredBytes} feed the efficiency metric (seed 003 (Ring
 * Paxos) §3.1 ¶2).
 */
public final class ParallaxSystem implements BenchSystem {
    /**
     * System property naming a directory: when set, every replica records a JFR profile there
     * (one {@code .jfr} file per replica process, written when it exits).
     */
    public static final String JFR_PROPERTY = "parallax.bench.jfr";
    /** System property with extra cluster-file settings for experiments: {@code key=value,key=value}. */
    public static final String PROPS_PROPERTY = "parallax.bench.props";
    private static final List<String> RUNTIME_KEYS = List.of(Orderings.KEY, Executions.KEY, "execution.threads", "threads");
    /**
     * Cluster-file settings for throughput (docs/benchmarks.md): natural batching — a partial batch
     * is proposed (Multi-Paxos, Ring Paxos) or disseminated (S-Paxos) at once only when nothing is
     * in flight, and batches grow to 16 KiB under load (Ring Paxos: to 8000 bytes, one M-Ring
     * datagram, seed 003 §3.5.2). {@link VolerySystem} writes them too.
     */
    static final Map<String, String> THROUGHPUT_SETTINGS = Map.of("paxos.eager.below", "1",
            "paxos.batch.bytes", "16384", "spaxos.eager.below", "1", "spaxos.batch.bytes", "16384",
            "ring.eager.below", "1", "ring.batch.bytes", "8000");

    private final String sync;
    /** Cluster-file settings this system always writes (over the throughput ones), e.g. {@code multiring.rings}. */
    private final Map<String, String> fixedSettings;
    /** The name given by a factory such as {@link #multiRing}, or null for the name made from the fields. */
    private final String fixedName;
    /** The ordering this system always runs, whatever {@link #runtime} says, or null for the runtime's (default) one. */
    private final Orderings fixed;
    /** Runtime settings this system always writes over {@link #runtime}'s besides the ordering, e.g. {@code execution}. */
    private final Map<String, String> fixedRuntime;
    private Map<String, String> runtime = Map.of();
    private boolean tls;
    private final List<SmrClient> clients = new ArrayList<>();
    /** The clients of an {@link #ssmr} system, each owning one client per partition. */
    private final List<PartitionedInvoker> partitionedClients = new ArrayList<>();
    private ProcessCluster cluster;
    private NioEventLoopGroup group;
    private StageSampler sampler;
    private static final List<String> HEALTH_METERS = List.of("parallax_paxos_view_changes_total",
            "parallax_commands_duplicate_total", "parallax_commands_executed_total", "parallax_protocol_decided_total",
            "parallax_protocol_inbound_dropped_total", "parallax_net_dropped_total");
    /** Bytes a replica sends: to its peers (all channels) and to its clients. */
    static final List<String> BYTES_METERS = List.of("parallax_net_bytes_sent_total", "parallax_client_bytes_sent_total");
    /** What a replica sends to its peers: every replica-port channel and every datagram group. */
    static final List<String> PEER_BYTES_METERS = List.of("parallax_net_bytes_sent_total",
            "parallax_net_datagram_bytes_sent_total");
    /** Bytes of decided values a replica handed to its state machine. */
    static final List<String> DELIVERED_METERS = List.of("parallax_protocol_delivered_bytes_total");
    private final int replicas;
    private final ThreadCpu[] threadsBefore;
    private Thread samplerThread;
    private volatile String samplerError;
    private int sampled;

    /** @param sync {@code none}, {@code every-batch} or {@code memory} */
    public ParallaxSystem(String sync) {
        this(sync, null);
    }

    /**
     * A system that always runs the ordering {@code fixed} (it wins over {@code --ordering}), named
     * {@code parallax-<ordering without dashes>-<sync>}, e.g. {@code parallax-spaxos-none}.
     *
     * @param sync  {@code none}, {@code every-batch} or {@code memory}
     * @param fixed the ordering protocol, or null for the runtime settings' (default Multi-Paxos)
     */
    public ParallaxSystem(String sync, Orderings fixed) {
        this(sync, fixed, 3);
    }

    /**
     * A system of {@code replicas} replica JVMs; with other than three its name carries
     * {@code n<replicas>-} before the sync, e.g. {@code parallax-uring-n5-none}.
     *
     * @param sync     {@code none}, {@code every-batch} or {@code memory}
     * @param fixed    the ordering protocol, or null for the runtime settings' (default Multi-Paxos)
     * @param replicas the cluster size, 1..9
     */
    public ParallaxSystem(String sync, Orderings fixed, int replicas) {
        this(sync, fixed, replicas, Map.of(), null, Map.of());
    }

    private ParallaxSystem(String sync, Orderings fixed, int replicas, Map<String, String> fixedSettings, String fixedName,
                           Map<String, String> fixedRuntime) {
        if (!List.of("none", "every-batch", "memory").contains(sync)) {
            throw new IllegalArgumentException("sync must be none, every-batch or memory, not " + sync);
        }
        if (replicas < 1 || replicas > 9) {
            throw new IllegalArgumentException("replicas must be 1..9, not " + replicas);
        }
        this.sync = sync;
        this.fixed = fixed;
        this.replicas = replicas;
        this.fixedSettings = Map.copyOf(fixedSettings);
        this.fixedName = fixedName;
        this.fixedRuntime = Map.copyOf(fixedRuntime);
        this.threadsBefore = new ThreadCpu[replicas];
    }

    /**
     * {@code parallax-multiring-<rings>}: Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR)
     * ch. 5) over {@code rings} M-Ring rings (plus the global ring) at three replicas, acceptor log
     * {@code none} (as {@code parallax-mring-none}), the ring defaults of a multi-ring cluster
     * (λ = 20000/s, Δ = 5 ms, M = 1) and the clients routing by key over the rings.
     *
     * @param rings k, 1..63
     */
    public static ParallaxSystem multiRing(int rings) {
        checkRings(rings);
        return new ParallaxSystem("none", Orderings.MULTI_RING, 3, Map.of("multiring.rings", Integer.toString(rings)),
                "parallax-multiring-" + rings, Map.of());
    }

    /**
     * {@code parallax-psmr-<rings>}: {@link #multiRing(int) parallax-multiring-<rings>} with P-SMR
     * execution (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6, {@code execution=p-smr}) over
     * {@code rings} workers, one per ring; the replicas' store is partitioned by the same groups
     * ({@link KvRouting#stateMachine}) and the clients route by key over them. The executor and its
     * worker count win over {@code --execution} and {@code --execution-threads}.
     *
     * @param rings k, 1..63: the rings, the groups and the workers
     */
    public static ParallaxSystem psmr(int rings) {
        checkRings(rings);
        return new ParallaxSystem("none", Orderings.MULTI_RING, 3, Map.of("multiring.rings", Integer.toString(rings)),
                "parallax-psmr-" + rings, Map.of(Executions.KEY, Executions.P_SMR.configName(),
                        "execution.threads", Integer.toString(rings)));
    }

    /**
     * {@code parallax-multicast-<groups>}: the reference atomic multicast ({@code ordering=multicast},
     * seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 with Multi-Paxos streams) over {@code groups}
     * groups at three replicas, acceptor log {@code none}, every stream with the Multi-Paxos
     * throughput settings, sequential execution unless {@code --execution} says otherwise, and the
     * clients routing by key over the groups; the baseline of {@link #multiRing(int)}.
     *
     * @param groups k, 1..16 ({@code multicast.groups})
     */
    public static ParallaxSystem multicast(int groups) {
        checkMulticastGroups(groups);
        return new ParallaxSystem("none", Orderings.MULTICAST, 3, Map.of(ClusterFile.MULTICAST_GROUPS_KEY, Integer.toString(groups)),
                "parallax-multicast-" + groups, Map.of());
    }

    /**
     * {@code parallax-psmr-multicast-<groups>}: {@link #multicast(int) parallax-multicast-<groups>}
     * with P-SMR execution (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6, {@code execution=p-smr})
     * over {@code groups} workers, one per group; the replicas' store is partitioned by the same
     * groups and the clients route by key over them. The executor and its worker count win over
     * {@code --execution} and {@code --execution-threads}; compare with {@link #psmr(int)}.
     *
     * @param groups k, 1..16: the groups and the workers
     */
    public static ParallaxSystem psmrMulticast(int groups) {
        checkMulticastGroups(groups);
        return new ParallaxSystem("none", Orderings.MULTICAST, 3, Map.of(ClusterFile.MULTICAST_GROUPS_KEY, Integer.toString(groups)),
                "parallax-psmr-multicast-" + groups, Map.of(Executions.KEY, Executions.P_SMR.configName(),
                        "execution.threads", Integer.toString(groups)));
    }

    /**
     * {@code parallax-ssmr-<partitions>}: the key-value store split by key under S-SMR (seed 004
     * (S-SMR) §IV, {@code execution=s-smr}): {@code partitions} partitions of three replica JVMs
     * each (partition p = replicas 3p..3p+2, a {@code KvPartition} each), ordered by Multi-Ring
     * Paxos with one U-Ring ring per partition over its replicas and the global ring over all
     * ({@code multiring.kind=u-ring}: M-Ring needs a cluster of odd size, as {@code volery-<P>}),
     * acceptor log {@code none}. Each client is a {@code PartitionedInvoker} over one client per
     * partition with {@code KvRouter} as the oracle ({@link KvRouting#partitionedInvoker}). The
     * 3P JVMs share the heap of a three-server system (as {@code volery-<P>}). The executor wins
     * over {@code --execution}; {@code --execution-threads} does not apply.
     *
     * @param partitions P, 1..3 (at most nine replica JVMs)
     */
    public static ParallaxSystem ssmr(int partitions) {
        if (partitions < 1 || partitions > 3) {
            throw new IllegalArgumentException("partitions must be 1..3 (3 replicas each, at most 9), not " + partitions);
        }
        return new ParallaxSystem("none", Orderings.MULTI_RING, 3 * partitions, Map.of("multiring.rings",
                Integer.toString(partitions), "multiring.kind", "u-ring"), "parallax-ssmr-" + partitions,
                Map.of(Executions.KEY, Executions.S_SMR.configName()));
    }

    /** Whether this system runs the store partitioned by S-SMR ({@link #ssmr}). */
    private boolean partitioned() {
        return Executions.S_SMR.configName().equals(effectiveRuntime().get(Executions.KEY));
    }

    /**
     * The replica JVM options: {@link ServerJvm#options()}, or for {@link #ssmr} the heap of three
     * servers shared by the 3P JVMs (as {@link VolerySystem}). Package-private for tests.
     */
    List<String> replicaJvm() {
        return partitioned() ? ServerJvm.options(Math.max(256, VolerySystem.TOTAL_HEAP_MIB / replicas)) : ServerJvm.options();
    }

    private static void checkMulticastGroups(int groups) {
        if (groups < 1 || groups > MulticastOrdering.MAX_GROUPS) {
            throw new IllegalArgumentException("groups must be 1.." + MulticastOrdering.MAX_GROUPS + ", not " + groups);
        }
    }

    private static void checkRings(int rings) {
        if (rings < 1 || rings > dev.parallax.core.GroupSet.MAX_GROUP) {
            throw new IllegalArgumentException("rings must be 1.." + dev.parallax.core.GroupSet.MAX_GROUP + ", not " + rings);
        }
    }

    /**
     * {@code parallax-multiring-2-<suffix>}: {@link #multiRing(int) parallax-multiring-2} with
     * {@code settings} written over the multi-ring defaults — the Δ, M and λ ablation of seed 003
     * (Ring Paxos / Multi-Ring / P-SMR) §5.4.4-5.4.6 (docs/benchmarks.md, issue 15), e.g.
     * {@code ring.delta.ms=1}, {@code multiring.m=8}, {@code ring.lambda=200}.
     *
     * @param suffix   the name's last part, e.g. {@code d1}
     * @param settings cluster-file keys and values
     */
    public static ParallaxSystem multiRingVariant(String suffix, Map<String, String> settings) {
        Map<String, String> all = new java.util.HashMap<>(settings);
        all.put("multiring.rings", "2");
        return new ParallaxSystem("none", Orderings.MULTI_RING, 3, all, "parallax-multiring-2-" + suffix, Map.of());
    }

    /** The number of replica JVMs. */
    public int replicas() {
        return replicas;
    }

    /**
     * The runtime settings with the fixed ordering, if any, over {@code --ordering}, and the fixed
     * executor settings, if any, over {@code --execution} and {@code --execution-threads}.
     */
    private Map<String, String> effectiveRuntime() {
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

    /**
     * Cluster-file settings that choose the runtime ({@code ordering}, {@code execution},
     * {@code execution.threads}, {@code threads}, as {@link RuntimeOptions#clusterSettings()} gives
     * them), written into the cluster file this system generates; call before {@link #start}.
     *
     * @throws IllegalArgumentException if a key is not one of those four
     */
    public ParallaxSystem runtime(Map<String, String> clusterSettings) {
        for (String key : clusterSettings.keySet()) {
            if (!RUNTIME_KEYS.contains(key)) {
                throw new IllegalArgumentException("not a runtime setting: " + key + "; runtime settings are " + RUNTIME_KEYS);
            }
        }
        this.runtime = Map.copyOf(clusterSettings);
        return this;
    }

    /** Runs the cluster and its clients with TLS (see the class comment); call before {@link #start}. */
    public ParallaxSystem tls(boolean on) {
        this.tls = on;
        return this;
    }

    @Override
    public String name() {
        if (fixedName != null) {
            return fixedName + (tls ? "-tls" : "");
        }
        return "parallax-" + (fixed == null ? "" : fixed.configName().replace("-", "") + "-")
                + (replicas == 3 ? "" : "n" + replicas + "-") + sync + (tls ? "-tls" : "");
    }

    @Override
    public Map<String, String> settings() {
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
        s.put("jvm", String.join(" ", replicaJvm()));
        return s;
    }

    /**
     * The cluster-file settings this system writes for a run in {@code workDir} (durable state
     * under {@code workDir/data}): the sync policy, the throughput settings, the fixed settings,
     * the runtime (fixed parts winning) and {@link #PROPS_PROPERTY}'s; {@link ProcessCluster} adds
     * the members, ports and TLS keys. Package-private for tests.
     */
    Properties clusterProperties(Path workDir) {
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
     * The groups of the ordering this system runs, as its cluster file sets them
     * ({@link ClusterFile#orderingGroups()}: {@code multiring.rings}, {@code multicast.groups}, else 1),
     * read from {@link #clusterProperties} without the executor keys (checked when the cluster starts).
     *
     * @throws IllegalArgumentException if the cluster file would be refused, naming the key
     */
    private int orderingGroups() {
        Properties props = clusterProperties(Path.of("work"));
        props.remove(Executions.KEY);
        props.remove("execution.threads");
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < replicas; i++) {
            members.append(i == 0 ? "" : ",").append(i).append("=127.0.0.1:").append(7000 + i);
        }
        props.setProperty("members", members.toString());
        return ClusterFile.of(props).orderingGroups();
    }

    @Override
    public void start(Path workDir, Duration timeout) throws Exception {
        Properties props = clusterProperties(workDir);
        List<String> jvm = new ArrayList<>(replicaJvm());
        jvm.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        String jfr = System.getProperty(JFR_PROPERTY);
        if (jfr != null) {
            java.nio.file.Files.createDirectories(Path.of(jfr));
            jvm.add("-XX:StartFlightRecording=settings=profile,filename=" + Path.of(jfr).toAbsolutePath() + "/");
        }
        cluster = new ProcessCluster(workDir, replicas, props, false, jvm, tls).replicaArgs("--metrics-port", "0");
        cluster.startAll(timeout);
        group = new NioEventLoopGroup(2, new DefaultThreadFactory("bench-client", true));
    }

    @Override
    public Map<String, Long> serverPids() {
        Map<String, Long> pids = new LinkedHashMap<>();
        for (int i = 0; i < replicas; i++) {
            pids.put("replica-" + i, cluster.pid(i));
        }
        return pids;
    }

    /**
     * A client that talks to replica {@code k mod replicas} first, {@code k} counting the
     * connections opened: the load is spread over the replicas. With S-Paxos and Ring Paxos each
     * replica serves its own clients; with Multi-Paxos each client is redirected to the leader once.
     * With Multi-Ring or the reference multicast the client addresses each command by key ({@link KvRouting}).
     */
    @Override
    public CommandInvoker connect(int maxOutstanding) {
        if (partitioned()) {
            // S-SMR: one client per partition, starting at replica k mod replicas for its own partition.
            PartitionedInvoker p = KvRouting.partitionedInvoker(cluster.clusterFile(), (clients.size() + partitionedClients.size())
                    % replicas, b -> b.eventLoopGroup(group).maxOutstanding(Math.max(1, maxOutstanding))
                    .invokeTimeout(Duration.ofSeconds(30)));
            partitionedClients.add(p);
            return p;
        }
        SmrClient c = SmrClient.connect(cluster.clientConfig().startAt(clients.size() % replicas).eventLoopGroup(group)
                .maxOutstanding(Math.max(1, maxOutstanding)).invokeTimeout(Duration.ofSeconds(30)).build());
        clients.add(c);
        return KvRouting.invoker(cluster.clusterFile(), c);
    }

    /**
     * Starts sampling the ordering leader's stage meters once a second (busy ratio, queue depth);
     * the leader is the replica whose metrics say it leads ({@link ProcessCluster#leader()}),
     * replica 0 if none does.
     */
    @Override
    public void measurementStarted() {
        int leader = Math.max(0, cluster.leader());
        sampled = leader;
        sampler = new StageSampler(cluster.metricsPort(leader));
        for (int i = 0; i < replicas; i++) {
            threadsBefore[i] = ThreadCpu.snapshot(cluster.pid(i));
        }
        samplerThread = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    sampler.sample();
                    Thread.sleep(1000);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                samplerError = e.toString();
            }
        }, "stage-sampler");
        samplerThread.setDaemon(true);
        samplerThread.start();
    }

    /** The leader's per-stage busy ratio and queue depths and per-thread CPU over the measured period. */
    @Override
    public String measurementEnded() {
        if (samplerThread == null) {
            return "";
        }
        samplerThread.interrupt();
        try {
            samplerThread.join(5000);
            sampler.sample();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.io.IOException e) {
            samplerError = e.toString();
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(java.util.Locale.ROOT, "leader (replica %d) stages: busy ratio, input queue depth mean/max%n", sampled));
        for (StageSampler.StageLoad l : sampler.loads()) {
            sb.append(String.format(java.util.Locale.ROOT, "  %-22s busy %5.1f%%", l.stage(), 100 * l.busyRatio()));
            l.queueDepthMeanMax().forEach((q, mm) -> sb.append(String.format(java.util.Locale.ROOT, "  q%s %.0f/%.0f", q, mm[0], mm[1])));
            sb.append(System.lineSeparator());
        }
        if (samplerError != null) {
            sb.append("  (stage sampling failed: ").append(samplerError).append(')').append(System.lineSeparator());
        }
        for (int i = 0; i < replicas; i++) {
            sb.append(String.format("replica %d%s threads: CPU seconds user/sys, context switches voluntary/involuntary%n", i,
                    i == sampled ? " (leader)" : ""));
            for (ThreadCpu.Usage u : ThreadCpu.snapshot(cluster.pid(i)).since(threadsBefore[i])) {
                if (u.cpuSeconds() >= 0.01) {
                    sb.append(String.format(java.util.Locale.ROOT, "  %-22s %6.2f / %6.2f   %,9d / %,9d%n", u.threads(),
                            u.userSeconds(), u.systemSeconds(), u.voluntarySwitches(), u.involuntarySwitches()));
                }
            }
        }
        sb.append(replicaCounters(cluster));
        samplerThread = null;
        return sb.toString();
    }

    /**
     * Every replica's health counters since it started (view changes, duplicates answered from
     * sessions, commands executed, instances decided, messages dropped), one line per replica, from
     * its metrics endpoint. Blocks for the HTTP requests.
     */
    static String replicaCounters(ProcessCluster cluster) {
        StringBuilder sb = new StringBuilder();
        sb.append("replica counters since start (view changes, duplicates answered from sessions, commands executed, "
                + "instances decided, messages dropped inbound / at send queues):").append(System.lineSeparator());
        for (int i = 0; i < cluster.size(); i++) {
            try {
                Map<String, Double> t = StageSampler.totals(cluster.metricsPort(i), HEALTH_METERS);
                sb.append("  replica ").append(i).append(':');
                t.forEach((k, v) -> sb.append(' ').append(k.replace("parallax_", "")).append('=').append(String.format(
                        java.util.Locale.ROOT, "%.0f", v)));
                sb.append(System.lineSeparator());
            } catch (java.io.IOException e) {
                sb.append("  replica ").append(i).append(": metrics unavailable: ").append(e).append(System.lineSeparator());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return sb.toString();
    }

    /**
     * Per replica: bytes written to its peers (every channel of the replica port,
     * {@code parallax_net_bytes_sent_total}) and to its clients ({@code parallax_client_bytes_sent_total}),
     * scraped from its metrics endpoint; -1 for a replica that does not answer.
     */
    @Override
    public Map<String, Double> bytesSent() {
        return perReplica(BYTES_METERS);
    }

    /**
     * Per replica: bytes sent to its peers over the replica port ({@code parallax_net_bytes_sent_total})
     * and datagram groups ({@code parallax_net_datagram_bytes_sent_total}), client replies excluded.
     */
    @Override
    public Map<String, Double> peerBytesSent() {
        return perReplica(PEER_BYTES_METERS);
    }

    /** Per replica: bytes of decided values handed to the state machine ({@code parallax_protocol_delivered_bytes_total}). */
    @Override
    public Map<String, Double> deliveredBytes() {
        return perReplica(DELIVERED_METERS);
    }

    private Map<String, Double> perReplica(List<String> meters) {
        return perReplica(cluster, meters);
    }

    /**
     * The sum of {@code meters} scraped from the metrics endpoint of each replica of {@code cluster}
     * ({@code replica-<i>}); -1 for a replica that does not answer. Blocks for the HTTP requests.
     */
    static Map<String, Double> perReplica(ProcessCluster cluster, List<String> meters) {
        Map<String, Double> values = new LinkedHashMap<>();
        for (int i = 0; i < cluster.size(); i++) {
            double v;
            try {
                v = StageSampler.totals(cluster.metricsPort(i), meters).values().stream()
                        .mapToDouble(Double::doubleValue).sum();
            } catch (java.io.IOException e) {
                v = -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                v = -1;
            }
            values.put("replica-" + i, v);
        }
        return values;
    }

    @Override
    public void close() {
        clients.forEach(SmrClient::close);
        clients.clear();
        partitionedClients.forEach(PartitionedInvoker::close);
        partitionedClients.clear();
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
