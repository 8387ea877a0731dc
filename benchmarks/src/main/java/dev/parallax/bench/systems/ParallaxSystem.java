package dev.parallax.bench.systems;

import dev.parallax.examples.testbed.Testbed;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.examples.kv.KvRouter;
import dev.parallax.paxos.multicast.MulticastOrdering;
import dev.parallax.paxos.multicast.MulticastProvider;
import dev.parallax.ringpaxos.RingPaxos;
import dev.parallax.ringpaxos.multiring.MultiRingKeys;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Parallax as a benchmarked system: three (or {@link #replicas}) {@code parallax replica} JVMs
 * running the key-value example, driven through {@link SmrClient}s sharing two client event loops.
 *
 * <p><b>The spec.</b> What the replicas run is a {@link ParallaxSpec} ({@link #spec()}), rendered
 * into the cluster file they read (plain {@code key=value}, the keys of docs/operations.md
 * "Configuration key reference") and launched through the product's command line
 * ({@link ReplicaCluster}). Its parts:
 * <ul>
 *   <li>the ordering protocol ({@code ordering}, a name registered in {@code OrderingRegistry}):
 *       the system's fixed one if it has one, else {@code --ordering}, else Multi-Paxos;</li>
 *   <li>the executor ({@code execution}, {@code execution.threads}; a name registered in
 *       {@code ExecutionRegistry}, or {@code s-smr}): the system's fixed one if it has one, else
 *       {@code --execution} / {@code --execution-threads}, else sequential;</li>
 *   <li>the replica count and the service ({@code service=kv});</li>
 *   <li>the acceptor log, the variable of the plain systems: {@code none} and {@code every-batch}
 *       keep a Chronicle log under the work directory ({@code none} leaves flushing to the OS) with
 *       a snapshot every 100000 instances, {@code memory} keeps no log at all;</li>
 *   <li>TLS ({@link #tls}, {@code --tls}): mutual TLS between the replicas and TLS on their client
 *       ports, with throwaway certificates generated into the work directory, and clients that
 *       talk TLS; the system is then named {@code parallax-<sync>-tls}, so a comparison shows both;</li>
 *   <li>further {@code key=value} settings: one client event loop per replica, the throughput
 *       settings ({@link ParallaxClusterSettings#THROUGHPUT_SETTINGS}), the system's own (ring
 *       counts, ablation values), {@code threads} ({@code --threads}), and last the experiment's
 *       {@code -Dparallax.bench.props=key=value,...}.</li>
 * </ul>
 *
 * <p><b>The systems.</b> A system made with a fixed ordering ({@code parallax-spaxos-none}:
 * S-Paxos, seed 002; {@code parallax-uring-none}, {@code parallax-mring-none}: Ring Paxos, seed 003
 * ch. 3; {@code parallax-multiring-<k>}: Multi-Ring Paxos over k M-Ring rings, ch. 5, made by
 * {@link #multiRing}) runs it whatever {@code --ordering} says; {@code parallax-psmr-<k>}
 * ({@link #psmr}) also fixes the executor: P-SMR (ch. 6) with one worker per ring, whatever
 * {@code --execution} and {@code --execution-threads} say. {@code parallax-multicast-<k>}
 * ({@link #multicast}) runs the reference multicast (one Multi-Paxos instance per group and a global
 * one, {@code ordering=multicast}) over k groups, {@code parallax-psmr-multicast-<k>}
 * ({@link #psmrMulticast}) P-SMR over it: the correctness baseline next to the Multi-Ring ones.
 * {@code parallax-ssmr-<P>} ({@link #ssmr}) splits the store into P partitions of three replicas
 * under S-SMR (seed 004), its clients sending each command to a replica of a partition it involves.
 * With an ordering that orders by group (multi-ring, multicast) the clients address each command
 * by key ({@link KvRouter}, the store's C-G function, over {@link ParallaxSpec#groups} groups).
 * Connections are spread over the replicas ({@link #connect}); {@link #bytesSent} counts what each
 * replica sends to its peers and its clients, for the per-replica balance columns, and
 * {@link #peerBytesSent} and {@link #deliveredBytes} feed the efficiency metric (seed 003 (Ring
 * Paxos) §3.1 ¶2).
 *
 * <p>This class names the systems and runs one; the parts have their own classes: the choices that
 * make the spec ({@link ParallaxClusterSettings}), the replica JVMs ({@link ReplicaCluster},
 * {@link ReplicaProcesses}), the clients ({@link ParallaxClients}), the measured period's sampling
 * ({@link ReplicaLoadSampler}) and the replicas' counters ({@link ReplicaMetrics}). Lifecycle and
 * threading as {@link BenchSystem}: one owner thread; {@link #start} blocks until every replica
 * serves, {@link #connect} until connected, the byte counts and {@link #measurementEnded} for the
 * replicas' metrics endpoints.
 */
public final class ParallaxSystem implements BenchSystem {
    private Testbed bed;
    private static final String MULTI_RING = ParallaxSpec.MULTI_RING;
    private static final String MULTICAST = MulticastOrdering.NAME;
    private static final String EXECUTION = ClusterConfig.EXECUTION.name();
    private static final String EXECUTION_THREADS = ClusterConfig.EXECUTION_THREADS.name();
    /** The sync policy, the ordering, the cluster size and the settings the replicas' cluster file gets. */
    private ParallaxClusterSettings settings;
    /** The name given by a factory such as {@link #multiRing}, or null for the name made from the settings. */
    private final String fixedName;
    private boolean tls;
    private ReplicaCluster cluster;
    private ParallaxClients clients;
    /** What each connection's invoker is wrapped in (the S-SMR caching mix), or null. */
    private java.util.function.BiFunction<CommandInvoker, Integer, CommandInvoker> mix;
    private String mixNote;
    private int opened;
    /** The sampler of the measured period under way, null outside one. */
    private ReplicaLoadSampler sampler;

    /** @param sync {@code none}, {@code every-batch} or {@code memory} */
    public ParallaxSystem(String sync) {
        this(sync, null);
    }

    /**
     * A system that always runs the ordering {@code fixed} (it wins over {@code --ordering}), named
     * {@code parallax-<ordering without dashes>-<sync>}, e.g. {@code parallax-spaxos-none}.
     *
     * @param sync  {@code none}, {@code every-batch} or {@code memory}
     * @param fixed the ordering protocol (a registered name, e.g. {@code s-paxos}), or null for the
     *              runtime settings' (default Multi-Paxos)
     */
    public ParallaxSystem(String sync, String fixed) {
        this(sync, fixed, 3);
    }

    /**
     * A system of {@code replicas} replica JVMs; with other than three its name carries
     * {@code n<replicas>-} before the sync, e.g. {@code parallax-uring-n5-none}.
     *
     * @param sync     {@code none}, {@code every-batch} or {@code memory}
     * @param fixed    the ordering protocol (a registered name), or null for the runtime settings' (default Multi-Paxos)
     * @param replicas the cluster size, 1..9
     */
    public ParallaxSystem(String sync, String fixed, int replicas) {
        this(sync, fixed, replicas, Map.of(), null, Map.of());
    }

    private ParallaxSystem(String sync, String fixed, int replicas, Map<String, String> fixedSettings, String fixedName,
                           Map<String, String> fixedRuntime) {
        this.settings = new ParallaxClusterSettings(sync, fixed, replicas, fixedSettings, fixedRuntime, Map.of());
        this.fixedName = fixedName;
    }

    /**
     * {@code parallax-lease-none}: {@code parallax-none} (Multi-Paxos, acceptor log {@code none})
     * with leader leases for queries ({@code paxos.read.lease.ms=400}, under the 500 ms suspect
     * time-out; drift bound 1%): the leader answers reads without a confirmation round while its
     * lease holds, followers ask it for the point as with read-index.
     */
    public static ParallaxSystem multiPaxosLease() {
        return new ParallaxSystem("none", "multi-paxos", 3, Map.of("paxos.read.lease.ms", "400"), "parallax-lease-none",
                Map.of());
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
        return new ParallaxSystem("none", MULTI_RING, 3, Map.of(MultiRingKeys.RINGS.name(), Integer.toString(rings)),
                "parallax-multiring-" + rings, Map.of());
    }

    /**
     * {@code parallax-psmr-<rings>}: {@link #multiRing(int) parallax-multiring-<rings>} with P-SMR
     * execution (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6, {@code execution=p-smr}) over
     * {@code rings} workers, one per ring; the replicas' store is partitioned by the same groups
     * (one partition per group) and the clients route by key over them. The executor and its
     * worker count win over {@code --execution} and {@code --execution-threads}.
     *
     * @param rings k, 1..63: the rings, the groups and the workers
     */
    public static ParallaxSystem psmr(int rings) {
        checkRings(rings);
        return new ParallaxSystem("none", MULTI_RING, 3, Map.of(MultiRingKeys.RINGS.name(), Integer.toString(rings)),
                "parallax-psmr-" + rings, Map.of(EXECUTION, ParallaxSpec.P_SMR,
                        EXECUTION_THREADS, Integer.toString(rings)));
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
        return new ParallaxSystem("none", MULTICAST, 3, Map.of(MulticastProvider.GROUPS.name(), Integer.toString(groups)),
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
        return new ParallaxSystem("none", MULTICAST, 3, Map.of(MulticastProvider.GROUPS.name(), Integer.toString(groups)),
                "parallax-psmr-multicast-" + groups, Map.of(EXECUTION, ParallaxSpec.P_SMR,
                        EXECUTION_THREADS, Integer.toString(groups)));
    }

    /**
     * {@code parallax-ssmr-<partitions>}: the key-value store split by key under S-SMR (seed 004
     * (S-SMR) §IV, {@code execution=s-smr}): {@code partitions} partitions of three replica JVMs
     * each (partition p = replicas 3p..3p+2, a {@code KvPartition} each), ordered by Multi-Ring
     * Paxos with one U-Ring ring per partition over its replicas and the global ring over all
     * ({@code multiring.kind=u-ring}: M-Ring needs a cluster of odd size, as {@code volery-<P>}),
     * acceptor log {@code none}. Each client is a {@code PartitionedInvoker} over one client per
     * partition with {@code KvRouter} as the oracle ({@link ParallaxClients}). The
     * 3P JVMs share the heap of a three-server system (as {@code volery-<P>}). The executor wins
     * over {@code --execution}; {@code --execution-threads} does not apply.
     *
     * @param partitions P, 1..3 (at most nine replica JVMs)
     */
    public static ParallaxSystem ssmr(int partitions) {
        if (partitions < 1 || partitions > 3) {
            throw new IllegalArgumentException("partitions must be 1..3 (3 replicas each, at most 9), not " + partitions);
        }
        return new ParallaxSystem("none", MULTI_RING, 3 * partitions, Map.of(MultiRingKeys.RINGS.name(),
                Integer.toString(partitions), MultiRingKeys.KIND.name(), RingPaxos.U_RING), "parallax-ssmr-" + partitions,
                Map.of(EXECUTION, ParallaxSpec.S_SMR));
    }

    /**
     * {@code parallax-ssmr-<partitions>-mget[-cache]}: {@link #ssmr} under the read-mostly
     * multi-partition mix of the caching measurement ({@link SsmrMix#kv}: 90% MGET of one key per
     * partition, 10% SET), with S-SMR caching ({@code ssmr.cache=on}, seed 004 §IV-C) or without.
     * The load's own commands (size, read share) are replaced by the mix.
     *
     * @param partitions P, 2..3
     */
    public static ParallaxSystem ssmrMget(int partitions, boolean cache) {
        if (partitions < 2 || partitions > 3) {
            throw new IllegalArgumentException("partitions must be 2..3, not " + partitions);
        }
        ParallaxSystem s = new ParallaxSystem("none", MULTI_RING, 3 * partitions, Map.of(MultiRingKeys.RINGS.name(),
                Integer.toString(partitions), MultiRingKeys.KIND.name(), RingPaxos.U_RING, "ssmr.cache", cache ? "on" : "off"),
                "parallax-ssmr-" + partitions + "-mget" + (cache ? "-cache" : ""), Map.of(EXECUTION, ParallaxSpec.S_SMR));
        s.mix = (invoker, k) -> SsmrMix.kv(invoker, partitions, k);
        s.mixNote = SsmrMix.describe("MGET", "SET");
        return s;
    }

    /**
     * The replica JVM options: {@link ServerJvm#options()}, or for {@link #ssmr} the heap of three
     * servers shared by the 3P JVMs (as {@link VolerySystem}). Package-private for tests.
     */
    List<String> replicaJvm() {
        return settings.partitioned() ? ServerJvm.options(Math.max(256, VolerySystem.TOTAL_HEAP_MIB / replicas()))
                : ServerJvm.options();
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
     * {@code parallax-mring-spec}: {@code parallax-mring-none} with speculative execution
     * ({@code mring.speculation=on}, seed 003 (Marandi thesis) §4.2.1): the KV store runs each command
     * on its Phase 2A position and answers once it is decided (docs/results/history.md, "Speculative
     * execution on M-Ring").
     */
    public static ParallaxSystem mRingSpeculation() {
        return new ParallaxSystem("none", "m-ring", 3, Map.of("mring.speculation", "on"), "parallax-mring-spec", Map.of());
    }

    /**
     * {@code parallax-multiring-2-<suffix>}: {@link #multiRing(int) parallax-multiring-2} with
     * {@code settings} written over the multi-ring defaults — the Δ, M and λ ablation of seed 003
     * (Ring Paxos / Multi-Ring / P-SMR) §5.4.4-5.4.6 (docs/benchmarks.md), e.g.
     * {@code ring.delta.ms=1}, {@code multiring.m=8}, {@code ring.lambda=200}.
     *
     * @param suffix   the name's last part, e.g. {@code d1}
     * @param settings cluster-file keys and values
     */
    public static ParallaxSystem multiRingVariant(String suffix, Map<String, String> settings) {
        Map<String, String> all = new java.util.HashMap<>(settings);
        all.put(MultiRingKeys.RINGS.name(), "2");
        return new ParallaxSystem("none", MULTI_RING, 3, all, "parallax-multiring-2-" + suffix, Map.of());
    }

    /** The number of replica JVMs. */
    public int replicas() {
        return settings.replicas();
    }

    /**
     * Cluster-file settings that choose the runtime ({@code ordering}, {@code execution},
     * {@code execution.threads}, {@code threads}, as {@code ./parallax bench}'s
     * options give them), written into the cluster file this system generates; call before {@link #start}.
     *
     * @throws IllegalArgumentException if a key is not one of those four
     */
    public ParallaxSystem runtime(Map<String, String> clusterSettings) {
        this.settings = settings.withRuntime(clusterSettings);
        return this;
    }

    /**
     * Runs the replicas one per host of {@code bed} (null: on 127.0.0.1); call before
     * {@link #start}. {@link #bytesSent} then counts what each host's link carried.
     *
     * @throws IllegalArgumentException if the test bed has fewer hosts than this system has replicas
     */
    public ParallaxSystem hosts(Testbed bed) {
        if (bed != null && bed.hosts() < replicas()) {
            throw new IllegalArgumentException(name() + " runs " + replicas() + " replicas; the test bed has " + bed.hosts()
                    + " hosts (./parallax testbed up --hosts " + replicas() + ")");
        }
        this.bed = bed;
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
        String fixed = settings.fixed();
        return "parallax-" + (fixed == null ? "" : fixed.replace("-", "") + "-")
                + (replicas() == 3 ? "" : "n" + replicas() + "-") + settings.sync() + (tls ? "-tls" : "");
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> s = new java.util.LinkedHashMap<>(settings.describe(tls, replicaJvm()));
        if (mixNote != null) {
            s.put("workload", mixNote + " (replaces the load's commands)");
        }
        return s;
    }

    /**
     * The spec of this system's replicas: the system's choices, {@link #runtime} and {@link #tls}
     * ({@link ParallaxClusterSettings#spec}). Package-private for tests.
     *
     * @throws IllegalArgumentException naming the key if the replicas would refuse it
     */
    ParallaxSpec spec() {
        return settings.spec(tls);
    }

    @Override
    public void start(Path workDir, Duration timeout) throws Exception {
        List<String> jvm = ReplicaProcesses.profiled(ReplicaProcesses.quiet(replicaJvm()));
        cluster = new ReplicaCluster(spec(), workDir, jvm, bed);
        cluster.startAll(timeout);
        clients = new ParallaxClients(cluster);
    }

    @Override
    public Map<String, Long> serverPids() {
        return ReplicaProcesses.pids(cluster);
    }

    /** A client of the cluster, spread over the replicas as {@link ParallaxClients#connect} says. */
    @Override
    public CommandInvoker connect(int maxOutstanding) {
        CommandInvoker c = clients.connect(maxOutstanding);
        return mix == null ? c : mix.apply(c, opened++);
    }

    /** Starts sampling where the replicas' time goes ({@link ReplicaLoadSampler}). */
    @Override
    public void measurementStarted() {
        sampler = ReplicaLoadSampler.start(cluster);
    }

    /**
     * The leader's per-stage busy ratio and queue depths and per-thread CPU over the measured period
     * ({@link ReplicaLoadSampler#finish}), then every replica's health counters
     * ({@link ReplicaMetrics#healthCounters}); empty if no period was started.
     */
    @Override
    public String measurementEnded() {
        if (sampler == null) {
            return "";
        }
        String report = sampler.finish() + ReplicaMetrics.healthCounters(cluster)
                + (settings.partitioned() ? ReplicaMetrics.cacheCounters(cluster) : "");
        sampler = null;
        return report;
    }

    /**
     * Per replica: bytes written to its peers and its clients ({@link ReplicaMetrics#bytesSent}); on
     * a test bed, what its host's link carried (headers, datagrams and client replies included:
     * {@link Testbed#sentBytes}).
     */
    @Override
    public Map<String, Double> bytesSent() {
        if (bed == null) {
            return ReplicaMetrics.bytesSent(cluster);
        }
        Map<String, Double> sent = new java.util.LinkedHashMap<>();
        for (int i = 0; i < replicas(); i++) {
            double v;
            try {
                v = bed.sentBytes(bed.hostOf(i));
            } catch (java.io.IOException | RuntimeException e) {
                v = -1;
            }
            sent.put("replica-" + i, v);
        }
        return sent;
    }

    /** Per replica: bytes sent to its peers, client replies excluded ({@link ReplicaMetrics#peerBytesSent}). */
    @Override
    public Map<String, Double> peerBytesSent() {
        return ReplicaMetrics.peerBytesSent(cluster);
    }

    /** Per replica: bytes of decided values handed to the state machine ({@link ReplicaMetrics#deliveredBytes}). */
    @Override
    public Map<String, Double> deliveredBytes() {
        return ReplicaMetrics.deliveredBytes(cluster);
    }

    @Override
    public void close() {
        if (clients != null) {
            clients.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
