package dev.parallax.bench.systems;

import dev.parallax.examples.process.ClusterSecretFile;
import dev.parallax.examples.process.ServerProcesses;
import dev.parallax.examples.testbed.Testbed;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaKeys;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.ringpaxos.multiring.MultiRingConfig;
import dev.parallax.ringpaxos.multiring.MultiRingKeys;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The replica JVMs of a {@link ParallaxSpec} on 127.0.0.1, or one per host of a {@link Testbed}
 * (replica {@code i} in host {@code i mod N} through {@code ip netns exec}, its endpoints and
 * metrics endpoint on the host's address, M-Ring's multicast on {@code eth0}), started through the product's public
 * command line: {@code java <flags> -cp <this class path> }{@value #PARALLAX_MAIN}{@code  replica
 * --config <dir>/cluster.properties --id <i> [--bootstrap] --metrics-port 0}, which is what
 * {@code ./parallax replica} runs. Construction picks the ports (members, clients, and for M-Ring a
 * free UDP port run and a multicast group of its own, so that clusters on this machine do not hear
 * each other's datagrams), makes throwaway certificates in {@code <dir>/tls} when the spec runs
 * TLS, writes the cluster file ({@link ParallaxSpec#clusterFile}) and checks it with the library's
 * reader ({@link ClusterConfig}); {@link #startAll} launches every replica and waits for each one's
 * {@code READY ... metrics=<port>} line. The metrics endpoints then tell the leader ({@link #leader})
 * and feed {@link ReplicaMetrics} and {@link ReplicaLoadSampler}.
 *
 * <p>Owned by one thread (the benchmark's); {@link #close} stops every replica (SIGTERM, then
 * SIGKILL after 5 s).
 */
public final class ReplicaCluster implements AutoCloseable {
    /** The main class of the {@code parallax} command line (parallax.jar's {@code Main-Class}). */
    static final String PARALLAX_MAIN = "dev.parallax.examples.cli.ParallaxCli";
    /** The JVM flags every replica JVM needs, one a line, as the {@code ./parallax} script reads them. */
    static final String JVM_FLAGS_RESOURCE = "dev/parallax/examples/cli/jvm-flags.txt";

    private static final Pattern METRICS_PORT = Pattern.compile("metrics=(-?\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final ParallaxSpec spec;
    private final Path configFile;
    private final ClusterConfig config;
    private final ServerProcesses processes;
    private final int[] metricsPorts;
    private final boolean[] launched;
    private final Testbed bed;

    /**
     * Writes the cluster file of {@code spec} into {@code dir} (created if missing; durable state in
     * {@code dir/data}); starts nothing.
     *
     * @param jvmOptions options for every replica JVM besides {@link #replicaFlags()} (heap, GC, logging)
     * @throws IOException              if the directory, the certificates or the file cannot be written
     * @throws IllegalArgumentException naming the key if the library's reader refuses the file
     */
    public ReplicaCluster(ParallaxSpec spec, Path dir, List<String> jvmOptions) throws IOException {
        this(spec, dir, jvmOptions, null);
    }

    /**
     * As {@link #ReplicaCluster(ParallaxSpec, Path, List)}, on the hosts of {@code bed} when it is
     * not null.
     */
    public ReplicaCluster(ParallaxSpec spec, Path dir, List<String> jvmOptions, Testbed bed) throws IOException {
        this.spec = spec;
        this.bed = bed;
        List<String> jvm = new ArrayList<>(replicaFlags());
        jvm.addAll(jvmOptions);
        this.processes = new ServerProcesses(dir, jvm);
        this.configFile = dir.resolve("cluster.properties");
        Map<String, String> deployment = deployment(spec, dir);
        if (bed != null) {
            deployment.put("members", bed.place(deployment.get("members")));
            deployment.put("clients", bed.place(deployment.get("clients")));
            deployment.put("mring.interface", Testbed.INTERFACE);
        }
        Files.writeString(configFile, spec.clusterFile(deployment), StandardCharsets.UTF_8);
        this.config = ClusterConfig.load(configFile);
        this.metricsPorts = new int[spec.replicas()];
        this.launched = new boolean[spec.replicas()];
    }

    /**
     * What this machine decides for a cluster of {@code spec} in {@code dir}: members and client
     * ports free now, the data directory, the TLS files, M-Ring's UDP ports and group (unless the
     * spec's settings set them), and the thread placement of this JVM's {@link ThreadPlacement#PROPERTY}
     * when the spec sets none (the replica JVMs do not inherit this JVM's properties).
     */
    private static Map<String, String> deployment(ParallaxSpec spec, Path dir) throws IOException {
        int n = spec.replicas();
        Map<String, String> d = new LinkedHashMap<>();
        d.put("members", LocalPorts.endpoints(n));
        d.put("clients", LocalPorts.endpoints(n));
        if (spec.durable()) {
            d.put("data.dir", dir.resolve("data").toAbsolutePath().toString());
        }
        if (spec.tls()) {
            ClusterCertificates certs = ClusterCertificates.generate(dir.resolve("tls"), n);
            d.put("tls.replica", "required");
            d.put("tls.client", "on");
            d.put("tls.ca", certs.ca().toAbsolutePath().toString());
            for (int i = 0; i < n; i++) {
                d.put("tls.cert." + i, certs.cert(i).toAbsolutePath().toString());
                d.put("tls.key." + i, certs.key(i).toAbsolutePath().toString());
            }
        }
        // M-Ring (here or by a multi-ring of M-Ring rings, which uses mring.port + i for ring i and
        // mring.port + k for the global ring): k + 1 consecutive UDP ports free now.
        if (!spec.settings().containsKey("mring.port")) {
            d.put("mring.port", Integer.toString(freeUdpPorts(1 + multiRingRings(spec.settings()))));
        }
        if (!spec.settings().containsKey("mring.group")) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            d.put("mring.group", "239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255));
        }
        // The key of M-Ring's datagram HMAC (mring.auth=hmac, the default) and of snapshots fetched from peers.
        if (!spec.settings().containsKey(ReplicaKeys.CLUSTER_SECRET.name())) {
            d.putAll(ClusterSecretFile.write(dir.resolve(ClusterSecretFile.NAME)));
        }
        if (!spec.settings().containsKey("threads") && System.getProperty(ThreadPlacement.PROPERTY) != null) {
            d.put("threads", ThreadPlacement.jvmDefault().configName());
        }
        return d;
    }

    /** {@code multiring.rings} of the settings, or the default when absent or not a number (the reader names it). */
    private static int multiRingRings(Map<String, String> settings) {
        try {
            int k = Integer.parseInt(settings.getOrDefault(MultiRingKeys.RINGS.name(), "").trim());
            return k >= 1 && k <= MultiRingConfig.MAX_RINGS ? k : MultiRingConfig.DEFAULT_RINGS;
        } catch (NumberFormatException e) {
            return MultiRingConfig.DEFAULT_RINGS;
        }
    }

    /**
     * The first of {@code count} consecutive UDP ports free on this machine at the time of the call.
     *
     * @throws IOException if no such run is found in 100 tries
     */
    private static int freeUdpPorts(int count) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int attempt = 0; attempt < 100; attempt++) {
            List<DatagramSocket> held = new ArrayList<>();
            try {
                DatagramSocket first = new DatagramSocket(0, loopback);
                held.add(first);
                int base = first.getLocalPort();
                if (base + count - 1 > 65535) {
                    continue;
                }
                for (int i = 1; i < count; i++) {
                    held.add(new DatagramSocket(base + i, loopback));
                }
                return base;
            } catch (SocketException taken) {
                // One of the following ports is in use: try another run.
            } finally {
                held.forEach(DatagramSocket::close);
            }
        }
        throw new IOException("no " + count + " consecutive free UDP ports found on this machine");
    }

    /**
     * The JVM flags every replica needs (Chronicle Queue's access to JDK internals, no analytics):
     * {@value #JVM_FLAGS_RESOURCE} on the class path, the list the {@code ./parallax} script passes.
     *
     * @throws IllegalStateException if the list is not on the class path
     */
    static List<String> replicaFlags() {
        try (InputStream in = ReplicaCluster.class.getClassLoader().getResourceAsStream(JVM_FLAGS_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(JVM_FLAGS_RESOURCE + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The spec the replicas run. */
    public ParallaxSpec spec() {
        return spec;
    }

    /** The cluster file every replica reads. */
    public Path configFile() {
        return configFile;
    }

    /** The cluster file as the library reads it. */
    public ClusterConfig config() {
        return config;
    }

    /** The number of replicas. */
    public int size() {
        return metricsPorts.length;
    }

    /** The endpoints clients connect to. */
    public ClusterMembers clientEndpoints() {
        return config.clientEndpoints();
    }

    /** A builder of a client of this cluster: its client endpoints, and its CA to trust when it runs TLS. */
    public ClientConfig.Builder clientConfig() {
        return trusting(ClientConfig.builder(clientEndpoints()));
    }

    /** {@code b} trusting the cluster's CA when the client ports run TLS. */
    public ClientConfig.Builder trusting(ClientConfig.Builder b) {
        ReplicaKeys.clientTrust(config.settings()).ifPresent(b::tlsTrust);
        return b;
    }

    /**
     * The replica ids of each partition of an S-SMR cluster ({@link ParallaxSpec#partitioned}),
     * partition by partition, as the replicas' multi-ring layout puts them.
     *
     * @throws IllegalStateException if the spec does not partition the state
     */
    public List<int[]> partitionMembers() {
        if (!spec.partitioned()) {
            throw new IllegalStateException("not a partitioned cluster: execution=" + spec.execution());
        }
        return MultiRingKeys.partitionMembers(config.settings(), size());
    }

    /**
     * The client endpoints of partition {@code p}'s replicas, numbered 0.. in replica-id order (the
     * multi-ring ordering serves clients at every replica, so no redirect names a replica id).
     */
    public ClusterMembers partitionClients(int p) {
        ClusterMembers all = clientEndpoints();
        int[] ids = partitionMembers().get(p);
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            Member m = all.member(ids[i]);
            members.add(new Member(i, m.host(), m.port()));
        }
        return ClusterMembers.of(members);
    }

    /** The endpoints of the cluster file's {@code key} (e.g. {@code zookeeper}, a front end per replica), if set. */
    public Optional<ClusterMembers> endpoints(String key) {
        return ReplicaKeys.endpoints(config.settings(), key);
    }

    /**
     * Starts every replica and waits until all are ready. The first launch of each replica is the
     * first start of a new cluster and passes {@code --bootstrap}.
     *
     * @throws IOException if a replica exits or stays silent past {@code timeout} (its log's last lines named)
     */
    public void startAll(Duration timeout) throws IOException, InterruptedException {
        for (int i = 0; i < size(); i++) {
            launch(i);
        }
        for (int i = 0; i < size(); i++) {
            awaitReady(i, timeout);
        }
    }

    private void launch(int id) throws IOException {
        List<String> args = new ArrayList<>(List.of("replica", "--config", configFile.toString(), "--id", Integer.toString(id)));
        if (!launched[id]) {
            args.add("--bootstrap");
            launched[id] = true;
        }
        args.addAll(List.of("--metrics-port", "0"));
        if (bed == null) {
            processes.launch(name(id), PARALLAX_MAIN, args);
        } else {
            args.addAll(List.of("--metrics-host", metricsHost(id)));
            processes.launch(name(id), PARALLAX_MAIN, args, bed.inHost(bed.hostOf(id)));
        }
    }

    private void awaitReady(int id, Duration timeout) throws IOException, InterruptedException {
        Matcher m = METRICS_PORT.matcher(processes.awaitReady(name(id), timeout));
        metricsPorts[id] = m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static String name(int id) {
        return "replica-" + id;
    }

    /** Where replica {@code id} writes its output. */
    public Path log(int id) {
        return processes.log(name(id));
    }

    /** The address of replica {@code id}'s metrics endpoint: 127.0.0.1, or its test-bed host's. */
    public String metricsHost(int id) {
        return bed == null ? "127.0.0.1" : bed.address(bed.hostOf(id));
    }

    /** The test bed the replicas run on, if any. */
    public Optional<Testbed> testbed() {
        return Optional.ofNullable(bed);
    }

    /** The metrics port of replica {@code id} as its READY line reported, or -1. */
    public int metricsPort(int id) {
        return metricsPorts[id];
    }

    /** The operating-system process id of replica {@code id}, or -1 if it never started. */
    public long pid(int id) {
        return processes.pid(name(id));
    }

    /** Whether replica {@code id} was launched and still runs. */
    public boolean isAlive(int id) {
        return processes.isAlive(name(id));
    }

    /**
     * The replica whose ordering protocol leads now, read from every live replica's metrics
     * endpoint ({@code parallax_paxos_leader} is 1: Multi-Paxos and S-Paxos' ordering layer;
     * {@code parallax_ring_coordinator} is 1: Ring Paxos' coordinator); when two claim it for a
     * moment, the one in the higher view ({@code parallax_paxos_view}) or round
     * ({@code parallax_ring_round}). -1 if none claims it. Blocks for the HTTP requests (at most 2 s
     * per replica).
     */
    public int leader() {
        int leader = -1;
        long leaderView = -1;
        for (int i = 0; i < size(); i++) {
            if (!isAlive(i) || metricsPorts[i] <= 0) {
                continue;
            }
            long view;
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

    /** The first sample of {@code metric} at replica {@code id}'s metrics endpoint, or -1 if unreachable or absent. */
    private long gauge(int id, String metric) {
        try {
            String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + metricsHost(id) + ":" + metricsPorts[id] + "/metrics"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).body();
            for (String line : body.split("\n")) {
                if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
                    return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    @Override
    public void close() {
        processes.close();
    }
}
