package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.examples.kv.KvOp;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code parallax chaos --duration 60s}: a 3-replica cluster with durable state under load while
 * replicas are killed with SIGKILL, restarted and partitioned at random — cut off both ways, cut
 * one way (a replica that hears nobody, or reaches nobody) or bridged (two replicas cut from each
 * other, both reaching the third), through the replicas' fault endpoint; ends with the
 * linearizability verdict of the whole client history, the count of acknowledged writes lost, and
 * whether every replica (restarted ones included) reached the same decided frontier and store
 * digest within 30 s of the end. Exit code 0 only if the history is linearizable, no acknowledged
 * write was lost and the replicas converged; 2, with the message on standard error and nothing
 * started, if the cluster file refuses the runtime options (e.g. {@code --execution p-smr} without
 * {@code --ordering multi-ring} or {@code multicast}). {@link RuntimeOptions} choose the replicas' ordering protocol,
 * executor and thread placement; the results name them.
 *
 * <p>{@code --service volery [--partitions P]} runs {@link VoleryChaos} instead: kills and restarts
 * of Volery's replicas under ZooKeeper-client load, the same three verdicts (registers per znode
 * for the history, digests per partition; a passing run deletes its temporary work directory);
 * exit 2 if a runtime option, {@code --tls} or an
 * out-of-range P is given with it.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = "Kill, restart and partition replicas at random under load; check linearizability, lost writes "
                + "and that the replicas converge.")
final class ChaosCommand implements Callable<Integer> {
    private static final Duration CONVERGENCE_TIMEOUT = Duration.ofSeconds(30);

    @Option(names = "--duration", defaultValue = "60s", description = "How long to run the faults, e.g. 60s or 5m (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the fault schedule (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--history-clients", defaultValue = "4", description = "Clients whose operations are checked (default ${DEFAULT-VALUE}).")
    int historyClients;

    @Option(names = "--dir", description = "Work directory (default: a new temporary one).")
    Path dir;

    @Option(names = "--tls", description = "Mutual TLS between the replicas and TLS for the clients, with throwaway "
            + "certificates generated into the work directory.")
    boolean tls;

    @Option(names = "--service", paramLabel = "NAME", defaultValue = ClusterFile.KV,
            description = "The replicated service: " + ClusterFile.KV + " (3 replicas; kills, restarts and network "
                    + "partitions) or " + ClusterFile.VOLERY + " (--partitions x 3 replicas; kills and restarts; the "
                    + "history through ZooKeeper's client) (default ${DEFAULT-VALUE}).")
    String service;

    @Option(names = "--partitions", paramLabel = "P", defaultValue = "2",
            description = "With --service volery: partitions, 1.." + VoleryClusterFile.MAX_PARTITIONS + " (default ${DEFAULT-VALUE}).")
    int partitions;

