package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.examples.testbed.KernelFaults;
import dev.parallax.examples.testbed.Testbed;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
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
 * <p>{@code --membership} (ordering {@code multi-paxos}, {@code s-paxos}, {@code u-ring},
 * {@code m-ring} or {@code multi-ring}; exit 2 otherwise) adds the {@link MembershipNemesis} to the kills and partitions
 * of the replicated store: in turn, a random voter replaced by a fresh replica (new id, empty data
 * directory, {@code --join}, added as a learner then {@code replace}d, the old one stopped and its
 * data directory deleted) and leadership handed to a random voter ({@link ClusterMembership}; for
 * the rings, whose cluster file sets {@code ring.member.ids} to the three members and the joining
 * ids the run may use, {@link #slots}, the coordination of every ring); the faults then act on the
 * voters of the moment, the clients know every endpoint a joining replica may have, and the
 * convergence is the final voters'. A membership step that does not complete fails the run.
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

    @Option(names = "--membership", description = "Also change the membership at random: replace a voter by a fresh "
            + "replica (new id, empty data directory, --join, added then replaced) and hand leadership to a voter. "
            + "Ordering multi-paxos, s-paxos, u-ring, m-ring or multi-ring only.")
    boolean membership;

    @Option(names = "--jvm-options", defaultValue = "-Xmx512m -XX:+UseParallelGC", description = "Options of the replica "
            + "JVMs of the store over one group, space-separated (default ${DEFAULT-VALUE}; e.g. -XX:TieredStopAtLevel=1 "
            + "for short runs on a small machine: no C2 compilations competing with the load).")
    String jvmOptions;

    /** With {@code --hosts}, the network faults are the kernel's: nftables drops between hosts (cuts, partitions, bridges, lossy links) and tc caps. */
    @Mixin
    TestbedOption testbed = new TestbedOption();

    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Mixin
    RuntimeOptions runtime = new RuntimeOptions();

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
        if (refusal == null && membership) {
            refusal = MembershipNemesis.refusal(service, runtime);
        }
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
        Testbed bed;
        try {
            bed = testbed.attach();
        } catch (IllegalStateException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        Path work = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("parallax-chaos-");
        if (service.volery()) {
            return volery(out, run, work, bed);
        }
        boolean partitioned = service.kvPartitioned(runtime);
        ProcessCluster configured;
        try {
            if (partitioned) {
                configured = PartitionedClusters.kv(work, service.partitions(), runtime.clusterSettings(), bed);
            } else {
                Properties props = ProcessCluster.localDefaults(work.resolve("data"), 2000);
                props.setProperty("paxos.heartbeat.ms", "40");
                props.setProperty("paxos.suspect.ms", "400");
                props.putAll(runtime.clusterSettings());
                if (membership && runtime.ordering != null && runtime.ordering.ringMembers()) {
                    // A ring changes its members only over the ids it may ever use: the three and the joiners.
                    props.setProperty("ring.member.ids", Integer.toString(3 + slots(run)));
                    props.setProperty("ring.heartbeat.ms", "40");
                    props.setProperty("ring.suspect.ms", "400");
                }
                configured = new ProcessCluster(work, 3, props, false, replicaJvm(), service.tls, bed)
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
            out.printf("Parallax chaos: %d replica processes with durable state%s, %s of %s (seed %d), work directory %s%n"
                    + "  %s%n", cluster.size(), bed == null ? "" : " on " + bed + ", faults in the kernel", run, partitioned ? "kills and restarts" : membership
                    ? "faults and membership changes" : "faults", seed, work, runtimeLine);
            ClusterMembership members = membership ? new ClusterMembership(cluster, work.resolve("data"), slots(run)) : null;
            cluster.startAll(Duration.ofSeconds(partitioned ? 90 : 60));
            Outcome o;
            try (KernelFaults kernel = bed != null ? new KernelFaults(bed) : null) {
                NetworkFaults.Links links = kernel != null ? NetworkFaults.kernelLinks(cluster, kernel) : NetworkFaults.endpointLinks(cluster);
                kernelDelays = kernel != null && kernel.delaySupported();
                o = runChaos(out, cluster, links, run, partitioned, members);
            }
            out.println();
            out.println("results");
            out.println("  runtime          " + runtimeLine);
            if (partitioned) {
                out.printf("  faults           %d kills, %d restarts (one replica down at a time, no network partitions)%n",
                        o.kills, o.restarts);
            } else {
                out.printf("  faults           %d kills, %d restarts, %d partitions, %d one-way cuts, %d bridges%s%n", o.kills,
                        o.restarts, o.partitions, o.oneWayCuts, o.bridges, bed == null ? ""
                                : ", " + o.lossy + " lossy-link spells, " + o.caps + " capped hosts, " + o.delays + " delayed hosts (in the kernel)"
                                        + (kernelDelays ? "" : "; delay skipped: this kernel has no sch_netem"));
            }
            if (o.nemesis != null) {
                out.printf("  membership       %d voters replaced, %d leadership transfers, %d failed; voters now %s%n",
                        o.nemesis.replacements(), o.nemesis.transfers(), o.nemesis.failed(),
                        java.util.Arrays.toString(members.voters()));
            }
            out.printf("  load             %,d acknowledged %s (%,d failed or timed out)%n", o.acked,
                    partitioned ? "commands, " + o.multiPartition + " of them MSET, MGET or DBSIZE across partitions" : "writes", o.failed);
            out.printf("  history          %,d operations by %d clients, %s%n", o.check.operations(), historyClients,
                    o.check.verdict());
            out.printf("  lost writes      %d acknowledged writes missing%n", o.lost);
            out.printf("  convergence      %s%n", o.convergence);
            ok = verdict(out, o.check, o.lost, o.converged && (o.nemesis == null || o.nemesis.failed() == 0),
                    partitioned ? "partitions converged" : membership ? "every membership change done, replicas converged"
                            : "replicas converged", work);
        }
        return exit(ok, work);
    }

    /**
     * Joining ids a membership run of {@code run} may use: at most one replacement per membership
     * step, a step at most every 3 s (a second's pause and the replacement); within the 32 ids, and the 31 a ring may use
     * ({@code RingConfig.MAX_MEMBERS}).
     */
    private static int slots(Duration run) {
        return (int) Math.min(dev.parallax.ringpaxos.RingConfig.MAX_MEMBERS - 3, 2 + run.toSeconds() / 3);
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

    /** {@code --jvm-options} and the replicas' log level. */
    private List<String> replicaJvm() {
        List<String> options = new java.util.ArrayList<>();
        for (String o : jvmOptions.strip().split("\\s+")) {
            if (!o.isEmpty()) {
                options.add(o);
            }
        }
        options.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        return options;
    }

    /** Deletes the temporary work directory of a passing run (not a {@code --dir}); the exit code. */
    private int exit(boolean ok, Path work) throws java.io.IOException {
        if (ok && dir == null) {
            DemoCommand.deleteRecursively(work);
        }
        return ok ? 0 : 1;
    }

    /** {@code --service volery}: {@link VoleryChaos} on {@code --partitions} x 3 replica processes. */
    private int volery(PrintStream out, Duration run, Path work, Testbed bed) throws Exception {
        boolean ok;
        try (ProcessCluster cluster = PartitionedClusters.volery(work, service.partitions(), java.util.Map.of(), bed)) {
            out.printf("Parallax chaos: Volery, %s x 3 replica processes with durable state %s, %s of kills and "
                    + "restarts (seed %d), work directory %s%n", service.describePartitions(), TestbedOption.where(bed), run, seed, work);
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

    private record Outcome(int kills, int restarts, int partitions, int oneWayCuts, int bridges, int lossy, int caps, int delays,
                           long acked, long failed,
                           long multiPartition, CheckResult check, long lost, boolean converged, String convergence,
                           MembershipNemesis nemesis) {
    }

    /**
     * The key-value chaos run on a started {@code cluster}: history clients and a load, the faults
     * ({@code partitioned}: {@link KillRestartFaults}; else {@link NetworkFaults}, with the
     * {@link MembershipNemesis} of {@code members} if given: then the clients know every endpoint a
     * joining replica may have, and the convergence is the final voters'), then the checks.
     */
    /** Whether the kernel's faults could delay packets (sch_netem), for the results. */
    private boolean kernelDelays;

    private Outcome runChaos(PrintStream out, ProcessCluster cluster, NetworkFaults.Links links, Duration run, boolean partitioned,
            ClusterMembership members)
            throws Exception {
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
                    SmrClient client = SmrClient.connect((members != null ? members.clientConfig() : cluster.clientConfig())
                            .startAt(c % cluster.size())
                            .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(10)).build());
                    clients.add(client);
                    invoker = KvRouting.invoker(file, client);
                }
                int id = c;
                Thread t = new Thread(() -> HistoryClient.run(id, invoker, history, running, HISTORY_KEYS, () -> { }), "chaos-client-" + c);
                workers.add(t);
                t.start();
            }
            try (ClosedLoopLoad load = members != null ? new ClosedLoopLoad(members::clientConfig, 2, 8, 500, run.plusMinutes(5))
                    : new ClosedLoopLoad(cluster, 2, 8, 500, run.plusMinutes(5))) {
                load.start();
                MembershipNemesis nemesis = members == null ? null : new MembershipNemesis(out, members, () -> elapsed(load));
                int[] faults;
                if (partitioned) {
                    faults = killAndRestart(out, cluster, rnd, run, load);
                } else {
                    NetworkFaults.Counts n = new NetworkFaults().run(out, members != null ? members : NetworkFaults.of(cluster),
                            links, rnd, run, () -> elapsed(load), nemesis);
                    faults = new int[]{n.kills(), n.restarts(), n.partitions(), n.oneWayCuts(), n.bridges(), n.lossy(), n.caps(),
                            n.delays()};
                }
                KillRestartFaults.stop(running, workers);
                load.stop(Duration.ofSeconds(60));
                long lost = load.countLost(out);
                boolean converged;
                String convergence;
                if (members != null) {
                    ReplicaConvergence.Outcome c = ReplicaConvergence.await(cluster, members.voters(), CONVERGENCE_TIMEOUT);
                    converged = c.converged();
                    convergence = "voters " + java.util.Arrays.toString(members.voters()) + ": " + c.describe();
                } else {
                    PartitionConvergence.Summary c = PartitionConvergence.awaitStore(cluster, CONVERGENCE_TIMEOUT);
                    converged = c.converged();
                    convergence = c.description();
                }
                CheckResult check = HistoryClient.check(history);
                return new Outcome(faults[0], faults[1], faults[2], faults[3], faults[4], faults[5], faults[6], faults[7], load.completed(), load.failed(),
                        load.multiPartitionCompleted(), check, lost, converged, convergence, nemesis);
            }
        } finally {
            running.set(false);
            for (AutoCloseable c : clients) {
                c.close();
            }
        }
    }

    /** {@link KillRestartFaults}: kills and restarts, no network faults; {kills, restarts, 0, 0, 0, 0, 0, 0}. */
    private static int[] killAndRestart(PrintStream out, ProcessCluster cluster, Random rnd, Duration run, ClosedLoopLoad load)
            throws Exception {
        KillRestartFaults.Counts counts = KillRestartFaults.run(out, cluster, rnd, run, () -> elapsed(load));
        return new int[]{counts.kills(), counts.restarts(), 0, 0, 0, 0, 0, 0};
    }

    private static double elapsed(ClosedLoopLoad load) {
        return (System.nanoTime() - load.startedAt()) / 1e9;
    }
}
