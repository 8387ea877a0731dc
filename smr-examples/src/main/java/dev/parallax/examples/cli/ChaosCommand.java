package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.SmrClient;
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
 * started, if the options refuse to run together ({@link ServiceOptions#refusal}) or the cluster
 * file refuses the runtime options (e.g. {@code --execution p-smr} without {@code --ordering
 * multi-ring} or {@code multicast}). {@link RuntimeOptions} choose the replicas' ordering protocol,
 * executor and thread placement; the results name them.
 *
 * <p>{@code --execution s-smr [--partitions P]} (seed 004 (S-SMR) §IV): the store partitioned over
 * P x 3 replica processes ({@link PartitionedClusters#kv}), kills and restarts only, one replica down
 * at a time ({@link KillRestartFaults}; no network partitions), the load and the history clients
 * through one client per partition ({@link KvRouting#partitionedInvoker}). The multi-partition
 * commands are the load's (MSET and MGET over keys of two partitions, DBSIZE over all; its
 * acknowledged MSETs are read back with its SETs), not the history's: {@link KvModel} has no
 * operation for MSET or MGET, and its DBSIZE and FLUSHALL are over the whole store, so they would
 * count (FLUSHALL: erase) the load's keys, which the history does not record; the history is SET
 * and GET per key, as in the replicated run (the process test {@code KvSsmrClusterTest} checks a
 * history with DBSIZE and FLUSHALL, without a load). Convergence is each partition's digests
 * ({@link PartitionConvergence}, within {@link PartitionConvergence#KV_TIMEOUT}).
 *
 * <p>{@code --service volery [--partitions P]} runs {@link VoleryChaos} instead: kills and restarts
 * of Volery's replicas under ZooKeeper-client load, the same three verdicts (registers per znode
 * for the history, digests per partition). A passing partitioned run deletes its temporary work
 * directory.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = {"Kill, restart and partition replicas at random under load; check linearizability, lost writes "
                + "and that the replicas converge.",
                "With --execution s-smr (P x 3 replicas, --partitions P) or --service volery: kills and restarts only, "
                        + "one replica down at a time; convergence = equal digests per partition; the s-smr load has "
                        + "MSET, MGET and DBSIZE across partitions."})
final class ChaosCommand implements Callable<Integer> {
    private static final Duration CONVERGENCE_TIMEOUT = Duration.ofSeconds(30);
    /** Keys of the key-value history clients. */
    private static final int HISTORY_KEYS = 6;

    @Option(names = "--duration", defaultValue = "60s", description = "How long to run the faults, e.g. 60s or 5m (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the fault schedule (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--history-clients", defaultValue = "4", description = "Clients whose operations are checked (default ${DEFAULT-VALUE}).")
    int historyClients;

    @Option(names = "--dir", description = "Work directory (default: a new temporary one).")
    Path dir;

    @Mixin
    ServiceOptions service = new ServiceOptions();

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

    /** Why the options cannot run, or null: {@link ServiceOptions#refusal}, then the history clients. */
    String refusal() {
        String refusal = service.refusal(runtime);
        if (refusal != null) {
            return refusal;
        }
        return historyClients < 1 ? "--history-clients must be at least 1, not " + historyClients : null;
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        Duration run = parseDuration(duration);
        String refusal = refusal();
        if (refusal != null) {
            System.err.println(refusal);
            return 2;
        }
        Path work = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("parallax-chaos-");
        if (service.volery()) {
            return volery(out, run, work);
        }
        boolean partitioned = service.kvPartitioned(runtime);
        ProcessCluster configured;
        try {
            if (partitioned) {
                configured = PartitionedClusters.kv(work, service.partitions(), runtime.clusterSettings());
            } else {
                Properties props = ProcessCluster.localDefaults(work.resolve("data"), 2000);
                props.setProperty("paxos.heartbeat.ms", "40");
                props.setProperty("paxos.suspect.ms", "400");
                props.putAll(runtime.clusterSettings());
                configured = new ProcessCluster(work, 3, props, false,
                        List.of("-Xmx512m", "-XX:+UseParallelGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"), service.tls)
                        .replicaArgs("--metrics-port", "0", "--fault-control");
            }
        } catch (IllegalArgumentException e) {
            // A runtime the cluster file refuses (e.g. --execution p-smr over multi-paxos): nothing started.
            System.err.println(e.getMessage());
            return 2;
        }
        boolean ok;
        try (ProcessCluster cluster = configured) {
            String runtimeLine = cluster.clusterFile().describeRuntime(Runtime.getRuntime().availableProcessors())
                    + (partitioned ? ", " + service.describePartitions() + " x 3 replicas" : "");
            out.printf("Parallax chaos: %d replica processes with durable state, %s of %s (seed %d), work directory %s%n"
                    + "  %s%n", cluster.size(), run, partitioned ? "kills and restarts" : "faults", seed, work, runtimeLine);
            cluster.startAll(Duration.ofSeconds(partitioned ? 90 : 60));
            Outcome o = runChaos(out, cluster, run, partitioned);
            out.println();
            out.println("results");
            out.println("  runtime          " + runtimeLine);
            if (partitioned) {
                out.printf("  faults           %d kills, %d restarts (one replica down at a time, no network partitions)%n",
                        o.kills, o.restarts);
            } else {
                out.printf("  faults           %d kills, %d restarts, %d partitions, %d one-way cuts, %d bridges%n", o.kills,
                        o.restarts, o.partitions, o.oneWayCuts, o.bridges);
            }
            out.printf("  load             %,d acknowledged %s (%,d failed or timed out)%n", o.acked,
                    partitioned ? "commands, " + o.multiPartition + " of them MSET, MGET or DBSIZE across partitions" : "writes", o.failed);
            out.printf("  history          %,d operations by %d clients, %s%n", o.check.operations(), historyClients,
                    o.check.verdict());
            out.printf("  lost writes      %d acknowledged writes missing%n", o.lost);
            out.printf("  convergence      %s%n", o.convergence);
            ok = verdict(out, o.check, o.lost, o.converged, partitioned ? "partitions converged" : "replicas converged", work);
        }
        return exit(ok, work);
    }

    /**
     * Prints the checker's report when the history is not linearizable, and the verdict line; true
     * if the run passed.
     */
    private static boolean verdict(PrintStream out, CheckResult check, long lost, boolean converged, String convergedText, Path work) {
        if (!check.isLinearizable()) {
            out.println(check.report());
        }
        boolean ok = check.isLinearizable() && lost == 0 && converged;
        out.println(ok ? "  verdict          OK: linearizable, no acknowledged write lost, " + convergedText
                : "  verdict          FAILED (replica logs in " + work + ")");
        return ok;
    }

    /** Deletes the temporary work directory of a passing run (not a {@code --dir}); the exit code. */
    private int exit(boolean ok, Path work) throws java.io.IOException {
        if (ok && dir == null) {
            DemoCommand.deleteRecursively(work);
        }
        return ok ? 0 : 1;
    }

    /** {@code --service volery}: {@link VoleryChaos} on {@code --partitions} x 3 replica processes. */
    private int volery(PrintStream out, Duration run, Path work) throws Exception {
        boolean ok;
        try (ProcessCluster cluster = PartitionedClusters.volery(work, service.partitions())) {
            out.printf("Parallax chaos: Volery, %s x 3 replica processes with durable state, %s of kills and "
                    + "restarts (seed %d), work directory %s%n", service.describePartitions(), run, seed, work);
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
            ok = verdict(out, o.check(), o.lost(), o.convergence().converged(), "partitions converged", work);
        }
        return exit(ok, work);
    }

    private record Outcome(int kills, int restarts, int partitions, int oneWayCuts, int bridges, long acked, long failed,
                           long multiPartition, CheckResult check, long lost, boolean converged, String convergence) {
    }

    /**
     * The key-value chaos run on a started {@code cluster}: history clients and a load, the faults
     * ({@code partitioned}: {@link KillRestartFaults}; else {@link #networkAndKillFaults}), then the
     * checks.
     */
    private Outcome runChaos(PrintStream out, ProcessCluster cluster, Duration run, boolean partitioned) throws Exception {
        Random rnd = new Random(seed);
        ClusterFile file = cluster.clusterFile();
        HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> workers = new ArrayList<>();
        List<AutoCloseable> clients = new ArrayList<>();
        try {
            for (int c = 0; c < historyClients; c++) {
                CommandInvoker invoker;
                if (partitioned) {
                    PartitionedInvoker partitionedInvoker = KvRouting.partitionedInvoker(file, c,
                            b -> b.retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(10)));
                    clients.add(partitionedInvoker);
                    invoker = partitionedInvoker;
                } else {
                    SmrClient client = SmrClient.connect(cluster.clientConfig().startAt(c % cluster.size())
                            .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(10)).build());
                    clients.add(client);
                    invoker = KvRouting.invoker(file, client);
                }
                int id = c;
                Thread t = new Thread(() -> HistoryClient.run(id, invoker, history, running, HISTORY_KEYS, () -> { }), "chaos-client-" + c);
                workers.add(t);
                t.start();
            }
            try (ClosedLoopLoad load = new ClosedLoopLoad(cluster, 2, 8, 500, run.plusMinutes(5))) {
                load.start();
                int[] faults = partitioned ? killAndRestart(out, cluster, rnd, run, load)
                        : networkAndKillFaults(out, cluster, rnd, run, load);
                KillRestartFaults.stop(running, workers);
                load.stop(Duration.ofSeconds(60));
                long lost = load.countLost(out);
                PartitionConvergence.Summary convergence = PartitionConvergence.awaitStore(cluster, CONVERGENCE_TIMEOUT);
                CheckResult check = HistoryClient.check(history);
                return new Outcome(faults[0], faults[1], faults[2], faults[3], faults[4], load.completed(), load.failed(),
                        load.multiPartitionCompleted(), check,
                        lost, convergence.converged(), convergence.description());
            }
        } finally {
            running.set(false);
            for (AutoCloseable c : clients) {
                c.close();
            }
        }
    }

    /** {@link KillRestartFaults}: kills and restarts, no network faults; {kills, restarts, 0, 0, 0}. */
    private static int[] killAndRestart(PrintStream out, ProcessCluster cluster, Random rnd, Duration run, ClosedLoopLoad load)
            throws Exception {
        KillRestartFaults.Counts counts = KillRestartFaults.run(out, cluster, rnd, run, () -> elapsed(load));
        return new int[]{counts.kills(), counts.restarts(), 0, 0, 0};
    }

    /**
     * Kills, restarts, partitions, one-way cuts and bridges of the replicated store's 3 replicas for
     * {@code run}, then heals and restarts everything; {kills, restarts, partitions, one-way cuts, bridges}.
     */
    private int[] networkAndKillFaults(PrintStream out, ProcessCluster cluster, Random rnd, Duration run, ClosedLoopLoad load)
            throws Exception {
        int kills = 0;
        int restarts = 0;
        int partitions = 0;
        int oneWayCuts = 0;
        int bridges = 0;
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
            int down = KillRestartFaults.firstDown(cluster);
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
        restarts += KillRestartFaults.restartAllDown(out, cluster, () -> elapsed(load));
        return new int[]{kills, restarts, partitions, oneWayCuts, bridges};
    }

    private static double elapsed(ClosedLoopLoad load) {
        return (System.nanoTime() - load.startedAt()) / 1e9;
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