    @Mixin
    RuntimeOptions runtime = new RuntimeOptions();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        if (t.endsWith("s")) {
            return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
        }
        if (t.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
        }
        return Duration.ofSeconds(Long.parseLong(t));
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        Duration run = parseDuration(duration);
        if (service.equals(ClusterFile.VOLERY)) {
            return volery(out, run);
        }
        if (!service.equals(ClusterFile.KV)) {
            System.err.println("--service must be " + ClusterFile.KV + " or " + ClusterFile.VOLERY + ", not '" + service + "'");
            return 2;
        }
        Path work = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("parallax-chaos-");
        Properties props = ProcessCluster.localDefaults(work.resolve("data"), 2000);
        props.setProperty("paxos.heartbeat.ms", "40");
        props.setProperty("paxos.suspect.ms", "400");
        props.putAll(runtime.clusterSettings());
        ProcessCluster configured;
        try {
            configured = new ProcessCluster(work, 3, props, false,
                    List.of("-Xmx512m", "-XX:+UseParallelGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"), tls);
        } catch (IllegalArgumentException e) {
            // A runtime the cluster file refuses (e.g. --execution p-smr over multi-paxos): nothing started.
            System.err.println(e.getMessage());
            return 2;
        }
        try (ProcessCluster cluster = configured) {
            String runtimeLine = cluster.clusterFile().describeRuntime(Runtime.getRuntime().availableProcessors());
            out.printf("Parallax chaos: 3 replica processes with durable state, %s of faults (seed %d), work directory %s%n"
                    + "  %s%n", run, seed, work, runtimeLine);
            cluster.replicaArgs("--metrics-port", "0", "--fault-control");
            cluster.startAll(Duration.ofSeconds(60));
            Outcome o = runChaos(out, cluster, run);
            out.println();
            out.println("results");
            out.println("  runtime          " + runtimeLine);
            out.printf("  faults           %d kills, %d restarts, %d partitions, %d one-way cuts, %d bridges%n", o.kills,
                    o.restarts, o.partitions, o.oneWayCuts, o.bridges);
            out.printf("  load             %,d acknowledged writes (%,d failed or timed out)%n", o.acked, o.failed);
            out.printf("  history          %,d operations by %d clients, %s%n", o.check.operations(), historyClients,
                    o.check.verdict());
            out.printf("  lost writes      %d acknowledged writes missing%n", o.lost);
            out.printf("  convergence      %s%n", o.convergence.describe());
            if (!o.check.isLinearizable()) {
                out.println(o.check.report());
            }
            boolean ok = o.check.isLinearizable() && o.lost == 0 && o.convergence.converged();
            out.println(ok ? "  verdict          OK: linearizable, no acknowledged write lost, replicas converged"
                    : "  verdict          FAILED (replica logs in " + work + ")");
            return ok ? 0 : 1;
        }
    }

    /**
     * Why the options cannot run the Volery chaos run, or null: its ordering and executor are
     * fixed, it has no TLS, P must be in range and there must be a history client.
     */
    String voleryRefusal() {
        if (!runtime.clusterSettings().isEmpty()) {
            return "--service volery runs ordering=multi-ring and execution=s-smr: drop " + String.join(", ",
                    runtime.clusterSettings().keySet().stream().map(k -> "--" + k.replace('.', '-')).toList());
        }
        if (tls) {
            return "--tls is for --service kv: Volery's ZooKeeper front ends serve plain TCP";
        }
        if (historyClients < 1) {
            return "--history-clients must be at least 1, not " + historyClients;
        }
        try {
            VoleryClusterFile.checkPartitions(partitions);
        } catch (IllegalArgumentException e) {
            return "--" + e.getMessage();
        }
        return null;
    }

    /** {@code --service volery}: {@link VoleryChaos} on {@code --partitions} x 3 replica processes. */
    private int volery(PrintStream out, Duration run) throws Exception {
        String refusal = voleryRefusal();
        if (refusal != null) {
            System.err.println(refusal);
            return 2;
        }
        Path work = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("parallax-chaos-");
        boolean ok;
        try (ProcessCluster cluster = VoleryDemo.cluster(work, partitions)) {
            out.printf("Parallax chaos: Volery, %d partition%s x 3 replica processes with durable state, %s of kills and "
                    + "restarts (seed %d), work directory %s%n", partitions, partitions == 1 ? "" : "s", run, seed, work);
            cluster.startAll(Duration.ofSeconds(90));
            VoleryChaos.Outcome o = new VoleryChaos(out, seed, historyClients).run(cluster, run);
            out.println();
            out.println("results");
            out.printf("  faults           %d kills, %d restarts%n", o.kills(), o.restarts());
            out.printf("  load             %,d acknowledged requests (%,d failed or unknown)%n", o.acked(), o.failed());
            out.printf("  history          %,d operations by %d ZooKeeper sessions on %d znodes (registers), %s%n",
                    o.check().operations(), historyClients, VoleryChaos.REGISTERS, o.check().verdict());
            out.printf("  lost writes      %d acknowledged setData values missing%n", o.lost());
            out.printf("  convergence      %s%n", o.convergence().describe());
            if (!o.check().isLinearizable()) {
                out.println(o.check().report());
            }
            out.println(o.ok() ? "  verdict          OK: linearizable, no acknowledged write lost, partitions converged"
                    : "  verdict          FAILED (replica logs in " + work + ")");
            ok = o.ok();
        }
        if (ok && dir == null) {
            DemoCommand.deleteRecursively(work); // a temporary directory of a passing run
        }
        return ok ? 0 : 1;
    }

    private record Outcome(int kills, int restarts, int partitions, int oneWayCuts, int bridges, long acked, long failed,
                           CheckResult check, long lost, ReplicaConvergence.Outcome convergence) {
    }

    private Outcome runChaos(PrintStream out, ProcessCluster cluster, Duration run) throws Exception {
        Random rnd = new Random(seed);
        HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> workers = new ArrayList<>();
        List<SmrClient> clients = new ArrayList<>();
        for (int c = 0; c < historyClients; c++) {
            SmrClient client = SmrClient.connect(cluster.clientConfig().startAt(c % cluster.size())
                    .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(10)).build());
            clients.add(client);
            int id = c;
            Thread t = new Thread(() -> HistoryClient.run(id, KvRouting.invoker(cluster.clusterFile(), client), history, running, 6, () -> { }), "chaos-client-" + c);
            workers.add(t);
            t.start();
        }
        int kills = 0;
        int restarts = 0;
        int partitions = 0;
        int oneWayCuts = 0;
        int bridges = 0;
        long acked;
        long failed;
        long lost;
        ReplicaConvergence.Outcome convergence;
        try (ClosedLoopLoad load = new ClosedLoopLoad(cluster, 2, 8, 500, run.plusMinutes(5))) {
            load.start();
            long end = System.nanoTime() + run.toNanos();
            String partitioned = null;
            while (System.nanoTime() < end) {
                Thread.sleep(1000 + rnd.nextInt(2500));
                if (partitioned != null) {
                    healAll(cluster);
                    out.printf("  %6.1f s  healed: %s%n", elapsed(load), partitioned);
                    partitioned = null;
                    continue;
                }
                int down = firstDown(cluster);
                int action = rnd.nextInt(3);
                if (down >= 0 && action != 2) {
                    cluster.start(down, Duration.ofSeconds(60));
                    restarts++;
                    out.printf("  %6.1f s  restarted replica %d%n", elapsed(load), down);
                } else if (down < 0 && action == 0) {
                    int victim = rnd.nextInt(cluster.size());
                    cluster.kill(victim);
                    kills++;
                    out.printf("  %6.1f s  killed replica %d (SIGKILL)%n", elapsed(load), victim);
                } else if (down < 0) {
                    int victim = rnd.nextInt(cluster.size());
                    int shape = rnd.nextInt(4);
                    if (shape == 0) {
                        isolate(cluster, victim);
                        partitions++;
                        partitioned = "replica " + victim + " partitioned away from the others";
                    } else if (shape == 3) {
                        int other = (victim + 1 + rnd.nextInt(cluster.size() - 1)) % cluster.size();
                        control(cluster, victim, "/faults/block?peers=" + other);
                        control(cluster, other, "/faults/block?peers=" + victim);
                        bridges++;
                        partitioned = "bridge: replicas " + victim + " and " + other + " cut from each other, both reaching the rest";
                    } else {
                        String direction = shape == 1 ? "in" : "out";
                        control(cluster, victim, "/faults/block-" + direction + "?peers=" + others(cluster, victim));
                        oneWayCuts++;
                        partitioned = "one-way cut: replica " + victim + (shape == 1 ? " hears nobody (it still sends)"
                                : " reaches nobody (it still hears)");
                    }
                    out.printf("  %6.1f s  %s%n", elapsed(load), partitioned);
                }
            }
            healAll(cluster);
            for (int i = 0; i < cluster.size(); i++) {
                if (!cluster.isAlive(i)) {
                    cluster.start(i, Duration.ofSeconds(60));
                    restarts++;
                }
            }
            out.printf("  %6.1f s  faults stopped; every replica up%n", elapsed(load));
            running.set(false);
            for (Thread t : workers) {
                t.join(60_000);
            }
            load.stop(Duration.ofSeconds(60));
            acked = load.completed();
            failed = load.failed();
            lost = load.countLost(out);
            convergence = ReplicaConvergence.await(cluster, CONVERGENCE_TIMEOUT);
        } finally {
            clients.forEach(SmrClient::close);
        }
        CheckResult check = LinearizabilityChecker.check(new KvModel(), history.history(), CheckBudget.ofTime(Duration.ofSeconds(120)));
        return new Outcome(kills, restarts, partitions, oneWayCuts, bridges, acked, failed, check, lost, convergence);
    }

    private static double elapsed(ClosedLoopLoad load) {
        return (System.nanoTime() - load.startedAt()) / 1e9;
    }

    /** The first replica of {@code cluster} that is not running, or -1. */
    static int firstDown(ProcessCluster cluster) {
        for (int i = 0; i < cluster.size(); i++) {
            if (!cluster.isAlive(i)) {
                return i;
            }
        }
        return -1;
    }

    private void isolate(ProcessCluster cluster, int victim) {
        for (int i = 0; i < cluster.size(); i++) {
            if (i != victim) {
                control(cluster, i, "/faults/block?peers=" + victim);
            }
        }
        control(cluster, victim, "/faults/block?peers=" + others(cluster, victim));
    }

    /** Every replica but {@code victim}, comma-separated. */
    private static String others(ProcessCluster cluster, int victim) {
        StringBuilder others = new StringBuilder();
        for (int i = 0; i < cluster.size(); i++) {
            if (i != victim) {
                others.append(others.length() == 0 ? "" : ",").append(i);
            }
        }
        return others.toString();
    }

    private void healAll(ProcessCluster cluster) {
        for (int i = 0; i < cluster.size(); i++) {
            if (cluster.isAlive(i)) {
                control(cluster, i, "/faults/heal");
            }
        }
    }

    private void control(ProcessCluster cluster, int replica, String path) {
        try {
            http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.metricsPort(replica) + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
        } catch (Exception e) {
            // A replica that just died cannot be told; its links are gone anyway.
        }
    }

}
