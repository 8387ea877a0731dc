package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.check.Operation;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.Await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The process scenario of the orderings that serve clients at every replica (S-Paxos, seed 002
 * §V-C; Ring Paxos, seed 003 §3.3.5; Multi-Ring Paxos, ch. 5), shared by {@link SPaxosProcessTest},
 * {@link URingProcessTest}, {@link MRingProcessTest} and {@link MultiRingProcessTest}: three {@code parallax replica} JVMs with durable state
 * ({@code log.sync=every-batch}, snapshots every 2,000 instances) and six history clients spread
 * over the replicas by {@code startAt}, each reading through queries at its own replica
 * ({@code readAt}: read-index where the ordering has it, so reads run on every replica through the
 * leader's SIGKILL; the others order them), next to a closed-loop load (both addressing commands as the
 * ordering wants, {@link KvRouting}); SIGKILL the ordering leader (the replica whose metrics say it
 * leads, or the replica the test chooses, e.g. a ring's coordinator) mid-load and restart it, then
 * SIGKILL a second replica the test chooses and restart it. No acknowledged write may be lost (read back through every
 * replica), the history must be linearizable, the replicas must converge, and no replica may
 * redirect a client. With {@link Commands#GLOBAL} (P-SMR's test, {@link PsmrProcessTest}) the history
 * clients also issue the global commands DBSIZE and FLUSHALL and are the only load. Blocks the
 * calling test thread; stateless.
 */
final class KillUnderLoadScenario {
    private KillUnderLoadScenario() {
    }

    /** What the history clients issue, and what else loads the cluster. */
    enum Commands {
        /**
         * SET and GET on four keys ({@link HistoryClient.Workload#perKey}), next to a closed-loop
         * SET load ({@link ClosedLoopLoad}: 3 clients, 8 in flight each, 300 keys each) whose
         * acknowledged writes are read back through every replica at the end.
         */
        PER_KEY,
        /**
         * SET and GET on four keys with 5% DBSIZE and 1% FLUSHALL
         * ({@link HistoryClient.Workload#withGlobalCommands}), checked as one partition. No
         * closed-loop load: a FLUSHALL would erase its acknowledged writes and DBSIZE would count
         * its keys, neither of which the history knows. So the history clients are the load (the
         * faults wait for progress in their answers, snapshots come every 500 instances), and the
         * lost-write check is part of the history: after the faults, every key is written once more
         * and read back through every replica, recorded, so a lost acknowledged write makes the
         * history non-linearizable.
         */
        GLOBAL
    }

    /** Chooses the second replica to kill, once the restarted leader's successor leads. */
    @FunctionalInterface
    interface SecondVictim {
        /** A live replica other than {@code leader}. */
        int choose(ProcessCluster cluster, int leader);
    }

    /** Chooses the first replica to kill (and, after its restart, the one the second victim is chosen from). */
    @FunctionalInterface
    interface FirstVictim {
        /** A live replica. */
        int choose(ProcessCluster cluster) throws InterruptedException;
    }

    /** The ordering leader, from the replicas' metrics ({@link ProcessCluster#awaitLeader}); -1 if none claims it. */
    static int leader(ProcessCluster cluster) throws InterruptedException {
        return cluster.awaitLeader(Duration.ofSeconds(10));
    }

    /**
     * Runs the scenario with the cluster-file {@code settings} (the ordering and its timeouts);
     * {@code leaderName} and {@code secondName} name the two victims in failure messages.
     */
    static void run(Path dir, Properties settings, String leaderName, String secondName, SecondVictim second) throws Exception {
        run(dir, settings, KillUnderLoadScenario::leader, leaderName, secondName, second);
    }

    /** {@link #run(Path, Properties, String, String, SecondVictim)} whose first victim {@code first} chooses. */
    static void run(Path dir, Properties settings, FirstVictim first, String leaderName, String secondName, SecondVictim second)
            throws Exception {
        run(dir, settings, Commands.PER_KEY, first, leaderName, secondName, second);
    }

    /** {@link #run(Path, Properties, FirstVictim, String, String, SecondVictim)} with the history clients' {@code commands}. */
    static void run(Path dir, Properties settings, Commands commands, FirstVictim first, String leaderName, String secondName,
                    SecondVictim second) throws Exception {
        Properties p = ProcessCluster.localDefaults(dir.resolve("data"), commands == Commands.GLOBAL ? 500 : 2_000);
        p.setProperty("log.sync", "every-batch");
        p.putAll(settings);
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, p, false,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-Dorg.slf4j.simpleLogger.log.dev.parallax.ringpaxos=info"))
                .replicaArgs("--metrics-port", "0")) {
            cluster.startAll(Duration.ofSeconds(60));
            try {
                scenario(cluster, commands, first, leaderName, secondName, second);
            } catch (AssertionError | RuntimeException e) {
                printLogTails(cluster);
                throw e;
            }
        }
    }

    /** The ordering's gauges and the last lines of every replica's log, for a failed run's report. */
    static void printLogTails(ProcessCluster cluster) {
        for (int i = 0; i < cluster.size(); i++) {
            StringBuilder gauges = new StringBuilder("replica " + i + (cluster.isAlive(i) ? "" : " (dead)") + ":");
            for (String g : List.of("parallax_paxos_view", "parallax_paxos_leader", "parallax_paxos_first_undecided", "parallax_ring_round", "parallax_ring_coordinator", "parallax_ring_size", "parallax_ring_position",
                    "parallax_ring_window", "parallax_ring_outstanding", "parallax_ring_first_undecided",
                    "parallax_ring_version_floor", "parallax_ring_reformations_total", "parallax_protocol_member_suspicions_total",
                    "parallax_client_redirects_total", "parallax_snapshots_installed_total", "parallax_snapshots_taken_total")) {
                gauges.append(' ').append(g.replace("parallax_", "")).append('=').append(ReplicaMetrics.gauge(cluster.metricsPort(i), g));
            }
            System.out.println(gauges);
        }
        for (int i = 0; i < cluster.size(); i++) {
            try {
                List<String> lines = java.nio.file.Files.readAllLines(cluster.log(i));
                System.out.println("---- replica " + i + " log (last 60 lines) ----");
                lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(System.out::println);
            } catch (java.io.IOException e) {
                System.out.println("---- replica " + i + " log unreadable: " + e);
            }
        }
    }

    private static void scenario(ProcessCluster cluster, Commands commands, FirstVictim first, String leaderName, String secondName,
                                 SecondVictim second) throws Exception {
        boolean global = commands == Commands.GLOBAL;
        HistoryClient.Workload workload = global ? HistoryClient.Workload.withGlobalCommands(4) : HistoryClient.Workload.perKey(4);
        HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
        AtomicBoolean running = new AtomicBoolean(true);
        LongAdder answered = new LongAdder();
        List<Thread> workers = new ArrayList<>();
        List<SmrClient> clients = new ArrayList<>();
        CountDownLatch warm = new CountDownLatch(6);
        for (int c = 0; c < 6; c++) {
            // Reads go as queries to the client's own replica (read-index where the ordering has it), so
            // every replica answers reads while the leader is killed.
            SmrClient client = SmrClient.connect(cluster.clientConfig().startAt(c % 3).readAt(c % 3)
                    .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(30)).build());
            clients.add(client);
            CommandInvoker routed = KvRouting.invoker(cluster.clusterFile(), client);
            CommandInvoker counted = new CommandInvoker() {
                @Override
                public java.util.concurrent.CompletableFuture<java.nio.ByteBuffer> invoke(java.nio.ByteBuffer command) {
                    return counting(routed.invoke(command));
                }

                @Override
                public java.util.concurrent.CompletableFuture<java.nio.ByteBuffer> query(java.nio.ByteBuffer query) {
                    return counting(routed.query(query));
                }

                private java.util.concurrent.CompletableFuture<java.nio.ByteBuffer> counting(
                        java.util.concurrent.CompletableFuture<java.nio.ByteBuffer> f) {
                    return f.whenComplete((reply, error) -> {
                        if (error == null) {
                            answered.increment();
                        }
                    });
                }
            };
            int id = c;
            Thread t = new Thread(() -> HistoryClient.run(id, counted, history, running, workload, warm::countDown), "history-" + c);
            workers.add(t);
            t.start();
        }
        ClosedLoopLoad load = global ? null : new ClosedLoopLoad(cluster, 3, 8, 300, Duration.ofMinutes(3));
        try {
            Progress progress = load != null ? new Progress(load::completed, 200, "writes") : new Progress(answered::sum, 100, "answers");
            if (load != null) {
                load.start();
            }
            assertThat(warm.await(30, TimeUnit.SECONDS)).as("every history client got answers").isTrue();
            progress.await("the history runs under load before the first kill");

            int leader = first.choose(cluster);
            assertThat(leader).as("the %s", leaderName).isBetween(0, 2);
            cluster.kill(leader);
            progress.await("the two survivors go on without the " + leaderName);
            cluster.start(leader, Duration.ofSeconds(60));
            progress.await("the cluster goes on after the " + leaderName + "'s restart");

            int newLeader = first.choose(cluster);
            assertThat(newLeader).isBetween(0, 2);
            int other = second.choose(cluster, newLeader);
            cluster.kill(other); // clients attached to it, batches of its own in flight
            progress.await("the others go on without the " + secondName + ", replica " + other);
            cluster.start(other, Duration.ofSeconds(60));
            progress.await("the cluster goes on after the " + secondName + "'s restart");

            running.set(false);
            for (Thread t : workers) {
                t.join(60_000);
            }
            if (load != null) {
                load.stop(Duration.ofSeconds(60));
                assertThat(load.completed()).isPositive();
                for (int i = 0; i < 3; i++) {
                    int through = i;
                    assertThat(load.countLost(() -> cluster.clientConfig().startAt(through), System.out))
                            .as("acknowledged writes lost, read through replica %d", i).isZero();
                }
            } else {
                writeAndReadBackThroughEveryReplica(cluster, history, workload.keys());
            }
        } finally {
            // A failed assertion must not leave the history clients looping (and recording) forever.
            running.set(false);
            clients.forEach(SmrClient::close);
            for (Thread t : workers) {
                t.join(10_000);
            }
            if (load != null) {
                load.close();
            }
        }
        long checkStart = System.nanoTime();
        CheckResult r = LinearizabilityChecker.check(new KvModel(), history.history(), CheckBudget.ofTime(Duration.ofSeconds(60)));
        System.out.printf("history check: %s (%d ms)%n", r, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - checkStart));
        assertThat(r.isLinearizable()).as("%s", r).isTrue();
        assertThat(r.operations()).isGreaterThan(50);
        if (global) {
            List<Operation<dev.parallax.core.check.KvOp, String>> ops = history.history().operations();
            assertThat(ops).as("answered DBSIZEs")
                    .anyMatch(op -> op.input() instanceof dev.parallax.core.check.KvOp.DbSize && !op.outcomeUnknown());
            assertThat(ops).as("answered FLUSHALLs")
                    .anyMatch(op -> op.input() instanceof dev.parallax.core.check.KvOp.FlushAll && !op.outcomeUnknown());
            assertThat(r.partitions()).as("a history with global commands is one partition").isEqualTo(1);
            System.out.printf("history: %d DBSIZE, %d FLUSHALL, %d outcomes unknown%n",
                    ops.stream().filter(op -> op.input() instanceof dev.parallax.core.check.KvOp.DbSize).count(),
                    ops.stream().filter(op -> op.input() instanceof dev.parallax.core.check.KvOp.FlushAll).count(),
                    ops.stream().filter(Operation::outcomeUnknown).count());
        }

        ReplicaConvergence.Outcome o = ReplicaConvergence.await(cluster, Duration.ofSeconds(60));
        System.out.println("convergence: " + o.describe());
        assertThat(o.converged()).as(o.describe()).isTrue();
        assertThat(o.digests()[0]).as("the load wrote something").isPositive();
        for (int i = 0; i < 3; i++) {
            assertThat(ReplicaMetrics.gauge(cluster.metricsPort(i), "parallax_client_redirects_total"))
                    .as("redirects by replica %d", i).isZero();
        }
        long served = 0;
        for (int i = 0; i < 3; i++) {
            served += Math.max(0, ReplicaMetrics.gauge(cluster.metricsPort(i), "parallax_queries_total", "outcome=\"served\""));
        }
        System.out.printf("reads answered as queries by the replicas since their last start: %d%n", served);
        if (!"p-smr".equals(cluster.clusterFile().execution().configName())) {
            assertThat(served).as("reads answered outside the order (read-index), not ordered").isPositive();
        }
    }

    /**
     * The end of a {@link Commands#GLOBAL} run, recorded in {@code history} (clients 100, 101,
     * 102): writes every key once more (so that the store is not empty, whatever FLUSHALL came
     * last), then reads every key back through each replica in turn. Every operation must be
     * answered; the linearizability check then proves that no acknowledged write was lost.
     */
    private static void writeAndReadBackThroughEveryReplica(ProcessCluster cluster,
            HistoryRecorder<dev.parallax.core.check.KvOp, String> history, int keys) throws Exception {
        for (int i = 0; i < cluster.size(); i++) {
            try (SmrClient client = SmrClient.connect(cluster.clientConfig().startAt(i).invokeTimeout(Duration.ofSeconds(30)).build())) {
                CommandInvoker reader = KvRouting.invoker(cluster.clusterFile(), client);
                for (int k = 0; k < keys; k++) {
                    if (i == 0) {
                        assertThat(HistoryClient.call(100 + i, reader, history, dev.parallax.core.check.KvOp.put("h" + k, "final")))
                                .as("the final write of h%d answered", k).isTrue();
                    }
                    assertThat(HistoryClient.call(100 + i, reader, history, dev.parallax.core.check.KvOp.get("h" + k)))
                            .as("the read back of h%d through replica %d answered", k, i).isTrue();
                }
            }
        }
    }

    /**
     * Progress of the load: {@code step} more of {@code what} ({@code counter}) since a call to
     * {@link #await}. Each fault waits for it, so the load runs on a while (measured in what it
     * completes, not in time) before the next fault.
     */
    private record Progress(LongSupplier counter, int step, String what) {
        /** Waits (generously: four JVMs on a loaded machine) until {@code step} more complete after now. */
        void await(String description) throws InterruptedException {
            long from = counter.getAsLong();
            Await.until(Duration.ofSeconds(30), () -> counter.getAsLong() >= from + step,
                    () -> description + " (" + step + " " + what + "; " + (counter.getAsLong() - from) + " so far)");
        }
    }
}
