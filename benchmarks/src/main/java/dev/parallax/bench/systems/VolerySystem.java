package dev.parallax.bench.systems;

import dev.parallax.bench.systems.zookeeper.ZkWorkload;
import dev.parallax.bench.systems.zookeeper.ZooKeeperApiSystem;
import dev.parallax.bench.systems.zookeeper.ZooKeeperInvoker;
import dev.parallax.bench.systems.zookeeper.ZooKeeperSessions;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.config.Member;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.ringpaxos.RingPaxos;
import dev.parallax.ringpaxos.multiring.MultiRingKeys;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Volery, the ZooKeeper service of seed 004 (S-SMR / Eyrie / Volery) §V-B, as a benchmarked system:
 * P partitions of three {@code parallax replica} JVMs each ({@code service=volery},
 * {@code execution=s-smr}, {@code ordering=multi-ring} with {@code multiring.rings=P}: one ring per
 * partition over its replicas and the global ring over all, §VI; members {@code 0..3P-1}, partition
 * p = replicas 3p..3p+2), every replica with a ZooKeeper-protocol front end ({@code zookeeper=}).
 * Each connection is one session of ZooKeeper's own client running the {@link ZkWorkload}
 * ({@link ZooKeeperInvoker}), exactly as against {@code zookeeper}: setData on the session's data
 * znodes (local commands, to the path's owner, CRC32(path) mod P) and the workload's share of
 * create/delete (global commands, to every partition).
 *
 * <p>The replicas run a {@link ParallaxSpec} ({@link #spec}): the keys {@code parallax volery}
 * writes for a local Volery cluster, with U-Ring rings ({@code multiring.kind=u-ring}): TCP only, no
 * multicast needed on the machine, and one ring kind for every P keeps the runs comparable. The acceptor log is a Chronicle log with {@code log.sync=none}
 * (as {@code parallax-multiring-k}) under the work directory, with the ring throughput settings of
 * the parallax systems. The 3P replica JVMs share the memory of a three-server system: each gets
 * {@code 6 GiB / 3P} of heap (2 GiB at P = 1, 512 MiB at P = 4).
 *
 * <p>Names: {@code volery-<P>}, with the workload's suffix when it has global commands
 * ({@code volery-2-g10}). Lifecycle and threading as {@link BenchSystem}: one owner thread.
 */
public final class VolerySystem implements ZooKeeperApiSystem {
    /** Replicas per partition (seed 004 §VI: three acceptors and replicas per ring). */
    public static final int REPLICAS_PER_PARTITION = 3;
    /** The most partitions a local cluster runs: 3P replica JVMs on one machine (Multi-Ring allows more rings). */
    public static final int MAX_PARTITIONS = 21;
    /** The front-end key of {@code service=volery}: one ZooKeeper-protocol endpoint per replica. */
    static final String ZOOKEEPER_KEY = "zookeeper";
    /** Heap shared by all replica JVMs: three servers of {@link ServerJvm#DEFAULT_HEAP_MIB}. */
    static final int TOTAL_HEAP_MIB = 3 * ServerJvm.DEFAULT_HEAP_MIB;

    private final int partitions;
    /** The S-SMR caching mix's variant ({@link #mix}): null for the ZooKeeper clients' workload. */
    private final Boolean mixCache;
    private ParallaxClients mixClients;
    private int mixOpened;
    private final ZooKeeperSessions sessions = new ZooKeeperSessions();
    private ReplicaCluster cluster;

    /**
     * @param partitions P, 1..{@value #MAX_PARTITIONS} (3P replica JVMs on one machine; Multi-Ring allows more rings)
     */
    public VolerySystem(int partitions) {
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be 1.." + MAX_PARTITIONS + ", not " + partitions);
        }
        this.partitions = partitions;
        this.mixCache = null;
    }

    private VolerySystem(int partitions, boolean cache) {
        if (partitions < 2 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be 2.." + MAX_PARTITIONS + ", not " + partitions);
        }
        this.partitions = partitions;
        this.mixCache = cache;
    }

    /**
     * {@code volery-<P>-reads[-cache]}: Volery under the read-mostly multi-partition mix of the S-SMR
     * caching measurement ({@link SsmrMix#volery}: 90% getData multicast to every partition, 10%
     * setData at the owner), with caching ({@code ssmr.cache=on}, seed 004 §IV-C) or without. Its
     * clients are Parallax clients sending Volery commands ({@code PartitionedInvoker}), not
     * ZooKeeper sessions: ZooKeeper's API has no read to several partitions.
     */
    public static VolerySystem mix(int partitions, boolean cache) {
        return new VolerySystem(partitions, cache);
    }

    /** P, the number of partitions. */
    public int partitions() {
        return partitions;
    }

    /** The number of replica JVMs, 3P. */
    public int replicas() {
        return REPLICAS_PER_PARTITION * partitions;
    }

    @Override
    public VolerySystem workload(ZkWorkload workload) {
        sessions.workload(workload);
        return this;
    }

    @Override
    public ZkWorkload workload() {
        return sessions.workload();
    }

    @Override
    public String name() {
        if (mixCache != null) {
            return "volery-" + partitions + "-reads" + (mixCache ? "-cache" : "");
        }
        return "volery-" + partitions + workload().nameSuffix();
    }

    /** The heap of each replica JVM in MiB: {@link #TOTAL_HEAP_MIB} over the replicas, at least 256 MiB. */
    int heapMiB() {
        return Math.max(256, TOTAL_HEAP_MIB / replicas());
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.putAll(fixedSettings());
        s.put("front ends", "a ZooKeeper-protocol front end on every replica (zookeeper=), seed 004 §V-B");
        s.put("partitions", Integer.toString(partitions));
        s.put("replicas", replicas() + " (" + REPLICAS_PER_PARTITION + " per partition: partition p = replicas 3p..3p+2)");
        s.put("oracle", "CRC32(path) mod " + partitions + "; create/delete to every partition, the rest to the owner");
        s.put("workload", mixCache != null ? SsmrMix.describe("getData", "setData") : workload().describe());
        if (mixCache != null) {
            s.put("ssmr.cache", mixCache ? "on" : "off");
            s.put("client", "Parallax clients, one per partition, behind a PartitionedInvoker (getData to every partition)");
        }
        s.put("client", "one session per connection, ZooKeeper's client, ClientCnxnSocketNIO (default), SASL off");
        s.put("client placement", "connection k -> a replica of partition k mod " + partitions + " (the (k / " + partitions
                + ") mod 3-th), round robin over all " + replicas() + " front ends");
        s.put("reply", "setData: Stat version, 4 bytes; create, delete: empty");
        s.put("jvm", String.join(" ", replicaJvm()));
        return s;
    }

    private List<String> replicaJvm() {
        return ReplicaProcesses.quiet(ServerJvm.options(heapMiB()));
    }

    /**
     * The spec of a run: Volery ({@code service=volery}, {@code execution=s-smr},
     * {@code ordering=multi-ring}, {@code multiring.rings=P}, {@code multiring.kind=u-ring}) on 3P
     * replicas, log sync {@code none}, one client event loop per replica, a snapshot every 100000
     * instances, the throughput settings, a ZooKeeper front end per replica on a port of 127.0.0.1
     * free now ({@code zookeeper=}), and the experiment settings. Package-private for tests.
     */
    ParallaxSpec spec() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("client.io.threads", "1");
        s.put("snapshot.every", ParallaxClusterSettings.SNAPSHOT_EVERY);
        s.putAll(ringSettings());
        s.putAll(new java.util.TreeMap<>(ParallaxClusterSettings.THROUGHPUT_SETTINGS));
        s.put(ZOOKEEPER_KEY, LocalPorts.endpoints(replicas()));
        if (mixCache != null) {
            s.put("ssmr.cache", mixCache ? "on" : "off");
        }
        return new ParallaxSpec(ParallaxSpec.MULTI_RING, ParallaxSpec.S_SMR, 0, replicas(), ParallaxSpec.VOLERY, "none", false, s)
                .with(ParallaxClusterSettings.experimentSettings());
    }

    /** P rings, one per partition, each a U-Ring. */
    private Map<String, String> ringSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put(MultiRingKeys.RINGS.name(), Integer.toString(partitions));
        s.put(MultiRingKeys.KIND.name(), RingPaxos.U_RING);
        return s;
    }

    /** The cluster-file settings of every run, in the order the settings list them. */
    private Map<String, String> fixedSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("service", ParallaxSpec.VOLERY);
        s.put("execution", ParallaxSpec.S_SMR);
        s.put("ordering", ParallaxSpec.MULTI_RING);
        s.putAll(ringSettings());
        s.put("log.sync", "none");
        s.putAll(new java.util.TreeMap<>(ParallaxClusterSettings.THROUGHPUT_SETTINGS));
        return s;
    }

    /**
     * The cluster of a run in {@code workDir}: its cluster file written (and checked by the
     * library's reader), no process started. Package-private for tests.
     *
     * @throws IOException if the directory or the file cannot be written
     */
    ReplicaCluster cluster(Path workDir) throws IOException {
        return new ReplicaCluster(spec(), workDir, replicaJvm());
    }

    @Override
    public void start(Path workDir, Duration timeout) throws Exception {
        cluster = cluster(workDir);
        cluster.startAll(timeout);
        ZooKeeperInvoker.quietClientLogs();
        if (mixCache != null) {
            mixClients = new ParallaxClients(cluster, SsmrMix.voleryOracle(partitions));
        }
    }

    @Override
    public Map<String, Long> serverPids() {
        return ReplicaProcesses.pids(cluster);
    }

    /**
     * The replica connection {@code k} talks to: a replica of partition {@code k mod P}, the
     * {@code (k / P) mod size}-th of its members, so that consecutive connections spread over the
     * partitions first and every front end gets one before any gets two.
     */
    static int frontEndOf(int k, List<int[]> partitionMembers) {
        int[] members = partitionMembers.get(k % partitionMembers.size());
        return members[(k / partitionMembers.size()) % members.length];
    }

    /** Opens session {@code k} (k counting the connections) to the front end {@link #frontEndOf} names. */
    @Override
    public CommandInvoker connect(int maxOutstanding) throws Exception {
        if (mixClients != null) {
            return SsmrMix.volery(mixClients.connect(maxOutstanding), mixOpened++);
        }
        Member frontEnd = cluster.endpoints(ZOOKEEPER_KEY).orElseThrow()
                .member(frontEndOf(sessions.opened(), cluster.partitionMembers()));
        return sessions.open(frontEnd.host() + ":" + frontEnd.port());
    }

    /**
     * Every replica's counters since it started (commands executed, instances decided, drops, ...):
     * how the load fell on the partitions. Blocks for the replicas' metrics endpoints.
     */
    @Override
    public String measurementEnded() {
        return cluster == null ? "" : ReplicaMetrics.healthCounters(cluster) + ReplicaMetrics.cacheCounters(cluster);
    }

    /** Per replica: bytes written to its peers and its clients ({@link ReplicaMetrics#bytesSent}). */
    @Override
    public Map<String, Double> bytesSent() {
        return ReplicaMetrics.bytesSent(cluster);
    }

    /** Per replica: bytes sent to its peers, client replies excluded ({@link ReplicaMetrics#peerBytesSent}). */
    @Override
    public Map<String, Double> peerBytesSent() {
        return ReplicaMetrics.peerBytesSent(cluster);
    }

    /** Per replica: bytes of decided values handed to its state machine ({@link ReplicaMetrics#deliveredBytes}). */
    @Override
    public Map<String, Double> deliveredBytes() {
        return ReplicaMetrics.deliveredBytes(cluster);
    }

    @Override
    public void close() {
        if (mixClients != null) {
            mixClients.close();
        }
        sessions.close();
        if (cluster != null) {
            cluster.close();
        }
    }
}
