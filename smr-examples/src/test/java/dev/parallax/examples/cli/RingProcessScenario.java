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
 * The Ring Paxos process scenario (seed 003 (Ring Paxos) §3.3.5, "coping with failures"), shared by
 * {@link URingProcessTest} and {@link MRingProcessTest}: three {@code parallax replica} JVMs with
 * durable state ({@code log.sync=every-batch}, snapshots every 2,000 instances) and six history
 * clients spread over the replicas by {@code startAt} (every replica serves its own clients) next
 * to a closed-loop load; SIGKILL the coordinator mid-load and restart it, then SIGKILL a member off
 * the acceptor part of the ring (U-Ring: the last learner; M-Ring: a spare) and restart it. No
 * acknowledged write may be lost (read back through every replica), the history must be
 * linearizable, the replicas must converge, and no replica may redirect a client. Blocks the
 * calling test thread; stateless.
 */
final class RingProcessScenario {
    private RingProcessScenario() {
    }

    /** Runs the scenario with {@code ordering} ({@code u-ring} or {@code m-ring}) and {@code extra} cluster-file settings. */
    static void run(Path dir, String ordering, Properties extra) throws Exception {
        Properties p = ProcessCluster.localDefaults(dir.resolve("data"), 2_000);
        p.setProperty("ordering", ordering);
        p.setProperty("log.sync", "every-batch");
        p.setProperty("ring.heartbeat.ms", "40");
        p.setProperty("ring.suspect.ms", "400");
        p.putAll(extra);
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, p, false,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-Dorg.slf4j.simpleLogger.log.dev.parallax.ringpaxos=info"))
                .replicaArgs("--metrics-port", "0")) {
            cluster.startAll(Duration.ofSeconds(60));
            try {
                scenario(cluster, ordering);
            } catch (AssertionError | RuntimeException e) {
                printLogTails(cluster);
                throw e;
            }
        }
    }

    /** The ring gauges and the last lines of every replica's log, for a failed run's report. */
    private static void printLogTails(ProcessCluster cluster) {
        for (int i = 0; i < cluster.size(); i++) {
            StringBuilder gauges = new StringBuilder("replica " + i + (cluster.isAlive(i) ? "" : " (dead)") + ":");
            for (String g : List.of("parallax_ring_round", "parallax_ring_coordinator", "parallax_ring_size", "parallax_ring_position",
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

    private static void scenario(ProcessCluster cluster, String ordering) throws Exception {
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
                Thread t = new Thread(() -> HistoryClient.run(id, client, history, running, 4, warm::countDown), "history-" + c);
                workers.add(t);
                t.start();
            }
            try (ClosedLoopLoad load = new ClosedLoopLoad(cluster::clientConfig, 3, 8, 300, Duration.ofMinutes(3))) {
                load.start();
                assertThat(warm.await(30, TimeUnit.SECONDS)).as("every history client got answers").isTrue();
                Thread.sleep(1000);

                int coordinator = cluster.awaitLeader(Duration.ofSeconds(10));
                assertThat(coordinator).as("the coordinator, from parallax_ring_coordinator").isBetween(0, 2);
                cluster.kill(coordinator);
                awaitProgress(load, "the two survivors re-form the ring without the coordinator (§3.3.5)");
                cluster.start(coordinator, Duration.ofSeconds(60));
                awaitProgress(load, "the cluster goes on after the coordinator's restart");

                int newCoordinator = cluster.awaitLeader(Duration.ofSeconds(10));
                assertThat(newCoordinator).isBetween(0, 2);
                int other = offTheAcceptors(cluster, ordering, newCoordinator);
                cluster.kill(other); // clients attached to it, proposals of its own in flight
                awaitProgress(load, "the others go on without replica " + other);
                cluster.start(other, Duration.ofSeconds(60));
                awaitProgress(load, "the cluster goes on after replica " + other + "'s restart");

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

    /**
     * A live replica that is not one of the ring's acceptors, from its {@code parallax_ring_position}
     * gauge: U-Ring, the last position (a learner only, §3.3.3 ¶2); M-Ring, a spare off the ring
     * (-1, §3.3.2 ¶1). Any replica but the coordinator if none reports one.
     */
    private static int offTheAcceptors(ProcessCluster cluster, String ordering, int coordinator) {
        int best = (coordinator + 1) % 3;
        long bestPosition = Long.MIN_VALUE;
        for (int i = 0; i < 3; i++) {
            if (i == coordinator || !cluster.isAlive(i)) {
                continue;
            }
            long position = ReplicaMetrics.gauge(cluster.metricsPort(i), "parallax_ring_position");
            if (ordering.equals("m-ring") ? position == -1 : position > bestPosition) {
                best = i;
                bestPosition = position;
                if (ordering.equals("m-ring")) {
                    break;
                }
            }
        }
        return best;
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
