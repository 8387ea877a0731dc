package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.client.SmrClient;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
 * S-Paxos (seed 002) in separate replica JVMs with durable state ({@code log.sync=every-batch},
 * snapshots every 2,000 instances) and clients spread over the replicas: the crash of the ordering
 * leader and the crash of a follower that is itself an origin of batches (seed 002 (S-Paxos) §V-C,
 * "crash of the leader / of a follower"), each by SIGKILL under load and followed by a restart.
 * Every replica takes its own clients' commands, so the follower dies with clients attached and
 * batches it forwarded but that are not yet decided. No acknowledged write may be lost (read back
 * through every replica), the history must be linearizable, the replicas must converge to the same
 * frontier and store contents, and no replica may ever redirect a client.
 */
class SPaxosProcessTest {

    @Test
    @DisplayName("seed 002 (S-Paxos) §V-C: SIGKILL the ordering leader, then a non-leader origin, under load; "
            + "nothing acknowledged lost, linearizable, converged, never a redirect")
    void killingTheOrderingLeaderAndANonLeaderOriginUnderLoadLosesNothing(@TempDir Path dir) throws Exception {
        Properties p = ProcessCluster.localDefaults(dir.resolve("data"), 2_000);
        p.setProperty("ordering", "s-paxos");
        p.setProperty("log.sync", "every-batch");
        p.setProperty("paxos.heartbeat.ms", "40");
        p.setProperty("paxos.suspect.ms", "400");
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, p, false,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"))
                .replicaArgs("--metrics-port", "0")) {
            cluster.startAll(Duration.ofSeconds(60));
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
            try (ClosedLoopLoad load = new ClosedLoopLoad(cluster::clientConfig, 3, 8, 300, Duration.ofMinutes(5))) {
                load.start();
                assertThat(warm.await(30, TimeUnit.SECONDS)).as("every history client got answers").isTrue();
                Thread.sleep(1000);

                int leader = cluster.awaitLeader(Duration.ofSeconds(10));
                assertThat(leader).as("the ordering leader, from the replicas' metrics").isBetween(0, 2);
                cluster.kill(leader);
                awaitProgress(load, "the two survivors go on without the ordering leader");
                cluster.start(leader, Duration.ofSeconds(60));
                Thread.sleep(1000);

                int newLeader = cluster.awaitLeader(Duration.ofSeconds(10));
                assertThat(newLeader).isBetween(0, 2);
                int origin = (newLeader + 1) % 3;
                cluster.kill(origin); // clients attached to it, batches of its own in flight
                awaitProgress(load, "the others go on without the crashed origin");
                cluster.start(origin, Duration.ofSeconds(60));
                awaitProgress(load, "the cluster goes on after the origin's restart");

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
