package dev.parallax.examples.cli;

import dev.parallax.scheduler.ServiceClasses;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.ReplicaKeys;
import dev.parallax.core.config.Settings;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.OrderingProvider;
import dev.parallax.core.runtime.OrderingRegistry;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosKeys;
import dev.parallax.paxos.multicast.MulticastProvider;
import dev.parallax.paxos.spaxos.SPaxosConfig;
import dev.parallax.paxos.spaxos.SPaxosKeys;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingKeys;
import dev.parallax.ringpaxos.multiring.MultiRingConfig;
import dev.parallax.ringpaxos.multiring.MultiRingKeys;
import dev.parallax.ringpaxos.multiring.MultiRingTopology;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The examples' view of a cluster file (Java properties), shared by every replica of the cluster;
 * each replica is started with its own {@code --id}. It reads no protocol's keys itself: the
 * generic {@link ClusterConfig} checks every key against the tables registered by the modules on
 * the class path (the replica's {@code ReplicaKeys}, each protocol's {@code *Keys}, this module's
 * {@link ExamplesKeys}), and the protocol modules turn their keys into their configurations
 * ({@link PaxosKeys}, {@link SPaxosKeys}, {@link RingKeys}, {@link MultiRingKeys}). docs/operations.md
 * lists every key; a test fails when it misses one.
 *
 * <p>What this class adds is what only the examples know: the replicated service
 * ({@code service}, the Redis and ZooKeeper front ends), the executor ({@code execution},
 * {@link Executions}) and the checks across executor and ordering: {@code execution=p-smr}
 * (P-SMR, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6) is refused without an ordering with
 * groups ({@link #routesByKey()}: {@code ordering=multi-ring} or {@code multicast}) and with an
 * {@code execution.threads} other than the ordering's group count ({@link #orderingGroups()}), and
 * {@code execution=s-smr} (seed 004) needs {@code ordering=multi-ring} with one ring per partition.
 * Every error names the file, the keys and the fix.
 *
 * <p>Relative TLS paths are resolved against the directory of the file. With TLS on, every member
 * needs its {@code tls.cert.<id>} and {@code tls.key.<id>} keys at load time; only the files of
 * the replica being started are read ({@link #checkTlsFiles}), since each machine holds its own
 * key only. Immutable and thread-safe.
 */
public final class ClusterFile {
    /** The key that names the replicated service. */
    public static final String SERVICE_KEY = ExamplesKeys.SERVICE.name();
    /** The key-value store (the default service). */
    public static final String KV = "kv";
    /** Volery, the ZooKeeper service of seed 004 (S-SMR) §V-B. */
    public static final String VOLERY = "volery";
    /** The key of the reference multicast's group count ({@code ordering=multicast}). */
    public static final String MULTICAST_GROUPS_KEY = MulticastProvider.GROUPS.name();
    /** The reference multicast's groups when {@code multicast.groups} is absent. */
    public static final int DEFAULT_MULTICAST_GROUPS = MulticastProvider.GROUPS.defaultValue();
    /** Workers of a parallel executor when {@code execution.threads} is absent. */
    public static final int DEFAULT_EXECUTION_THREADS = ClusterConfig.DEFAULT_EXECUTION_THREADS;

    private final Settings settings;

    private ClusterFile(Settings settings) {
        this.settings = settings;
    }

    /** @throws IllegalArgumentException naming the file and the faulty key */
    public static ClusterFile load(Path file) throws IOException {
        return checked(Settings.load(file));
    }

    /** A configuration from properties already in memory (the demo writes its own). */
    public static ClusterFile of(Properties p) {
        return checked(Settings.of(p, null));
    }

    /**
     * This configuration with {@code settings} replacing (or adding) keys: the command line's
     * {@code --ordering}, {@code --execution} and {@code --threads} over the file's values.
     *
     * @throws IllegalArgumentException as {@link #load} does, for the result
     */
    public ClusterFile with(Map<String, String> overrides) {
        return checked(settings.with(overrides));
    }

    /** Writes the configuration as a properties file. */
    public void write(Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            settings.toProperties().store(w, "Parallax cluster");
        }
    }

    /** The generic reader's view of this file (what an embedding service reads). */
    public ClusterConfig cluster() {
        return ClusterConfig.of(settings);
    }

    /** The file's settings, for modules that read keys of their own. */
    public Settings settings() {
        return settings;
    }

    private static ClusterFile checked(Settings s) {
        ClusterFile f = new ClusterFile(s);
        f.validate();
        return f;
    }

    private void validate() {
        ordering(); // the CLI's own message for an unknown protocol, before the generic reader's
        ClusterConfig.of(settings); // registered keys, values, members, replica keys, TLS keys
        service();
        redis();
        zookeeper();
        metrics();
        if (zookeeperSecure().isPresent() && !tls(0).enabled()) {
            throw error(ExamplesKeys.ZOOKEEPER_SECURE.name() + " serves each replica's certificate: it needs tls.ca, "
                    + "tls.cert.<id> and tls.key.<id> with tls.client=on or tls.replica=required (./parallax certs)");
        }
        paxos();
        spaxos();
        Orderings ordering = ordering();
        multicastGroups();
        int n = members().size();
        if (ordering == Orderings.MULTI_RING) {
            multiRing();
        } else if (ordering == Orderings.U_RING) {
            ring(Ring.Kind.U_RING);
        } else if (ordering == Orderings.M_RING || (hasRingKeys() && n % 2 == 1 && n <= 31)) {
            ring(Ring.Kind.M_RING);
        }
        execution();
        checkExecutionOrdering();
        executionThreads();
    }

    private IllegalArgumentException error(String what) {
        return settings.error(what);
    }

    public ClusterMembers members() {
        return ReplicaKeys.members(settings);
    }

    /** Client endpoints, or empty for the default (replica port + 1000). */
    public Optional<ClusterMembers> clients() {
        return ReplicaKeys.endpoints(settings, ReplicaKeys.CLIENTS.name());
    }

    /** The Redis-protocol front ends of {@code service=kv} ({@code redis}), if any. */
    public Optional<ClusterMembers> redis() {
        return ReplicaKeys.endpoints(settings, ExamplesKeys.REDIS.name());
    }

    /** Each replica's metrics endpoint ({@code metrics}), where {@code parallax admin} reaches it; if any. */
    public Optional<ClusterMembers> metrics() {
        return ReplicaKeys.endpoints(settings, ExamplesKeys.METRICS.name());
    }

    /**
     * The replicated service ({@code service}): {@value #KV} (default) or {@value #VOLERY}.
     *
     * @throws IllegalArgumentException naming the key and the accepted values
     */
    public String service() {
        return settings.get(ExamplesKeys.SERVICE);
    }

    /** The ZooKeeper-protocol front ends of {@code service=volery} ({@code zookeeper}), if any. */
    public Optional<ClusterMembers> zookeeper() {
        return ReplicaKeys.endpoints(settings, ExamplesKeys.ZOOKEEPER.name());
    }

    /** The ZooKeeper-protocol front ends over TLS of {@code service=volery} ({@code zookeeper.secure}), if any. */
    public Optional<ClusterMembers> zookeeperSecure() {
        return ReplicaKeys.endpoints(settings, ExamplesKeys.ZOOKEEPER_SECURE.name());
    }

    /** Replica {@code id}'s configuration. */
    public ReplicaConfig replica(int id) {
        return ReplicaKeys.replicaConfig(settings, id);
    }

    /**
     * The configuration of replica {@code id} that joins the group listening at {@code joinAddress}
     * ({@code host:port}): an id outside {@link #members()}, up to 31, that a membership change adds
     * while it runs ({@link ReplicaConfig#joinAddress()}); {@code null} for a member, as
     * {@link #replica(int)}.
     *
     * @throws IllegalArgumentException naming the file and what is wrong with the id or address
     */
    public ReplicaConfig replica(int id, String joinAddress) {
        return ReplicaKeys.replicaConfig(settings, id, joinAddress);
    }

    /** The ordering protocol ({@code ordering}); default {@link Orderings#DEFAULT}. */
    public Orderings ordering() {
        Optional<String> v = settings.raw(Orderings.KEY);
        try {
            return v.isEmpty() ? Orderings.DEFAULT : Orderings.parse(v.get());
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /**
     * Why this file's group cannot change its members at run time ({@code parallax replica --join},
     * the admin's add, promote, remove and replace), or null if it can: Multi-Paxos and S-Paxos
     * always; U-Ring and M-Ring when {@code ring.member.ids} is set (the ids the ring may ever use,
     * at least n: {@link RingConfig#membershipChanges()}); no other ordering (Multi-Ring Paxos and
     * the multicast keep their members fixed).
     */
    public String membershipRefusal() {
        Orderings o = ordering();
        if (o == Orderings.MULTI_PAXOS || o == Orderings.S_PAXOS) {
            return null;
        }
        if (o.ringMembers()) {
            boolean changes = o == Orderings.MULTI_RING ? multiRing().membershipChanges()
                    : ring(o == Orderings.U_RING ? Ring.Kind.U_RING : Ring.Kind.M_RING).membershipChanges();
            return changes ? null
                    : "ordering=" + o.configName() + " changes its members at run time only with " + RingKeys.MEMBER_IDS.name()
                    + " set in the cluster file: the ids the rings may ever use, at least the " + members().size()
                    + " members (e.g. " + RingKeys.MEMBER_IDS.name() + "=8); it is 0 (fixed members) here";
        }
        return "ordering=" + o.configName() + " keeps its members fixed: multi-paxos, s-paxos, and u-ring, m-ring and "
                + "multi-ring with " + RingKeys.MEMBER_IDS.name() + " set change them at run time";
    }

    /**
     * Why replica {@code id} cannot join this file's group at run time, or null:
     * {@link #membershipRefusal()}, and for the ring orderings an id at or above
     * {@code ring.member.ids} (the rings' ids are {@code 0..ring.member.ids-1}).
     */
    public String joinRefusal(int id) {
        String fixed = membershipRefusal();
        Orderings o = ordering();
        if (fixed != null || !o.ringMembers()) {
            return fixed;
        }
        if (o == Orderings.MULTI_RING && execution().partitioned()) {
            MultiRingTopology t = multiRing().topology();
            for (int p = 0; p < t.rings(); p++) {
                if (java.util.Arrays.binarySearch(t.joiners(p), id) >= 0) {
                    return null;
                }
            }
            return "replica " + id + " is no partition's joiner: name it in multiring.ring.<p>.joiners of the partition it "
                    + "joins, in every replica's file";
        }
        int ids = o == Orderings.MULTI_RING ? multiRing().idSpace()
                : ring(o == Orderings.U_RING ? Ring.Kind.U_RING : Ring.Kind.M_RING).idSpace();
        return id < ids ? null : "replica " + id + " is outside the rings' ids 0.." + (ids - 1) + " ("
                + RingKeys.MEMBER_IDS.name() + "=" + ids + "): give a lower --id or raise " + RingKeys.MEMBER_IDS.name()
                + " in every replica's file";
    }

    /** The registered provider of {@link #ordering()}. */
    private OrderingProvider orderingProvider() {
        return OrderingRegistry.ordering(ordering().configName());
    }

    /** What the ordering protocols build from: this file, its member count, and whether the executor partitions the state. */
    private OrderingProvider.Context orderingContext() {
        return new OrderingProvider.Context(settings, members().size(), execution().partitioned());
    }

    /** A new, unstarted instance of the {@link #ordering()} protocol, configured by this file. */
    public OrderingProtocol orderingProtocol() {
        return orderingProvider().create(orderingContext());
    }

    /** The executor ({@code execution}); default {@link Executions#DEFAULT}. */
    public Executions execution() {
        Optional<String> v = settings.raw(Executions.KEY);
        try {
            return v.isEmpty() ? Executions.DEFAULT : Executions.parse(v.get());
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /**
     * Workers of a parallel executor ({@code execution.threads}); default
     * {@link #DEFAULT_EXECUTION_THREADS}. With {@code execution=p-smr} one worker per group: the
     * default is the ordering's group count ({@link #orderingGroups()}: {@code multiring.rings} or
     * {@code multicast.groups}), and another value is refused (seed 003 (Ring Paxos / Multi-Ring /
     * P-SMR) ch. 6: worker t_i delivers group g_i merged with the global group).
     *
     * @throws IllegalArgumentException naming the keys and the fix
     */
    public int executionThreads() {
        Integer given = null;
        if (settings.has(ClusterConfig.EXECUTION_THREADS.name())) {
            given = settings.get(ClusterConfig.EXECUTION_THREADS);
            if (given < 1) {
                throw error("execution.threads must be >= 1, got " + given);
            }
        }
        if (!execution().oneWorkerPerGroup()) {
            return given == null ? DEFAULT_EXECUTION_THREADS : given;
        }
        int groups = orderingGroups();
        if (given != null && given != groups) {
            String key = groupsKey(ordering());
            throw error(Executions.KEY + "=" + execution().configName() + " runs one worker per group: execution.threads="
                    + given + " must equal " + key + "=" + groups + "; set execution.threads=" + groups
                    + " or remove it (" + execution().configName() + " then runs " + key + " workers), or set " + key + "=" + given);
        }
        return groups;
    }

    /**
     * {@code execution=p-smr} needs an ordering with groups ({@link #routesByKey()}:
     * {@code multi-ring} or {@code multicast}): P-SMR's workers each deliver their group's stream
     * merged with the global stream (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6), so
     * commands must be ordered by group. {@code execution=s-smr} runs the partitioned services,
     * {@code kv} (the store split by key) and {@code volery} (which runs with s-smr only), over
     * {@code ordering=multi-ring} with each replica in one partition's ring (seed 004 (S-SMR)).
     */
    private void checkExecutionOrdering() {
        Executions e = execution();
        Orderings o = ordering();
        boolean volery = service().equals(VOLERY);
        if (volery && !e.partitioned()) {
            throw error(SERVICE_KEY + "=" + VOLERY + " runs with " + Executions.KEY + "=" + Executions.S_SMR.configName()
                    + " (its partitions are multiring.rings, 1 for a single partition), got " + Executions.KEY + "="
                    + e.configName());
        }
        if (!volery && (zookeeper().isPresent() || zookeeperSecure().isPresent())) {
            throw error("zookeeper front ends serve " + SERVICE_KEY + "=" + VOLERY + " only");
        }
        if (volery && redis().isPresent()) {
            throw error("redis front ends serve " + SERVICE_KEY + "=" + KV + " only");
        }
        if (e.partitioned()) {
            if (o != Orderings.MULTI_RING) {
                throw error(Executions.KEY + "=" + e.configName() + " needs " + Orderings.KEY + "="
                        + Orderings.MULTI_RING.configName() + " (one ring per partition over its replicas, and the global "
                        + "ring), got " + Orderings.KEY + "=" + o.configName());
            }
            partitionMembers();
        }
        if (e.oneWorkerPerGroup() && !routesByKey()) {
            throw error(Executions.KEY + "=" + e.configName() + " needs an ordering with groups, "
                    + Orderings.KEY + "=" + Orderings.MULTI_RING.configName() + " or " + Orderings.MULTICAST.configName()
                    + ", got " + Orderings.KEY + "=" + o.configName() + ": each P-SMR worker delivers its group's stream merged "
                    + "with the global stream; set " + Orderings.KEY + "=" + Orderings.MULTI_RING.configName()
                    + " (" + groupsKey(Orderings.MULTI_RING) + " groups, one worker each) or " + Orderings.KEY + "="
                    + Orderings.MULTICAST.configName() + " (" + groupsKey(Orderings.MULTICAST)
                    + " groups, one worker each), or choose another " + Executions.KEY);
        }
    }

    /**
     * Whether the ordering orders commands by group, so that clients address each command to the
     * groups of its keys (a C-G function, for the KV store {@code KvRouter}) and P-SMR can run one
     * worker per group: {@code ordering=multi-ring} (Multi-Ring Paxos) and {@code ordering=multicast}
     * (the reference multicast), seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5-6.
     */
    public boolean routesByKey() {
        return groupsKey(ordering()) != null;
    }

    /**
     * k, the groups the ordering orders commands by: {@code multiring.rings} with
     * {@code ordering=multi-ring}, {@code multicast.groups} with {@code ordering=multicast}, 1 with
     * every other ordering (one stream, everything in the default group): the registered
     * protocol's {@link OrderingProvider#groups}. The one place that answers "how many groups":
     * client routing, the store's partitions and P-SMR's workers all read it.
     *
     * @throws IllegalArgumentException naming the file and the faulty key
     */
    public int orderingGroups() {
        return orderingProvider().groups(orderingContext());
    }

    /** The key that sets {@code ordering}'s group count ({@link #orderingGroups()}), or null if it has one stream only. */
    static String groupsKey(Orderings ordering) {
        return OrderingRegistry.ordering(ordering.configName()).groupsKey().orElse(null);
    }

    /** The reference multicast's group count ({@code multicast.groups}); default {@value #DEFAULT_MULTICAST_GROUPS}. */
    public int multicastGroups() {
        return settings.get(MulticastProvider.GROUPS);
    }

    /**
     * A new, unstarted {@link #execution()} executor for {@code service}.
     *
     * @throws IllegalArgumentException if the executor needs request classes the service lacks
     */
    public Executor executor(ServiceClasses service) {
        try {
            return execution().create(service, executionThreads());
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /** How replicas place their stages on threads ({@code threads}); default {@link ThreadPlacement#jvmDefault()} (auto). */
    public ThreadPlacement threads() {
        return ReplicaKeys.threads(settings);
    }

    /**
     * One line naming the ordering protocol, the executor and the thread placement this file
     * selects, e.g. {@code ordering multi-paxos, execution early-busy-wait (2 workers), threads auto
     * (staged with 2 cores)}, followed by the TLS mode when TLS is on; {@code cores} resolves {@code auto}.
     */
    public String describeRuntime(int cores) {
        Executions e = execution();
        ThreadPlacement t = threads();
        return "ordering " + ordering().configName() + ", execution " + e.configName()
                + (e.parallel() ? " (" + executionThreads() + " workers" + (e.oneWorkerPerGroup() ? ", one per group)" : ")") : "")
                + ", threads " + t.configName()
                + (t == ThreadPlacement.AUTO ? " (" + t.resolve(cores).configName() + " with " + cores + (cores == 1 ? " core)" : " cores)") : "")
                + describeTls();
    }

    /** {@code ", tls mutual between replicas, on client ports"} and the like; empty with TLS off. */
    private String describeTls() {
        TlsConfig tls = tls(0);
        if (!tls.enabled()) {
            return "";
        }
        return ", tls " + (tls.replicaPort() ? "mutual between replicas" : "off between replicas")
                + (tls.clientPorts() ? ", on client ports" : ", off on client ports");
    }

    /** Replica {@code id}'s TLS settings ({@code tls.*}); {@link TlsConfig#OFF} unless TLS is on. Checks the keys, not the files. */
    public TlsConfig tls(int id) {
        return ReplicaKeys.tls(settings, id);
    }

    /** The CA certificate clients must trust, when the client ports run TLS ({@code tls.client=on}). */
    public Optional<Path> clientTrust() {
        return ReplicaKeys.clientTrust(settings);
    }

    /**
     * Reads the TLS files of replica {@code id} (CA, certificate, key), so that a replica whose
     * files are missing or broken fails at start-up with the key and file named, before any port
     * opens. Does nothing with TLS off.
     *
     * @throws IllegalArgumentException naming the key, the file and what is wrong
     */
    public void checkTlsFiles(int id) {
        ReplicaKeys.checkTlsFiles(settings, id);
        TlsConfig tls = tls(id);
        if (!tls.enabled()) {
            return;
        }
        try {
            TlsContexts.load(tls);
        } catch (IllegalArgumentException e) {
            throw error("TLS files of replica " + id + ": " + e.getMessage());
        }
    }

    /**
     * The {@code tls.*} keys that turn on mutual TLS between replicas (and TLS on the client and
     * Redis ports if {@code clientPorts}) with the files of {@code certs}, as absolute paths.
     */
    public static Map<String, String> tlsSettings(ClusterCertificates certs, boolean clientPorts) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("tls.replica", "required");
        s.put("tls.client", clientPorts ? "on" : "off");
        s.put("tls.ca", certs.ca().toAbsolutePath().toString());
        for (int i = 0; i < certs.replicas(); i++) {
            s.put("tls.cert." + i, certs.cert(i).toAbsolutePath().toString());
            s.put("tls.key." + i, certs.key(i).toAbsolutePath().toString());
        }
        return s;
    }

    /** Decided instances between snapshots, if set. */
    public Optional<Long> snapshotEvery() {
        return settings.find(ReplicaKeys.SNAPSHOT_EVERY).map(Integer::longValue);
    }

    /** The Multi-Paxos settings ({@code paxos.*}, {@link PaxosKeys}); defaults for absent keys. */
    public PaxosConfig paxos() {
        return PaxosKeys.config(settings, members().size());
    }

    /** The S-Paxos settings ({@code spaxos.*}, {@link SPaxosKeys}), with {@link #paxos()} for its ordering layer. */
    public SPaxosConfig spaxos() {
        return SPaxosKeys.config(settings, members().size());
    }

    /** The Ring Paxos settings ({@code ring.*}, {@code mring.*}, {@link RingKeys}) for variant {@code kind}. */
    public RingConfig ring(Ring.Kind kind) {
        return RingKeys.config(settings, members().size(), kind);
    }

    /** The Multi-Ring Paxos settings ({@code multiring.*} and the shared ring keys, {@link MultiRingKeys}). */
    public MultiRingConfig multiRing() {
        return MultiRingKeys.config(settings, members().size(), execution().partitioned());
    }

    /**
     * The partitions of {@code execution=s-smr} ({@code multiring.rings}), or 1 with any other
     * executor (the whole state on every replica).
     */
    public int partitions() {
        return execution().partitioned() ? multiRing().rings() : 1;
    }

    /**
     * The partition replica {@code id} holds under {@code execution=s-smr}: the one group ring it
     * runs (0 with any other executor).
     *
     * @throws IllegalArgumentException naming the keys if it runs no group ring or several
     */
    public int partitionOf(int id) {
        if (!execution().partitioned()) {
            return 0;
        }
        MultiRingTopology t = multiRing().topology();
        int found = -1;
        for (int p = 0; p < t.rings(); p++) {
            if (t.runs(id, p)) {
                if (found >= 0) {
                    throw error("replica " + id + " is in the rings of partitions " + found + " and " + p + " (multiring.ring."
                            + found + ".members, multiring.ring." + p + ".members): under " + Executions.KEY + "="
                            + Executions.S_SMR.configName() + " each replica holds one partition");
                }
                found = p;
            }
        }
        if (found < 0) {
            throw error("replica " + id + " is in no partition's ring (multiring.ring.<p>.members)");
        }
        return found;
    }

    /**
     * The replica ids each partition may ever have, partition by partition: its members of the file
     * and the replicas that may join it ({@code multiring.ring.<p>.joiners}); S-SMR's signals go to
     * all of them (sends to one not running are dropped).
     */
    public List<int[]> partitionReplicas() {
        List<int[]> members = partitionMembers();
        if (!execution().partitioned()) {
            return members;
        }
        MultiRingTopology t = multiRing().topology();
        List<int[]> all = new ArrayList<>();
        for (int p = 0; p < members.size(); p++) {
            int[] joiners = t.joiners(p);
            int[] both = java.util.Arrays.copyOf(members.get(p), members.get(p).length + joiners.length);
            System.arraycopy(joiners, 0, both, members.get(p).length, joiners.length);
            all.add(both);
        }
        return all;
    }

    /** The replica ids of each partition ({@link #partitionOf}), partition by partition. */
    public List<int[]> partitionMembers() {
        int partitions = partitions();
        List<List<Integer>> of = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            of.add(new ArrayList<>());
        }
        for (int id = 0; id < members().size(); id++) {
            of.get(partitionOf(id)).add(id);
        }
        return of.stream().map(l -> l.stream().mapToInt(Integer::intValue).toArray()).toList();
    }

    /** Whether a {@code ring.*} or {@code mring.*} key is set. */
    private boolean hasRingKeys() {
        return settings.names().stream().anyMatch(k -> k.startsWith("ring.") || k.startsWith("mring."));
    }
}
