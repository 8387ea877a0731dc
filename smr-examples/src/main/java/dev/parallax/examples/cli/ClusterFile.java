package dev.parallax.examples.cli;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.runtime.DatagramFaults;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.multicast.MulticastOrdering;
import dev.parallax.paxos.spaxos.SPaxosConfig;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxos;
import dev.parallax.ringpaxos.multiring.MultiRingConfig;
import dev.parallax.ringpaxos.multiring.MultiRingTopology;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cluster's configuration file (Java properties), shared by every replica of the cluster; each
 * replica is started with its own {@code --id}. Keys (see docs/operations.md):
 *
 * <pre>
 * members=0=10.0.0.1:7000,1=10.0.0.2:7000,2=10.0.0.3:7000   # replica-to-replica ports (required)
 * clients=0=10.0.0.1:8000,...        # SmrClient ports (default: replica port + 1000)
 * redis=0=10.0.0.1:6379,...          # RESP (Redis protocol) front ends (optional; service=kv)
 * service=kv                         # the replicated service: kv (the key-value store, default) | volery
 *                                    #   (seed 004's ZooKeeper service; needs execution=s-smr, which runs kv too)
 * zookeeper=0=10.0.0.1:2181,...      # ZooKeeper-protocol front ends of service=volery (optional)
 * data.dir=/var/lib/parallax         # durable state, one subdirectory per replica (optional)
 * snapshot.every=10000               # decided instances between snapshots (with data.dir)
 * snapshot.log.bytes=268435456       # or decided bytes since the last snapshot, whichever comes first
 * snapshot.transfer.timeout.ms=30000 # abandon a snapshot fetch after this long without a byte
 * snapshot.max.bytes=17179869184     # largest snapshot accepted from a peer
 * log.sync=every-batch               # every-batch | periodic | none (with data.dir)
 * client.io.threads=1                # Netty event loops for clients (default: cores/2, 1..4)
 * replica.io.threads=2               # Netty event loops for peer connections (default: one per peer)
 * wait=yield-park                    # busy-spin | yield-park | park
 * paxos.window=10                    # WND
 * paxos.batch.bytes=1300             # BSZ
 * paxos.batch.timeout.ms=1
 * paxos.eager.below=10               # propose a partial batch at once only below this many in flight (default WND)
 * paxos.heartbeat.ms=50
 * paxos.suspect.ms=500
 * paxos.retransmit.ms=200
 * paxos.catchup.ms=100
 * paxos.catchup.max.bytes=1048576    # bytes of decided values per catch-up reply / Phase 1 page (at most half a frame)
 * paxos.restart.hold.ms=2000         # a restarted replica starts no view before hearing a peer, for at most this long
 * ordering=multi-paxos               # the ordering protocol, see {@link Orderings}: multi-paxos | s-paxos | u-ring | m-ring | multi-ring
 *                                    #   | multicast
 * spaxos.batch.bytes=1300            # S-Paxos (ordering=s-paxos; it also reads paxos.* for its ordering layer):
 * spaxos.batch.timeout.ms=1          #   client batches of at most this many bytes (cbsz), closed after this long
 * spaxos.eager.below=2               #   disseminate a partial batch at once below this many own unstable batches
 * spaxos.ids.per.value=64            #   most batch ids per ordered value
 * spaxos.ack.interval.ms=1           #   quiet time before an explicit ack (eta); at most spaxos.ack.refresh.ms
 * spaxos.ack.refresh.ms=100          #   idle ack refresh
 * spaxos.resend.delay.ms=50          #   ask a holder for a missing body after this long (Delta)
 * spaxos.max.undecided=128           #   own undecided batches per origin (B, at most 1024)
 * spaxos.resend.max.bytes=1048576    #   body bytes per answer to a resend request
 * ring.window=32                     # Ring Paxos (ordering=u-ring or m-ring; seed 003 ch. 3): instances open at once
 * ring.batch.bytes=8000              #   BSZ: client batches of at most this many bytes (one datagram)
 * ring.batch.timeout.ms=1            #   a partial batch closes after this long
 * ring.eager.below=2                 #   propose a partial batch at once below this many open (own pending) instances
 * ring.packet.bytes=32768            #   largest ring (TCP) packet
 * ring.heartbeat.ms=50               #   coordinator heartbeats and member alive reports
 * ring.suspect.ms=500                #   silence after which a member is suspected (above ring.heartbeat.ms)
 * ring.retransmit.ms=100             #   re-send an unanswered Phase 1/2 message (below ring.stall.ms)
 * ring.catchup.ms=100                #   ask for decided values missing this long
 * ring.catchup.max.instances=256     #   instances per catch-up reply / Phase 1 page
 * ring.catchup.max.bytes=1048576     #   bytes per catch-up reply / Phase 1 page (at most half a frame)
 * ring.stall.ms=1000                 #   an instance open this long re-forms the ring without its first lagging member
 * ring.rejoin.backoff.ms=1000        #   an excluded member waits this long before it rejoins
 * ring.rejoin.lag=64                 #   and rejoins only within this many instances of the decided prefix
 * ring.max.backlog=1024              #   instances decided but not delivered by the slowest ring member (below 4096)
 * ring.max.pending=64                #   own proposals not yet decided, per member
 * ring.proposal.retry.ms=1000        #   re-send an own proposal not decided after this long
 * ring.restart.hold.ms=2000          #   a restarted member starts no round before hearing a peer, for at most this long
 * ring.lambda=0                      #   Multi-Ring (seed 003 ch. 5): skips keep the ring at this many instances/s
 *                                    #   (0: off; default 20000 with ordering=multi-ring)
 * ring.delta.ms=5                    #   and the coordinator checks every this long whether a skip is due
 * multiring.rings=2                  # Multi-Ring Paxos (ordering=multi-ring; seed 003 ch. 5): k rings, groups 0..k-1,
 *                                    #   plus (k > 1) the global ring for commands to several groups (1..64)
 * multiring.kind=m-ring              #   every ring's variant: m-ring | u-ring (each ring reads ring.* and mring.*)
 * multiring.m=1                      #   M: values merged from one ring before the next (seed 003 §5.2, Alg. 1)
 * multiring.ring.1.kind=u-ring       #   ring 1's variant (default multiring.kind); i = 0..k-1 or global
 * multiring.ring.1.group=239.255.80.9:7501  # ring 1's M-Ring datagram address (default mring.group:mring.port + i,
 *                                    #   the global ring mring.port + k)
 * multiring.ring.1.members=0,1,2     #   ring 1's replicas: every replica (the default; the ordering subscribes
 *                                    #   every replica to every group, so a ring that leaves one out is refused)
 * multiring.group.2=0                #   group 2 is ordered by ring 0 (default: group g by ring g, g &lt; k)
 * multicast.groups=2                 # the reference multicast (ordering=multicast; seed 003 ch. 5 with Multi-Paxos
 *                                    #   streams): k groups 0..k-1, one Multi-Paxos instance each, plus (k > 1) a
 *                                    #   global one (1..16); every stream reads paxos.*
 * mring.group=239.255.80.1           # M-Ring only (ordering=m-ring): the IP-multicast group of Phase 2A and decisions
 * mring.port=7400                    #   its UDP port (multi-ring: ring i uses mring.port + i, the global ring + k)
 * mring.interface=127.0.0.1          #   the address of the interface to multicast on (the NIC's address on a network)
 * mring.ttl=1                        #   multicast time to live (1: the local network only)
 * mring.packet.bytes=8192            #   largest datagram (512..65507); larger values go by TCP to the ring acceptors
 * mring.socket.buffer.bytes=4194304  #   UDP socket buffers asked for (the kernel caps them at rmem_max/wmem_max)
 * mring.window.min=1                 #   flow control never shrinks the window below this (at most ring.window)
 * mring.retransmit.ms=20             #   re-multicast an undecided Phase 2A after this long
 * mring.retransmit.max.bytes=1048576 #   bytes re-sent per retransmission round
 * mring.fc.threshold=256             #   a learner reports a backlog above this many instances
 * mring.fc.decrease.ms=10            #   the window halves at most once per this period
 * mring.fc.increase.ms=5             #   and grows by one per this period without a report
 * mring.learner.buffer=4096          #   instances a learner buffers ahead of its decided prefix
 * mring.learner.buffer.bytes=67108864 #  and bytes; beyond, datagrams are dropped (counted) and fetched by catch-up
 * mring.test.faults=                 #   tests and chaos only: drop=0.02,dup=0.01,reorder=4,seed=7
 * execution=sequential               # the executor, see {@link Executions}; p-smr needs an ordering with groups:
 *                                    #   multi-ring or multicast
 * execution.threads=2                # workers of a parallel executor (p-smr: one per group, = the ordering's groups,
 *                                    #   multiring.rings or multicast.groups, its default)
 * threads=auto                       # stage placement: staged | compact | auto (see ThreadPlacement)
 * tls.replica=required               # mutual TLS between replicas: required | off (default off)
 * tls.client=on                      # TLS on the client and Redis ports: on | off (default off)
 * tls.ca=certs/ca.crt                # the CA certificate(s), PEM (with either on)
 * tls.cert.0=certs/replica-0.crt     # each replica's certificate chain, PEM, naming parallax-replica-&lt;id&gt;
 * tls.key.0=certs/replica-0.key      # and its unencrypted PKCS#8 key, PEM (one pair per member)
 * tls.handshake.timeout.ms=10000     # a TLS handshake not done by then closes the connection
 * </pre>
 *
 * Relative TLS paths are resolved against the directory of the file (of the working directory
 * for a configuration built in memory). With TLS on, every member needs its {@code tls.cert.<id>}
 * and {@code tls.key.<id>} keys at load time; only the files of the replica being started are
 * read ({@link #checkTlsFiles}), since each machine holds its own key only.
 *
 * Immutable once loaded; unknown keys are rejected so typos do not pass silently, and so is an
 * unknown value of {@code ordering}, {@code execution} or {@code threads}, naming the key and the
 * accepted values. The {@code ring.*} and {@code mring.*} keys are checked, for 1..31 members (odd or
 * even: Ring Paxos quorums are majorities), when {@code ordering} is {@code u-ring}, {@code m-ring} or
 * {@code multi-ring}, and the
 * {@code multiring.*} keys are checked with {@code multi-ring}; with another ordering the ring keys
 * are checked (as M-Ring's) only when the member count is odd. {@code execution=p-smr} (P-SMR, seed
 * 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6) is refused without an ordering with groups
 * ({@link #routesByKey()}: {@code ordering=multi-ring} or {@code multicast}) and with an
 * {@code execution.threads} other than the ordering's group count ({@link #orderingGroups()}:
 * {@code multiring.rings} or {@code multicast.groups}, one worker per group), each error naming
 * the keys and the fix. Thread-safe (read-only after construction).
 */
public final class ClusterFile {
    /** The key that names the replicated service. */
    public static final String SERVICE_KEY = "service";
    /** The key-value store (the default service). */
    public static final String KV = "kv";
    /** Volery, the ZooKeeper service of seed 004 (S-SMR) §V-B. */
    public static final String VOLERY = "volery";
    /** The key of the reference multicast's group count ({@code ordering=multicast}). */
    public static final String MULTICAST_GROUPS_KEY = "multicast.groups";
    /** The reference multicast's groups when {@code multicast.groups} is absent. */
    public static final int DEFAULT_MULTICAST_GROUPS = 2;
    private static final Set<String> KEYS = Set.of("members", "clients", "redis", SERVICE_KEY, "zookeeper", "data.dir", "snapshot.every", "snapshot.log.bytes",
            "snapshot.transfer.timeout.ms", "snapshot.max.bytes", "log.sync",
            "client.io.threads", "replica.io.threads", "wait",
            "paxos.window", "paxos.batch.bytes", "paxos.batch.timeout.ms", "paxos.eager.below", "paxos.heartbeat.ms", "paxos.suspect.ms",
            "paxos.retransmit.ms", "paxos.catchup.ms", "paxos.catchup.max.bytes", "paxos.restart.hold.ms",
            "spaxos.batch.bytes", "spaxos.batch.timeout.ms", "spaxos.eager.below", "spaxos.ids.per.value", "spaxos.ack.interval.ms",
            "spaxos.ack.refresh.ms", "spaxos.resend.delay.ms", "spaxos.max.undecided", "spaxos.resend.max.bytes",
            "ring.window", "ring.batch.bytes", "ring.batch.timeout.ms", "ring.eager.below", "ring.packet.bytes", "ring.heartbeat.ms",
            "ring.suspect.ms", "ring.retransmit.ms", "ring.catchup.ms", "ring.catchup.max.instances", "ring.catchup.max.bytes",
            "ring.stall.ms", "ring.rejoin.backoff.ms", "ring.rejoin.lag", "ring.max.backlog", "ring.max.pending",
            "ring.proposal.retry.ms", "ring.restart.hold.ms", "ring.lambda", "ring.delta.ms",
            "mring.group", "mring.port", "mring.interface", "mring.ttl", "mring.packet.bytes", "mring.socket.buffer.bytes",
            "mring.window.min", "mring.retransmit.ms", "mring.retransmit.max.bytes", "mring.fc.threshold", "mring.fc.decrease.ms",
            "mring.fc.increase.ms", "mring.learner.buffer", "mring.learner.buffer.bytes", "mring.test.faults",
            "multiring.rings", "multiring.kind", "multiring.m", MULTICAST_GROUPS_KEY,
            Orderings.KEY, Executions.KEY, "execution.threads", "threads",
            "tls.replica", "tls.client", "tls.ca", "tls.handshake.timeout.ms");
    /** The per-replica TLS keys, {@code tls.cert.<id>} and {@code tls.key.<id>}. */
    private static final Pattern TLS_FILE_KEY = Pattern.compile("tls\\.(cert|key)\\.(\\d{1,9})");
    /**
     * The Multi-Ring topology keys, {@code multiring.ring.<i|global>.members|kind|group} and
     * {@code multiring.group.<g>} (ring and group numbers are checked with {@code ordering=multi-ring}).
     */
    private static final Pattern MULTIRING_TOPOLOGY_KEY =
            Pattern.compile("multiring\\.ring\\.(\\d{1,9}|global)\\.(members|kind|group)|multiring\\.group\\.\\d{1,9}");
    /** Workers of a parallel executor when {@code execution.threads} is absent. */
    public static final int DEFAULT_EXECUTION_THREADS = 2;

    private final Properties props;
    private final Path source;

    private ClusterFile(Properties props, Path source) {
        this.props = props;
        this.source = source;
    }

    /** @throws IllegalArgumentException naming the file and the faulty key */
    public static ClusterFile load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        ClusterFile f = new ClusterFile(p, file);
        f.validate();
        return f;
    }

    /** A configuration from properties already in memory (the demo writes its own). */
    public static ClusterFile of(Properties p) {
        ClusterFile f = new ClusterFile(p, null);
        f.validate();
        return f;
    }

    /**
     * This configuration with {@code settings} replacing (or adding) keys: the command line's
     * {@code --ordering}, {@code --execution} and {@code --threads} over the file's values.
     *
     * @throws IllegalArgumentException as {@link #load} does, for the result
     */
    public ClusterFile with(Map<String, String> settings) {
        Properties p = new Properties();
        p.putAll(props);
        p.putAll(settings);
        ClusterFile f = new ClusterFile(p, source);
        f.validate();
        return f;
    }

    /** Writes the configuration as a properties file. */
    public void write(Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            props.store(w, "Parallax cluster");
        }
    }

    private void validate() {
        Set<String> unknown = new TreeSet<>(props.stringPropertyNames());
        unknown.removeAll(KEYS);
        unknown.removeIf(k -> TLS_FILE_KEY.matcher(k).matches() || MULTIRING_TOPOLOGY_KEY.matcher(k).matches());
        if (!unknown.isEmpty()) {
            throw error("unknown keys " + unknown + "; known keys are " + new TreeSet<>(KEYS) + ", tls.cert.<id>, "
                    + "tls.key.<id>, multiring.ring.<i|global>.members|kind|group and multiring.group.<g>");
        }
        members();
        clients();
        redis();
        service();
        zookeeper();
        paxos();
        spaxos();
        Orderings ordering = ordering();
        multicastGroups();
        if (ordering == Orderings.MULTI_RING) {
            multiRing();
        } else if (ordering == Orderings.U_RING) {
            ring(Ring.Kind.U_RING);
        } else if (ordering == Orderings.M_RING || (hasRingKeys() && members().size() % 2 == 1 && members().size() <= 31)) {
            ring(Ring.Kind.M_RING);
        }
        execution();
        checkExecutionOrdering();
        executionThreads();
        for (int id = 0; id < members().size(); id++) {
            tls(id);
        }
        for (String key : props.stringPropertyNames()) {
            Matcher m = TLS_FILE_KEY.matcher(key);
            if (m.matches() && Integer.parseInt(m.group(2)) >= members().size()) {
                throw error(key + " names no member: ids are 0.." + (members().size() - 1));
            }
        }
        replica(0);
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException((source == null ? "configuration" : source.toString()) + ": " + what);
    }

    public ClusterMembers members() {
        String m = props.getProperty("members");
        if (m == null) {
            throw error("'members' is required, e.g. members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002");
        }
        try {
            return ClusterMembers.parse(m);
        } catch (IllegalArgumentException e) {
            throw error("members: " + e.getMessage());
        }
    }

    /** Client endpoints, or empty for the default (replica port + 1000). */
    public Optional<ClusterMembers> clients() {
        return optionalMembers("clients");
    }

    public Optional<ClusterMembers> redis() {
        return optionalMembers("redis");
    }

    /**
     * The replicated service ({@code service}): {@value #KV} (default) or {@value #VOLERY}.
     *
     * @throws IllegalArgumentException naming the key and the accepted values
     */
    public String service() {
        String v = props.getProperty(SERVICE_KEY);
        String s = v == null ? KV : v.trim().toLowerCase(java.util.Locale.ROOT);
        if (!s.equals(KV) && !s.equals(VOLERY)) {
            throw error(SERVICE_KEY + " must be " + KV + " or " + VOLERY + ", got '" + v + "'");
        }
        return s;
    }

    /** The ZooKeeper-protocol front ends of {@code service=volery} ({@code zookeeper}), if any. */
    public Optional<ClusterMembers> zookeeper() {
        return optionalMembers("zookeeper");
    }

    private Optional<ClusterMembers> optionalMembers(String key) {
        String v = props.getProperty(key);
        if (v == null || v.isBlank()) {
            return Optional.empty();
        }
        try {
            ClusterMembers c = ClusterMembers.parse(v);
            if (c.size() != members().size()) {
                throw error(key + " lists " + c.size() + " replicas, members lists " + members().size());
            }
            return Optional.of(c);
        } catch (IllegalArgumentException e) {
            throw error(key + ": " + e.getMessage());
        }
    }

    public ReplicaConfig replica(int id) {
        ReplicaConfig.Builder b = ReplicaConfig.builder().id(id).members(members());
        clients().ifPresent(b::clientMembers);
        String dir = props.getProperty("data.dir");
        if (dir != null && !dir.isBlank()) {
            b.dataDirectory(Path.of(dir).resolve("replica-" + id));
        }
        String threads = props.getProperty("client.io.threads");
        if (threads != null) {
            b.clientIoThreads(intValue("client.io.threads"));
        }
        if (props.getProperty("replica.io.threads") != null) {
            b.replicaIoThreads(intValue("replica.io.threads"));
        }
        String sync = props.getProperty("log.sync");
        if (sync != null) {
            b.logSync(switch (sync.trim()) {
                case "every-batch" -> dev.parallax.core.spi.SyncPolicy.EVERY_BATCH;
                case "periodic" -> dev.parallax.core.spi.SyncPolicy.PERIODIC;
                case "none" -> dev.parallax.core.spi.SyncPolicy.NONE;
                default -> throw error("log.sync must be every-batch, periodic or none, got '" + sync + "'");
            });
        }
        Long logBytes = props.containsKey("snapshot.log.bytes") ? longValue("snapshot.log.bytes") : null;
        Optional<Duration> transferTimeout = millis("snapshot.transfer.timeout.ms");
        Long maxSnapshot = props.containsKey("snapshot.max.bytes") ? longValue("snapshot.max.bytes") : null;
        try {
            if (logBytes != null) {
                b.snapshotLogBytes(logBytes);
            }
            transferTimeout.ifPresent(b::snapshotTransferTimeout);
            if (maxSnapshot != null) {
                b.snapshotMaxBytes(maxSnapshot);
            }
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
        String wait = props.getProperty("wait");
        if (wait != null) {
            b.waitMode(switch (wait.trim()) {
                case "busy-spin" -> ReplicaConfig.WaitMode.BUSY_SPIN;
                case "yield-park" -> ReplicaConfig.WaitMode.YIELD_PARK;
                case "park" -> ReplicaConfig.WaitMode.PARK;
                default -> throw error("wait must be busy-spin, yield-park or park, got '" + wait + "'");
            });
        }
        b.threads(threads());
        b.tls(tls(id));
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /** The ordering protocol ({@code ordering}); default {@link Orderings#DEFAULT}. */
    public Orderings ordering() {
        String v = props.getProperty(Orderings.KEY);
        try {
            return v == null ? Orderings.DEFAULT : Orderings.parse(v);
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /** A new, unstarted instance of the {@link #ordering()} protocol, configured by this file. */
    public OrderingProtocol orderingProtocol() {
        return ordering().create(this);
    }

    /** The executor ({@code execution}); default {@link Executions#DEFAULT}. */
    public Executions execution() {
        String v = props.getProperty(Executions.KEY);
        try {
            return v == null ? Executions.DEFAULT : Executions.parse(v);
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
        if (props.containsKey("execution.threads")) {
            given = intValue("execution.threads");
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
        if (!volery && zookeeper().isPresent()) {
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
     * every other ordering (one stream, everything in the default group). The one place that
     * answers "how many groups": client routing, the store's partitions and P-SMR's workers all
     * read it.
     *
     * @throws IllegalArgumentException naming the file and the faulty key
     */
    public int orderingGroups() {
        return switch (ordering()) {
            case MULTI_RING -> multiRing().rings();
            case MULTICAST -> multicastGroups();
            default -> 1;
        };
    }

    /** The key that sets {@code ordering}'s group count ({@link #orderingGroups()}), or null if it has one stream only. */
    static String groupsKey(Orderings ordering) {
        return switch (ordering) {
            case MULTI_RING -> "multiring.rings";
            case MULTICAST -> MULTICAST_GROUPS_KEY;
            default -> null;
        };
    }

    /**
     * The reference multicast's group count ({@code multicast.groups}, checked whenever set, used with
     * {@code ordering=multicast}); default {@value #DEFAULT_MULTICAST_GROUPS},
     * 1..{@value MulticastOrdering#MAX_GROUPS} (one Multi-Paxos instance per group and, with more than one,
     * a global one, all in each replica process).
     *
     * @throws IllegalArgumentException naming the file, the key and the accepted range
     */
    public int multicastGroups() {
        if (!props.containsKey(MULTICAST_GROUPS_KEY)) {
            return DEFAULT_MULTICAST_GROUPS;
        }
        int k = intValue(MULTICAST_GROUPS_KEY);
        if (k < 1 || k > MulticastOrdering.MAX_GROUPS) {
            throw error(MULTICAST_GROUPS_KEY + " must be 1.." + MulticastOrdering.MAX_GROUPS + " (groups of "
                    + Orderings.KEY + "=" + Orderings.MULTICAST.configName() + "), got " + k);
        }
        return k;
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
        String v = props.getProperty("threads");
        try {
            return v == null ? ThreadPlacement.jvmDefault() : ThreadPlacement.parse(v);
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
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

    /**
     * Replica {@code id}'s TLS settings ({@code tls.*}); {@link TlsConfig#OFF} unless
     * {@code tls.replica=required} or {@code tls.client=on}. Checks the keys, not the files.
     *
     * @throws IllegalArgumentException naming the key that is missing or malformed
     */
    public TlsConfig tls(int id) {
        boolean replicaPort = switchValue("tls.replica", "required", "off");
        boolean clientPorts = switchValue("tls.client", "on", "off");
        if (!replicaPort && !clientPorts) {
            return TlsConfig.OFF;
        }
        TlsConfig.Builder b = TlsConfig.builder().replicaPort(replicaPort).clientPorts(clientPorts)
                .trust(path("tls.ca")).identity(path("tls.cert." + id), path("tls.key." + id));
        Optional<Duration> handshake = millis("tls.handshake.timeout.ms");
        try {
            handshake.ifPresent(b::handshakeTimeout);
            return b.build();
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /** The CA certificate clients must trust, when the client ports run TLS ({@code tls.client=on}). */
    public Optional<Path> clientTrust() {
        return switchValue("tls.client", "on", "off") ? Optional.of(path("tls.ca")) : Optional.empty();
    }

    /**
     * Reads the TLS files of replica {@code id} (CA, certificate, key), so that a replica whose
     * files are missing or broken fails at start-up with the key and file named, before any port
     * opens. Does nothing with TLS off.
     *
     * @throws IllegalArgumentException naming the key, the file and what is wrong
     */
    public void checkTlsFiles(int id) {
        TlsConfig tls = tls(id);
        if (!tls.enabled()) {
            return;
        }
        for (String key : new String[] {"tls.ca", "tls.cert." + id, "tls.key." + id}) {
            Path file = path(key);
            if (!Files.isRegularFile(file)) {
                throw error(key + "=" + file + ": no such file");
            }
            if (!Files.isReadable(file)) {
                throw error(key + "=" + file + ": not readable by this user");
            }
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

    private boolean switchValue(String key, String on, String off) {
        String v = props.getProperty(key);
        if (v == null || v.trim().equals(off)) {
            return false;
        }
        if (v.trim().equals(on)) {
            return true;
        }
        throw error(key + " must be " + on + " or " + off + ", got '" + v + "'");
    }

    /** The path a key names, relative paths resolved against the file's directory. */
    private Path path(String key) {
        String v = props.getProperty(key);
        if (v == null || v.isBlank()) {
            throw error("'" + key + "' is required with TLS on (tls.replica=required or tls.client=on)");
        }
        Path p = Path.of(v.trim());
        if (p.isAbsolute() || source == null) {
            return p;
        }
        Path dir = source.toAbsolutePath().getParent();
        return dir == null ? p : dir.resolve(p);
    }

    /** Decided instances between snapshots, if set. */
    public Optional<Long> snapshotEvery() {
        if (!props.containsKey("snapshot.every")) {
            return Optional.empty();
        }
        int n = intValue("snapshot.every");
        if (n < 1) {
            throw error("snapshot.every must be >= 1");
        }
        return Optional.of((long) n);
    }

    public PaxosConfig paxos() {
        PaxosConfig.Builder b = PaxosConfig.builder(members().size());
        try {
            if (props.containsKey("paxos.window")) {
                b.window(intValue("paxos.window"));
            }
            if (props.containsKey("paxos.batch.bytes")) {
                b.batchBytes(intValue("paxos.batch.bytes"));
            }
            millis("paxos.batch.timeout.ms").ifPresent(b::batchTimeout);
            if (props.containsKey("paxos.eager.below")) {
                b.eagerBelow(intValue("paxos.eager.below"));
            }
            millis("paxos.heartbeat.ms").ifPresent(b::heartbeat);
            millis("paxos.suspect.ms").ifPresent(b::suspect);
            millis("paxos.retransmit.ms").ifPresent(b::retransmit);
            millis("paxos.catchup.ms").ifPresent(b::catchUp);
            millis("paxos.restart.hold.ms").ifPresent(b::restartHold);
            if (props.containsKey("paxos.catchup.max.bytes")) {
                int n = intValue("paxos.catchup.max.bytes");
                if (n > ReplicaConfig.DEFAULT_MAX_FRAME / 2) {
                    throw new IllegalArgumentException("paxos.catchup.max.bytes must be at most half the " + ReplicaConfig.DEFAULT_MAX_FRAME
                            + "-byte frame limit, got " + n);
                }
                b.catchUpMaxBytes(n);
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /**
     * The S-Paxos settings ({@code spaxos.*}, seed 002 (S-Paxos) §IV-C; docs/protocols/s-paxos.md
     * "Configuration"), with {@link #paxos()} for its ordering layer; defaults for absent keys.
     *
     * @throws IllegalArgumentException naming the file and the faulty key
     */
    public SPaxosConfig spaxos() {
        SPaxosConfig.Builder b = SPaxosConfig.builder(members().size()).paxos(paxos());
        intSetting("spaxos.batch.bytes", b::batchBytes);
        millisSetting("spaxos.batch.timeout.ms", b::batchTimeout);
        intSetting("spaxos.eager.below", b::eagerBelow);
        intSetting("spaxos.ids.per.value", b::idsPerValue);
        millisSetting("spaxos.ack.interval.ms", b::ackInterval);
        millisSetting("spaxos.ack.refresh.ms", b::ackRefresh);
        millisSetting("spaxos.resend.delay.ms", b::resendDelay);
        intSetting("spaxos.max.undecided", b::maxUndecidedPerOrigin);
        intSetting("spaxos.resend.max.bytes", b::resendMaxBytes);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            // The only check across keys: the ack interval must not exceed the refresh.
            throw error("spaxos.ack.interval.ms must not exceed spaxos.ack.refresh.ms: " + e.getMessage());
        }
    }

    /**
     * The Ring Paxos settings ({@code ring.*}, and {@code mring.*} for M-Ring; seed 003 (Ring Paxos)
     * ch. 3; docs/protocols/ring-paxos.md "Configuration") for variant {@code kind}; defaults for
     * absent keys.
     *
     * @throws IllegalArgumentException naming the file and the faulty key, or the member count if it
     *                                  is even (a ring cluster has n = 2f+1 members)
     */
    public RingConfig ring(Ring.Kind kind) {
        RingConfig.Builder b;
        try {
            b = RingConfig.builder(members().size(), kind);
        } catch (IllegalArgumentException e) {
            throw error("members: " + e.getMessage());
        }
        intSetting("ring.window", b::window);
        intSetting("ring.batch.bytes", b::batchBytes);
        millisSetting("ring.batch.timeout.ms", b::batchTimeout);
        intSetting("ring.eager.below", b::eagerBelow);
        intSetting("ring.packet.bytes", b::packetBytes);
        millisSetting("ring.heartbeat.ms", b::heartbeat);
        millisSetting("ring.suspect.ms", b::suspect);
        millisSetting("ring.retransmit.ms", b::retransmit);
        millisSetting("ring.catchup.ms", b::catchUp);
        intSetting("ring.catchup.max.instances", b::catchUpMaxInstances);
        intSetting("ring.catchup.max.bytes", n -> {
            if (n > ReplicaConfig.DEFAULT_MAX_FRAME / 2) {
                throw new IllegalArgumentException("must be at most half the " + ReplicaConfig.DEFAULT_MAX_FRAME
                        + "-byte frame limit, got " + n);
            }
            b.catchUpMaxBytes(n);
        });
        millisSetting("ring.stall.ms", b::stall);
        millisSetting("ring.rejoin.backoff.ms", b::rejoinBackoff);
        intSetting("ring.rejoin.lag", b::rejoinLag);
        intSetting("ring.max.backlog", b::maxBacklog);
        intSetting("ring.max.pending", b::maxPending);
        millisSetting("ring.proposal.retry.ms", b::proposalRetry);
        millisSetting("ring.restart.hold.ms", b::restartHold);
        if (props.containsKey("ring.lambda")) {
            long lambda = longValue("ring.lambda");
            try {
                b.lambda(lambda);
            } catch (IllegalArgumentException e) {
                throw error("ring.lambda: " + e.getMessage());
            }
        }
        millisSetting("ring.delta.ms", b::skipInterval);
        stringSetting("mring.group", b::mringGroup);
        intSetting("mring.port", b::mringPort);
        stringSetting("mring.interface", b::mringInterface);
        intSetting("mring.ttl", b::mringTtl);
        intSetting("mring.packet.bytes", b::mringPacketBytes);
        intSetting("mring.socket.buffer.bytes", b::mringSocketBufferBytes);
        intSetting("mring.window.min", b::mringWindowMin);
        millisSetting("mring.retransmit.ms", b::mringRetransmit);
        intSetting("mring.retransmit.max.bytes", b::mringRetransmitMaxBytes);
        intSetting("mring.fc.threshold", b::mringFcThreshold);
        millisSetting("mring.fc.decrease.ms", b::mringFcDecrease);
        millisSetting("mring.fc.increase.ms", b::mringFcIncrease);
        intSetting("mring.learner.buffer", b::mringLearnerBuffer);
        if (props.containsKey("mring.learner.buffer.bytes")) {
            long n = longValue("mring.learner.buffer.bytes");
            try {
                b.mringLearnerBufferBytes(n);
            } catch (IllegalArgumentException e) {
                throw error("mring.learner.buffer.bytes: " + e.getMessage());
            }
        }
        stringSetting("mring.test.faults", spec -> {
            if (!spec.isBlank()) {
                DatagramFaults.parse(spec);
            }
            b.mringTestFaults(spec);
        });
        RingConfig config;
        try {
            // The checks across keys name both keys.
            config = b.build();
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
        if (kind == Ring.Kind.M_RING) {
            try {
                RingPaxos.datagramGroup(config);
            } catch (IllegalArgumentException e) {
                throw error("mring.*: " + e.getMessage());
            }
        }
        return config;
    }

    /**
     * The Multi-Ring Paxos settings ({@code multiring.*}, and the {@code ring.*} / {@code mring.*} keys
     * every ring shares; seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2, Alg. 1): k =
     * {@code multiring.rings} group rings (default {@value MultiRingConfig#DEFAULT_RINGS}) and, with
     * k &gt; 1, the global ring, every one a {@code multiring.kind} ring ({@code m-ring}, the default,
     * or {@code u-ring}), merged {@code multiring.m} values at a time (default 1), skipping at
     * {@code ring.lambda} per second (default {@value MultiRingConfig#DEFAULT_LAMBDA}; must be
     * positive: an idle ring would stall the merge) every {@code ring.delta.ms} (default 5 ms). With
     * M-Ring rings, ring i's datagrams use {@code mring.port + i} and the global ring's
     * {@code mring.port + k}, so that port must exist.
     *
     * @throws IllegalArgumentException naming the file and the faulty key
     */
    public MultiRingConfig multiRing() {
        Ring.Kind kind = multiRingKind();
        RingConfig template = ring(kind);
        MultiRingConfig.Builder b = MultiRingConfig.builder(members().size()).ringSettings(template).kind(kind)
                .partitioned(execution().partitioned());
        intSetting("multiring.rings", b::rings);
        intSetting("multiring.m", b::roundLength);
        if (props.containsKey("ring.lambda")) {
            long lambda = longValue("ring.lambda");
            try {
                b.lambda(lambda);
            } catch (IllegalArgumentException e) {
                throw error(e.getMessage());
            }
        }
        millisSetting("ring.delta.ms", b::skipInterval);
        MultiRingConfig config;
        try {
            config = b.build();
        } catch (IllegalArgumentException e) {
            throw error("multiring.rings, mring.port: " + e.getMessage());
        }
        boolean partitioned = execution().partitioned();
        if (!partitioned && props.stringPropertyNames().stream().noneMatch(k -> MULTIRING_TOPOLOGY_KEY.matcher(k).matches())) {
            return config;
        }
        // The per-ring keys: the topology reads them with multiring.rings, multiring.kind, mring.group and mring.port.
        Map<String, String> keys = new LinkedHashMap<>();
        for (String k : props.stringPropertyNames()) {
            keys.put(k, props.getProperty(k));
        }
        if (partitioned) {
            partitionRings(config.rings(), keys);
        }
        try {
            config = b.topology(MultiRingTopology.parse(keys, members().size())).build();
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
        for (int i = 0; i < config.streams(); i++) {
            if (config.kind(i) == Ring.Kind.M_RING) {
                try {
                    RingPaxos.datagramGroup(config.ring(i));
                } catch (IllegalArgumentException e) {
                    throw error("multiring.ring." + (i == config.rings() && config.rings() > 1 ? "global" : i)
                            + ".group: " + e.getMessage());
                }
            }
        }
        return config;
    }

    /**
     * S-SMR's default layout (seed 004 (S-SMR) §VI: a ring per partition over its replicas, and a
     * global ring over all): unless the file names a partition ring's members, partition p's ring
     * gets the p-th block of {@code members / partitions} consecutive ids.
     */
    private void partitionRings(int partitions, Map<String, String> keys) {
        int n = members().size();
        if (n % partitions != 0) {
            throw error(Executions.KEY + "=" + Executions.S_SMR.configName() + " splits the " + n + " members into "
                    + "multiring.rings=" + partitions + " partitions of equal size: list a multiple of " + partitions
                    + " members, or name each partition's replicas with multiring.ring.<p>.members");
        }
        int size = n / partitions;
        for (int p = 0; p < partitions; p++) {
            StringBuilder ids = new StringBuilder();
            for (int i = p * size; i < (p + 1) * size; i++) {
                ids.append(ids.length() == 0 ? "" : ",").append(i);
            }
            keys.putIfAbsent("multiring.ring." + p + ".members", ids.toString());
        }
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

    /** {@code multiring.kind}: {@code m-ring} (default) or {@code u-ring}; the error names the key and the accepted values. */
    private Ring.Kind multiRingKind() {
        String v = props.getProperty("multiring.kind");
        if (v == null || v.trim().equals(RingPaxos.M_RING)) {
            return Ring.Kind.M_RING;
        }
        if (v.trim().equals(RingPaxos.U_RING)) {
            return Ring.Kind.U_RING;
        }
        throw error("multiring.kind must be " + RingPaxos.M_RING + " or " + RingPaxos.U_RING + ", got '" + v + "'");
    }

    /** Whether a {@code ring.*} or {@code mring.*} key is set. */
    private boolean hasRingKeys() {
        return props.stringPropertyNames().stream().anyMatch(k -> k.startsWith("ring.") || k.startsWith("mring."));
    }

    /** Hands the trimmed text under {@code key}, if present, to {@code set}; its refusal names the key. */
    private void stringSetting(String key, java.util.function.Consumer<String> set) {
        if (props.containsKey(key)) {
            try {
                set.accept(props.getProperty(key).trim());
            } catch (IllegalArgumentException e) {
                throw error(key + ": " + e.getMessage());
            }
        }
    }

    /** Hands the whole number under {@code key}, if present, to {@code set}; its refusal names the key. */
    private void intSetting(String key, java.util.function.IntConsumer set) {
        if (props.containsKey(key)) {
            int v = intValue(key);
            try {
                set.accept(v);
            } catch (IllegalArgumentException e) {
                throw error(key + ": " + e.getMessage());
            }
        }
    }

    /** Hands the milliseconds under {@code key}, if present, to {@code set}; its refusal names the key. */
    private void millisSetting(String key, java.util.function.Consumer<Duration> set) {
        Optional<Duration> d = millis(key);
        if (d.isPresent()) {
            try {
                set.accept(d.get());
            } catch (IllegalArgumentException e) {
                throw error(key + ": " + e.getMessage());
            }
        }
    }

    private int intValue(String key) {
        String v = props.getProperty(key).trim();
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw error(key + " is not a whole number: '" + v + "'");
        }
    }

    private long longValue(String key) {
        String v = props.getProperty(key).trim();
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw error(key + " is not a whole number: '" + v + "'");
        }
    }

    private Optional<Duration> millis(String key) {
        return props.containsKey(key) ? Optional.of(Duration.ofMillis(intValue(key))) : Optional.empty();
    }
}
