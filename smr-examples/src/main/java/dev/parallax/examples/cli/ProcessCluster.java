package dev.parallax.examples.cli;

import dev.parallax.examples.process.ClusterSecretFile;
import dev.parallax.examples.process.ServerProcesses;
import dev.parallax.examples.testbed.Testbed;

import dev.parallax.core.stage.ThreadPlacement;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.ringpaxos.multiring.MultiRingConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * A cluster of replica processes on 127.0.0.1, or one per host of a {@link Testbed} (replica
 * {@code i} in host {@code i mod N}, its endpoints and metrics endpoint on that host's address,
 * M-Ring's multicast on the hosts' {@code eth0}), each a separate JVM running
 * {@code parallax replica}, for the demo, the chaos run and the multi-process tests. Picks free
 * ports, writes the cluster file into a work directory, starts, SIGKILLs and restarts processes,
 * and waits for each replica's {@code READY} line. With TLS, it makes a throwaway CA and the
 * replicas' certificates in {@code <dir>/tls} ({@link ClusterCertificates}) and turns on mutual
 * TLS between the replicas and TLS on their client (and Redis) ports; {@link #clientConfig()}
 * gives clients that trust that CA. Thread-safe for the owner's use.
 */
public final class ProcessCluster implements AutoCloseable {
    private final int size;
    private final Path configFile;
    private final ClusterFile cluster;
    private final ServerProcesses processes;
    private final List<String> replicaArgs = new ArrayList<>();
    private final int[] metricsPorts;
    private final boolean[] launched;
    private final ClusterCertificates certificates;
    private final Testbed bed;

    /**
     * A cluster without TLS.
     *
     * @param extra extra properties for the cluster file (paxos settings, redis=... is added when
     *              {@code withRedis})
     */
    public ProcessCluster(Path dir, int size, Properties extra, boolean withRedis, List<String> jvmOptions) throws IOException {
        this(dir, size, extra, withRedis, jvmOptions, false);
    }

    /**
     * @param extra extra properties for the cluster file (paxos settings, redis=... is added when
     *              {@code withRedis})
     * @param tls   mutual TLS between the replicas and TLS on their client and Redis ports, with
     *              certificates generated into {@code <dir>/tls}
     */
    public ProcessCluster(Path dir, int size, Properties extra, boolean withRedis, List<String> jvmOptions, boolean tls)
            throws IOException {
        this(dir, size, extra, withRedis, jvmOptions, tls, null);
    }

    /**
     * As {@link #ProcessCluster(Path, int, Properties, boolean, List, boolean)}, on the hosts of
     * {@code bed} when it is not null.
     */
    public ProcessCluster(Path dir, int size, Properties extra, boolean withRedis, List<String> jvmOptions, boolean tls,
            Testbed bed) throws IOException {
        this.size = size;
        this.bed = bed;
        List<String> jvm = new ArrayList<>(JvmFlags.replica());
        jvm.addAll(jvmOptions);
        this.processes = new ServerProcesses(dir, jvm);
        Properties p = new Properties();
        p.putAll(extra);
        p.setProperty("members", endpoints(size));
        p.setProperty("clients", endpoints(size));
        if (withRedis) {
            p.setProperty("redis", endpoints(size));
        }
        certificates = tls ? ClusterCertificates.generate(dir.resolve("tls"), size) : null;
        if (tls) {
            p.putAll(ClusterFile.tlsSettings(certificates, true));
        }
        if (!p.containsKey(dev.parallax.core.config.ReplicaKeys.CLUSTER_SECRET.name())) {
            // The key of the M-Ring datagrams' HMAC (any ordering may be chosen later with --ordering).
            p.putAll(ClusterSecretFile.write(dir.resolve(ClusterSecretFile.NAME)));
        }
        // M-Ring (ordering=m-ring, here or by --ordering later; any member count: Ring Paxos quorums are
        // majorities, even rings included): a UDP port free now and a group of its own, so that
        // clusters on this machine do not hear each other's datagrams. Multi-Ring with M-Ring rings
        // (ordering=multi-ring) uses mring.port + i for ring i and mring.port + k for the global ring:
        // k + 1 consecutive ports, free now.
        if (!p.containsKey("mring.port")) {
            p.setProperty("mring.port", Integer.toString(freeUdpPorts(1 + multiRingRings(p))));
        }
        if (!p.containsKey("mring.group")) {
            p.setProperty("mring.group", randomGroup());
        }
        if (!p.containsKey("threads") && System.getProperty(ThreadPlacement.PROPERTY) != null) {
            // The replica JVMs do not inherit this JVM's properties: a test run's placement goes in the file.
            p.setProperty("threads", ThreadPlacement.jvmDefault().configName());
        }
        if (bed != null) {
            for (String key : ENDPOINT_KEYS) {
                if (p.containsKey(key)) {
                    p.setProperty(key, bed.place(p.getProperty(key)));
                }
            }
            p.setProperty("mring.interface", Testbed.INTERFACE);
        }
        cluster = ClusterFile.of(p);
        configFile = dir.resolve("cluster.properties");
        cluster.write(configFile);
        metricsPorts = new int[size];
        launched = new boolean[size];
    }

    /** The cluster-file keys whose values are endpoint lists, placed on the test bed's hosts. */
    private static final List<String> ENDPOINT_KEYS = List.of("members", "clients", "redis", "zookeeper");

    /** The test bed the replicas run on, or empty: 127.0.0.1. */
    public Optional<Testbed> testbed() {
        return Optional.ofNullable(bed);
    }

    /** The address replica {@code id}'s endpoints (and metrics endpoint) are on. */
    public String host(int id) {
        return bed == null ? "127.0.0.1" : bed.address(bed.hostOf(id));
    }

    /** {@code http://<host>:<metrics port><path>} of replica {@code id}. */
    public java.net.URI metricsUri(int id, String path) {
        return java.net.URI.create("http://" + host(id) + ":" + metricsPort(id) + path);
    }

    /** The first sample of {@code metric} at replica {@code id}'s metrics endpoint, or -1 ({@link ReplicaMetrics}). */
    public long gauge(int id, String metric) {
        return gauge(id, metric, "");
    }

    /** As {@link #gauge(int, String)}, the first sample whose labels contain {@code label}. */
    public long gauge(int id, String metric, String label) {
        return ReplicaMetrics.gauge(host(id), metricsPort(id), metric, label);
    }

    /** Extra arguments for every replica process (e.g. {@code --metrics-port 0 --fault-control}). */
    public ProcessCluster replicaArgs(String... args) {
        replicaArgs.addAll(List.of(args));
        return this;
    }

    /** The metrics (and fault-control) port of replica {@code id} as its READY line reported, or -1. */
    public int metricsPort(int id) {
        return id < size ? metricsPorts[id] : joinerMetricsPorts.getOrDefault(id, -1);
    }

    /** Metrics ports of the replicas that joined the group, by id. */
    private final java.util.Map<Integer, Integer> joinerMetricsPorts = new java.util.HashMap<>();

    /**
     * Starts a replica that joins the running group under {@code id} (outside the file's members,
     * up to 31) at {@code hostPort} ({@code --join}), with the extra replica arguments and a metrics
     * port of its own, and waits for its READY line. The group must still add it (a membership change).
     */
    public void startJoiner(int id, String hostPort, Duration timeout) throws IOException, InterruptedException {
        if (id < size) {
            throw new IllegalArgumentException("replica " + id + " is in the cluster file; a joiner has an id from " + size);
        }
        List<String> args = new ArrayList<>(List.of("replica", "--config", configFile.toString(), "--id", Integer.toString(id),
                "--join", hostPort));
        if (joinerMetricsPorts.putIfAbsent(id, -1) == null) {
            // Its first start: the empty data directory is a new replica's, not a wiped one (a
            // replica that joins never voted under this id before).
            args.add("--bootstrap");
        }
        args.addAll(replicaArgs);
        if (!replicaArgs.contains("--metrics-port")) {
            args.addAll(List.of("--metrics-port", "0"));
        }
        launchProcess(id, args);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("metrics=(-?\\d+)")
                .matcher(processes.awaitReady(name(id), timeout));
        joinerMetricsPorts.put(id, m.find() ? Integer.parseInt(m.group(1)) : -1);
    }

    /** The {@code multiring.rings} of the settings, or the default when absent or not a number (the file check names it). */
    private static int multiRingRings(Properties p) {
        try {
            int k = Integer.parseInt(p.getProperty("multiring.rings", "").trim());
            return k >= 1 && k <= MultiRingConfig.MAX_RINGS ? k : MultiRingConfig.DEFAULT_RINGS;
        } catch (NumberFormatException e) {
            return MultiRingConfig.DEFAULT_RINGS;
        }
    }

    /**
     * The first of {@code count} consecutive UDP ports free on this machine at the time of the call:
     * an ephemeral port the kernel picks, kept if the ports after it bind too, else another try.
     *
     * @throws IOException if no such run is found in 100 tries
     */
    static int freeUdpPorts(int count) throws IOException {
        java.net.InetAddress loopback = java.net.InetAddress.getLoopbackAddress();
        for (int attempt = 0; attempt < 100; attempt++) {
            List<java.net.DatagramSocket> held = new ArrayList<>();
            try {
                java.net.DatagramSocket first = new java.net.DatagramSocket(0, loopback);
                held.add(first);
                int base = first.getLocalPort();
                if (base + count - 1 > 65535) {
                    continue;
                }
                for (int i = 1; i < count; i++) {
                    held.add(new java.net.DatagramSocket(base + i, loopback));
                }
                return base;
            } catch (java.net.SocketException taken) {
                // One of the following ports is in use: try another run.
            } finally {
                held.forEach(java.net.DatagramSocket::close);
            }
        }
        throw new IOException("no " + count + " consecutive free UDP ports found on this machine");
    }

    /** A random administratively scoped IPv4 multicast group, 239.255.x.y with x, y in 1..254. */
    private static String randomGroup() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        return "239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255);
    }

    private static String endpoints(int n) {
        return dev.parallax.core.net.LocalPorts.endpoints(n);
    }

    /**
     * Cluster-file settings for a local cluster on this machine: one client event loop per replica,
     * and, when {@code dataDir} is given, durable state there with a snapshot every
     * {@code snapshotEvery} instances.
     */
    public static Properties localDefaults(Path dataDir, long snapshotEvery) {
        Properties p = new Properties();
        p.setProperty("client.io.threads", "1");
        if (dataDir != null) {
            p.setProperty("data.dir", dataDir.toString());
            p.setProperty("snapshot.every", Long.toString(snapshotEvery));
        }
        return p;
    }

    public ClusterMembers clientEndpoints() {
        return cluster.replica(0).clientMembers();
    }

    /** A builder of a client of this cluster: its client endpoints, and its CA to trust when it runs TLS. */
    public ClientConfig.Builder clientConfig() {
        ClientConfig.Builder b = ClientConfig.builder(clientEndpoints());
        cluster.clientTrust().ifPresent(b::tlsTrust);
        return b;
    }

    /** The certificates of a TLS cluster (the CA a client, redis-cli included, must trust), or empty. */
    public Optional<ClusterCertificates> certificates() {
        return Optional.ofNullable(certificates);
    }

    public ClusterMembers redisEndpoints() {
        return cluster.redis().orElseThrow();
    }

    /** The cluster file every replica of this cluster reads. */
    public ClusterFile clusterFile() {
        return cluster;
    }

    public Path configFile() {
        return configFile;
    }

    public int size() {
        return size;
    }

    /**
     * Starts every replica and waits until all are ready. The first launch of each replica is the
     * first start of a new cluster and passes {@code --bootstrap}; later launches (restarts) do not,
     * so a replica whose data directory was wiped meanwhile recovers from its peers before voting.
     */
    public void startAll(Duration timeout) throws IOException, InterruptedException {
        for (int i = 0; i < size; i++) {
            launch(i);
        }
        for (int i = 0; i < size; i++) {
            awaitReady(i, timeout);
        }
    }

    /**
     * Starts replica {@code id} (again) and waits for its READY line; only its first launch passes
     * {@code --bootstrap} (see {@link #startAll}).
     */
    public void start(int id, Duration timeout) throws IOException, InterruptedException {
        launch(id);
        awaitReady(id, timeout);
    }

    private void launch(int id) throws IOException {
        List<String> args = new ArrayList<>(List.of("replica", "--config", configFile.toString(), "--id", Integer.toString(id)));
        if (!launched[id]) {
            args.add("--bootstrap");
            launched[id] = true;
        }
        args.addAll(replicaArgs);
        launchProcess(id, args);
    }

    /** Starts replica {@code id}'s JVM: on this machine, or in its test-bed host with its metrics endpoint on the host's address. */
    private void launchProcess(int id, List<String> args) throws IOException {
        if (bed == null) {
            processes.launch(name(id), ParallaxCli.class.getName(), args, List.of());
            return;
        }
        List<String> placed = new ArrayList<>(args);
        placed.addAll(List.of("--metrics-host", host(id)));
        processes.launch(name(id), ParallaxCli.class.getName(), placed, bed.inHost(bed.hostOf(id)));
    }

    private static String name(int id) {
        return "replica-" + id;
    }

    public Path log(int id) {
        return processes.log(name(id));
    }

    private void awaitReady(int id, Duration timeout) throws IOException, InterruptedException {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("metrics=(-?\\d+)")
                .matcher(processes.awaitReady(name(id), timeout));
        metricsPorts[id] = m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /**
     * The replica whose ordering protocol leads now, read from every live replica's metrics
     * endpoint ({@code parallax_paxos_leader} is 1: Multi-Paxos and S-Paxos' ordering layer publish
     * it; {@code parallax_ring_coordinator} is 1: Ring Paxos' coordinator); when two claim it for a
     * moment (an old leader not yet deposed), the one in the higher view ({@code parallax_paxos_view})
     * or round ({@code parallax_ring_round}). -1 if none claims it, or the replicas run without a
     * metrics port. Blocks for the HTTP requests (at most 2 s per replica).
     */
    public int leader() {
        return leaderAmong(java.util.stream.IntStream.range(0, size).toArray());
    }

    /**
     * As {@link #leader()}, among the replicas {@code ids} only (the file's members and replicas
     * that joined, {@link #startJoiner}): the voters of a group whose members changed.
     */
    public int leaderAmong(int[] ids) {
        int leader = -1;
        long leaderView = -1;
        for (int i : ids) {
            int port = metricsPort(i);
            if (!isAlive(i) || port <= 0) {
                continue;
            }
            long view = -1;
            if (gauge(i, "parallax_paxos_leader") == 1) {
                view = gauge(i, "parallax_paxos_view");
            } else if (gauge(i, "parallax_ring_coordinator") == 1) {
                view = gauge(i, "parallax_ring_round");
            } else {
                continue;
            }
            if (leader < 0 || view > leaderView) {
                leader = i;
                leaderView = view;
            }
        }
        return leader;
    }

    /**
     * The live replica that coordinates the ring called {@code ring} (a Multi-Ring ring,
     * {@code ring-0}, {@code ring-1}, ..., {@code ring-g}: its {@code parallax_ring_coordinator} sample
     * labelled {@code protocol="<ring>"} is 1), polled until one does or {@code timeout} passes; -1
     * if none does, or the replicas run without a metrics port.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public int awaitRingCoordinator(String ring, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (int i = 0; i < size; i++) {
                if (isAlive(i) && metricsPorts[i] > 0
                        && gauge(i, "parallax_ring_coordinator", "protocol=\"" + ring + "\"") == 1) {
                    return i;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                return -1;
            }
            Thread.sleep(50);
        }
    }

    /**
     * Polls {@link #leader()} until a replica claims leadership or {@code timeout} passes.
     *
     * @return the leader, or -1 if none within the timeout
     * @throws InterruptedException if interrupted while waiting
     */
    public int awaitLeader(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int leader = leader();
            if (leader >= 0 || System.nanoTime() - deadline > 0) {
                return leader;
            }
            Thread.sleep(50);
        }
    }

    /** SIGKILLs replica {@code id} and waits for it to die. */
    public void kill(int id) throws InterruptedException {
        processes.kill(name(id));
    }

    /** The operating-system process id of replica {@code id}, or -1 if it never started. */
    public long pid(int id) {
        return processes.pid(name(id));
    }

    public boolean isAlive(int id) {
        return processes.isAlive(name(id));
    }

    @Override
    public void close() {
        processes.close();
    }
}
