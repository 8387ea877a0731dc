package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.client.SmrClient;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The process scenario of the orderings that serve clients at every replica (S-Paxos, seed 002
 * §V-C; Ring Paxos, seed 003 §3.3.5; Multi-Ring Paxos, ch. 5), shared by {@link SPaxosProcessTest},
 * {@link URingProcessTest}, {@link MRingProcessTest} and {@link MultiRingProcessTest}: three {@code parallax replica} JVMs with durable state
 * ({@code log.sync=every-batch}, snapshots every 2,000 instances) and six history clients spread
 * over the replicas by {@code startAt} next to a closed-loop load (both addressing commands as the
 * ordering wants, {@link KvRouting}); SIGKILL the ordering leader (the replica whose metrics say it
 * leads, or the replica the test chooses, e.g. a ring's coordinator) mid-load and restart it, then
 * SIGKILL a second replica the test chooses and restart it. No acknowledged write may be lost (read back through every
 * replica), the history must be linearizable, the replicas must converge, and no replica may
 * redirect a client. Blocks the calling test thread; stateless.
 */
final class KillUnderLoadScenario {
    private KillUnderLoadScenario() {
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
        Properties p = ProcessCluster.localDefaults(dir.resolve("data"), 2_000);
        p.setProperty("log.sync", "every-batch");
        p.putAll(settings);
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, p, false,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-Dorg.slf4j.simpleLogger.log.dev.parallax.ringpaxos=info"))
                .replicaArgs("--metrics-port", "0")) {
            cluster.startAll(Duration.ofSeconds(60));
            try {
                scenario(cluster, first, leaderName, secondName, second);
            } catch (AssertionError | RuntimeException e) {
                printLogTails(cluster);
                throw e;
            }
        }
    }

    /** The ordering's gauges and the last lines of every replica's log, for a failed run's report. */
    private static void printLogTails(ProcessCluster cluster) {
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

    private static void scenario(ProcessCluster cluster, FirstVictim first, String leaderName, String secondName, SecondVictim second)
            throws Exception {
        {
            HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> workers = new ArrayList<>();
            List<SmrClient> clients = new ArrayList<>();
            CountDownLatch warm = new CountDownLatch(6);
            for (int c = 0; c < 6; c++) {
                SmrClient client = SmrClient.connect(cluster.clientConfig().startAt(c % 3)
                        .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(30)).build());
                clients.add(client);
                int id = c;
                Thread t = new Thread(() -> HistoryClient.run(id, KvRouting.invoker(cluster.clusterFile(), client), history, running, 4, warm::countDown), "history-" + c);
                workers.add(t);
                t.start();
            }
            try (ClosedLoopLoad load = new ClosedLoopLoad(cluster, 3, 8, 300, Duration.ofMinutes(3))) {
                load.start();
                assertThat(warm.await(30, TimeUnit.SECONDS)).as("every history client got answers").isTrue();
                Thread.sleep(1000);

                int leader = first.choose(cluster);
                assertThat(leader).as("the %s", leaderName).isBetween(0, 2);
                cluster.kill(leader);
                awaitProgress(load, "the two survivors go on without the " + leaderName);
                cluster.start(leader, Duration.ofSeconds(60));
                awaitProgress(load, "the cluster goes on after the " + leaderName + "'s restart");

                int newLeader = first.choose(cluster);
                assertThat(newLeader).isBetween(0, 2);
                int other = second.choose(cluster, newLeader);
                cluster.kill(other); // clients attached to it, batches of its own in flight
                awaitProgress(load, "the others go on without the " + secondName + ", replica " + other);
                cluster.start(other, Duration.ofSeconds(60));
                awaitProgress(load, "the cluster goes on after the " + secondName + "'s restart");

                running.set(false);
                for (Thread t : workers) {
                    t.join(60_000);
                }
                load.stop(Duration.ofSeconds(60));
                assertThat(load.completed()).isPositive();
                for (int i = 0; i < 3; i++) {
                    int through = i;
                    assertThat(load.countLost(() -> cluster.clientConfig().startAt(through), System.out))
                            .as("acknowledged writes lost, read through replica %d", i).isZero();
                }
            } finally {
                // A failed assertion must not leave the history clients looping (and recording) forever.
                running.set(false);
                clients.forEach(SmrClient::close);
                for (Thread t : workers) {
                    t.join(10_000);
                }
            }
            CheckResult r = LinearizabilityChecker.check(new KvModel(), history.history(), CheckBudget.ofTime(Duration.ofSeconds(60)));
            assertThat(r.isLinearizable()).as("%s", r).isTrue();
            assertThat(r.operations()).isGreaterThan(50);

            ReplicaConvergence.Outcome o = ReplicaConvergence.await(cluster, Duration.ofSeconds(60));
            System.out.println("convergence: " + o.describe());
            assertThat(o.converged()).as(o.describe()).isTrue();
            assertThat(o.digests()[0]).as("the load wrote something").isPositive();
            for (int i = 0; i < 3; i++) {
                assertThat(ReplicaMetrics.gauge(cluster.metricsPort(i), "parallax_client_redirects_total"))
                        .as("redirects by replica %d", i).isZero();
            }
        }
    }

    /** Waits (generously: four JVMs on a loaded machine) until the load completes 200 more writes after now. */
    private static void awaitProgress(ClosedLoopLoad load, String what) throws InterruptedException {
        long from = load.completed();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (load.completed() < from + 200) {
            assertThat(System.nanoTime() - deadline).as(what + " (200 writes within 30 s)").isNegative();
            Thread.sleep(20);
        }
        Thread.sleep(500);
    }
}
