package dev.parallax.examples.cli;

import dev.parallax.core.config.ClusterMembers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;

/**
 * {@code parallax cluster [--replicas N] [--ordering O] [--execution E] [--threads T] [--dir D] [--tls]}:
 * a local key-value cluster to try by hand. It starts N {@code parallax replica} processes on
 * 127.0.0.1 through {@link ProcessCluster}, each with a Redis (RESP) front end, a metrics endpoint
 * and durable state under {@code D/data}. It waits until every replica printed READY and one leads,
 * then prints one line per replica (pid, client port, Redis port, metrics URL) and the exact
 * {@code redis-cli}, {@code curl} and {@code parallax admin} commands to try. It runs until Ctrl-C (SIGTERM), which stops
 * the replicas ({@link LocalClusterRun}).
 *
 * <p>Exit code 2, with the message on standard error and nothing started, on bad input (N out of
 * {@value #MIN_REPLICAS}..{@value #MAX_REPLICAS}, {@code --execution s-smr}, a runtime the
 * cluster file refuses, a {@code --dir} that is not empty); 1 if a replica does not start. Blocks
 * the caller's thread until the JVM shuts down.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "Run a local key-value cluster (N replica processes, each with a Redis front end and a metrics "
                + "endpoint) until Ctrl-C; prints the redis-cli and curl commands to try it.")
final class ClusterCommand implements Callable<Integer> {
    /** How long each replica may take to print READY, and the group to elect a leader. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    static final int MIN_REPLICAS = 3;
    static final int MAX_REPLICAS = 9;

    @Option(names = "--replicas", paramLabel = "N", defaultValue = "3",
            description = "Replica processes, " + MIN_REPLICAS + ".." + MAX_REPLICAS + " (default ${DEFAULT-VALUE}).")
    int replicas;

    @Option(names = "--dir", paramLabel = "D", description = "Work directory (cluster file, replica logs, data/); must be "
            + "new or empty (default: a new temporary directory, deleted on exit).")
    Path dir;

    @Option(names = "--tls", description = "Mutual TLS between the replicas and TLS on the client and Redis ports "
            + "(throwaway certificates under D/tls).")
    boolean tls;

    @Option(names = "--heap-mib", paramLabel = "MIB", defaultValue = "256",
            description = "Heap of each replica JVM in MiB, at least 64 (default ${DEFAULT-VALUE}).")
    int heapMiB;

    @Mixin
    RuntimeOptions runtime = new RuntimeOptions();

    private final PrintStream out;
    private final PrintStream err;

    /** Reports on standard output, errors on standard error (picocli's constructor). */
    ClusterCommand() {
        this(System.out, System.err);
    }

    /** Reports on {@code out} and input errors on {@code err} (tests capture both). */
    ClusterCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** Why the options cannot run, or null. */
    String refusal() {
        if (replicas < MIN_REPLICAS || replicas > MAX_REPLICAS) {
            return "--replicas must be " + MIN_REPLICAS + ".." + MAX_REPLICAS + ", not " + replicas;
        }
        if (heapMiB < 64) {
            return "--heap-mib must be at least 64, not " + heapMiB;
        }
        if (runtime.execution == Executions.S_SMR) {
            return "--execution s-smr partitions the store; try ./parallax demo --execution s-smr, "
                    + "or ./parallax volery for a partitioned service";
        }
        return null;
    }

    /**
     * The cluster the options describe, its file written into {@code workDir}, nothing started.
     * Settings for replicas sharing one machine come first; the runtime options override them.
     *
     * @throws IllegalArgumentException if the cluster file refuses the runtime options
     * @throws IOException              if the directory or the file cannot be written
     */
    ProcessCluster cluster(Path workDir) throws IOException {
        Properties p = ProcessCluster.localDefaults(workDir.resolve("data"), 20_000);
        p.putAll(VoleryClusterFile.sharedMachineSettings());
        p.putAll(runtime.clusterSettings());
        return new ProcessCluster(workDir, replicas, p, true,
                List.of("-Xmx" + heapMiB + "m", "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"), tls)
                .replicaArgs("--metrics-port", "0");
    }

    @Override
    public Integer call() throws Exception {
        String refusal = refusal();
        if (refusal != null) {
            err.println(refusal);
            return 2;
        }
        boolean temporary = dir == null;
        Path work;
        ProcessCluster cluster;
        try {
            work = LocalClusterRun.workDirectory(dir, "parallax-cluster-");
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        try {
            cluster = cluster(work);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            if (temporary) {
                DemoCommand.deleteRecursively(work);
            }
            return 2;
        }
        LocalClusterRun run = LocalClusterRun.open(cluster, work, temporary, "cluster");
        long t0 = System.nanoTime();
        out.printf("Parallax: %d replica processes on 127.0.0.1 (key-value store); %s%n", replicas,
                cluster.clusterFile().describeRuntime(Runtime.getRuntime().availableProcessors()));
        out.println("work directory " + work);
        out.flush();
        try {
            cluster.startAll(START_TIMEOUT);
        } catch (IOException e) {
            err.println("a replica did not start: " + e.getMessage());
            return 1;
        }
        int leader = cluster.awaitLeader(START_TIMEOUT);
        out.printf("replicas ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        out.print(describe(cluster, leader));
        out.println("Ctrl-C stops the replicas.");
        out.flush();
        run.watch(err);
        return 0;
    }

    /**
     * What a newcomer needs: a line per replica (pid, ports, metrics URL, which one leads) and the
     * commands to try: redis-cli against the first replica, curl of its metrics, the cluster's
     * status through {@code parallax admin}, and the kill of the leader.
     */
    static String describe(ProcessCluster cluster, int leader) {
        StringBuilder s = new StringBuilder();
        ClusterMembers clients = cluster.clientEndpoints();
        ClusterMembers redis = cluster.redisEndpoints();
        for (int i = 0; i < cluster.size(); i++) {
            s.append(String.format("  replica %d  pid %-7d client %-6d redis %-6d metrics %s%s%n", i, cluster.pid(i),
                    clients.member(i).port(), redis.member(i).port(), cluster.metricsUri(i, "/metrics"),
                    i == leader ? "  (leader)" : ""));
        }
        String tls = cluster.certificates().map(c -> "--tls --cacert " + c.ca().toAbsolutePath() + " ").orElse("");
        s.append("Try it (any replica serves reads and writes):").append(System.lineSeparator());
        s.append("  redis-cli ").append(tls).append("-p ").append(redis.member(0).port()).append(System.lineSeparator());
        s.append("  curl -s ").append(cluster.metricsUri(0, "/metrics")).append(System.lineSeparator());
        java.util.StringJoiner metrics = new java.util.StringJoiner(",");
        for (int i = 0; i < cluster.size(); i++) {
            metrics.add(i + "=" + cluster.host(i) + ":" + cluster.metricsPort(i));
        }
        s.append("  ./parallax admin --config ").append(cluster.configFile().toAbsolutePath()).append(" --metrics ")
                .append(metrics).append(" status").append(System.lineSeparator());
        s.append("  kill ").append(cluster.pid(leader >= 0 ? leader : 0))
                .append("   # stop a replica; the others go on").append(System.lineSeparator());
        return s.toString();
    }
}
