package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Crash recovery with separate replica JVMs, durable state (Chronicle Queue log with an fsync per
 * batch, snapshots) and SIGKILL: each replica killed and restarted in turn under load; a replica
 * restarted after its peers compacted their logs (it must install a snapshot); all three killed at
 * once and restarted; a replica whose last log record was damaged while it was down (it must cut
 * the record with a warning and rejoin); a replica whose whole data directory was wiped while it
 * was down (restarted without {@code --bootstrap}, it must recover from its peers before voting).
 * No acknowledged write may be lost, the history must stay
 * linearizable, and afterwards every replica, restarted ones included, must reach the same decided
 * frontier and the same store contents ({@link ReplicaConvergence}).
 */
class DurabilityProcessTest {

    private static ProcessCluster cluster(Path dir, long snapshotEvery) throws Exception {
        Properties p = ProcessCluster.localDefaults(dir.resolve("data"), snapshotEvery);
        p.setProperty("paxos.heartbeat.ms", "40");
        p.setProperty("paxos.suspect.ms", "400");
        ProcessCluster c = new ProcessCluster(dir, 3, p, false,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        c.replicaArgs("--metrics-port", "0");
        c.startAll(Duration.ofSeconds(60));
        return c;
    }

    /** History clients plus a bulk load, running while {@code faults} runs; then both checks. */
    private static void underLoad(ProcessCluster cluster, FaultScript faults) throws Exception {
        HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> workers = new ArrayList<>();
        List<SmrClient> clients = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            SmrClient client = SmrClient.connect(ClientConfig.builder(cluster.clientEndpoints())
                    .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(30)).build());
            clients.add(client);
            int id = c;
            Thread t = new Thread(() -> HistoryClient.run(id, client, history, running, 4, () -> { }), "history-" + c);
            workers.add(t);
            t.start();
        }
        try (ClosedLoopLoad load = new ClosedLoopLoad(cluster.clientEndpoints(), 2, 8, 300, Duration.ofMinutes(5))) {
            load.start();
            faults.run();
            running.set(false);
            for (Thread t : workers) {
                t.join(60_000);
            }
            load.stop(Duration.ofSeconds(60));
            assertThat(load.completed()).isPositive();
            assertThat(load.countLost(cluster.clientEndpoints(), System.out)).as("acknowledged writes lost").isZero();
        } finally {
            clients.forEach(SmrClient::close);
        }
        CheckResult r = LinearizabilityChecker.check(new KvModel(), history.history(), CheckBudget.ofTime(Duration.ofSeconds(60)));
        assertThat(r.isLinearizable()).as("%s", r).isTrue();
    }

    /** Waits (with a deadline: separate processes) until every replica has the same frontier and contents. */
    private static void assertConverged(ProcessCluster cluster) throws InterruptedException {
        for (int i = 0; i < cluster.size(); i++) {
            assertThat(cluster.isAlive(i)).as("replica %d runs", i).isTrue();
        }
        ReplicaConvergence.Outcome o = ReplicaConvergence.await(cluster, Duration.ofSeconds(60));
        System.out.println("convergence: " + o.describe());
        assertThat(o.converged()).as(o.describe()).isTrue();
        assertThat(o.frontiers()).containsOnly(o.frontiers()[0]);
        assertThat(o.digests()).containsOnly(o.digests()[0]);
        assertThat(o.digests()[0]).as("the load wrote something").isPositive();
    }

    @FunctionalInterface
    interface FaultScript {
        void run() throws Exception;
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // the compact placement meets kills and restarts in the chaos run; time budget
    void killingAndRestartingEachReplicaInTurnLosesNothing(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = cluster(dir, 500)) {
            underLoad(cluster, () -> {
                for (int i = 0; i < 3; i++) {
                    Thread.sleep(1000); // sleep is the scenario: load on the full cluster
                    cluster.kill(i);
                    Thread.sleep(1000); // sleep is the scenario: load while replica i is down
                    cluster.start(i, Duration.ofSeconds(60));
                }
                Thread.sleep(1000); // sleep is the scenario: load after the last restart
            });
            assertConverged(cluster);
        }
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // the compact placement meets kills and restarts in the chaos run; time budget
    void aReplicaRestartedAfterItsPeersCompactedInstallsASnapshot(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = cluster(dir, 200)) {
            underLoad(cluster, () -> {
                Thread.sleep(500); // sleep is the scenario: load before the kill
                cluster.kill(2);
                // sleep is the scenario: replica 2 stays down while the others decide and compact thousands of instances
                Thread.sleep(4000);
                // The counter also counts the restore of replica 2's own latest snapshot at start-up,
                // if it wrote one before it was killed (written whole or not at all). It cannot be
                // read before the fetch: the replica starts its protocol, which may already install a
                // peer's snapshot, before it serves metrics. So the baseline comes from the disk.
                long restoredAtStart;
                try (Stream<Path> own = Files.list(dir.resolve("data").resolve("replica-2").resolve("snapshots"))) {
                    restoredAtStart = own.anyMatch(f -> f.getFileName().toString().matches("snapshot-\\d{20}\\.snap")) ? 1 : 0;
                } catch (java.nio.file.NoSuchFileException e) {
                    restoredAtStart = 0;
                }
                cluster.start(2, Duration.ofSeconds(60));
                long ownSnapshots = restoredAtStart;
                Await.value(Duration.ofSeconds(30), () -> ReplicaMetrics.gauge(cluster.metricsPort(2), "parallax_snapshots_installed_total"),
                        installed -> installed > ownSnapshots, () -> "replica 2 to install a peer's snapshot");
                assertThat(ReplicaMetrics.gauge(cluster.metricsPort(2), "parallax_snapshots_installed_total"))
                        .as("a snapshot fetched from a peer was installed (own snapshots restored at start: %d)", restoredAtStart)
                        .isGreaterThan(restoredAtStart);
            });
            try (Stream<Path> snaps = Files.list(dir.resolve("data").resolve("replica-0").resolve("snapshots"))) {
                assertThat(snaps.count()).isPositive();
            }
            assertConverged(cluster);
        }
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // compact placement: MultiProcessClusterTest$MultiPaxos kills the leader under load; see smr-examples/pom.xml
    void restartingAllThreeAtOnceLosesNoAcknowledgedWrite(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = cluster(dir, 1000)) {
            underLoad(cluster, () -> {
                Thread.sleep(1500); // sleep is the scenario: load before the kills
                for (int i = 0; i < 3; i++) {
                    cluster.kill(i);
                }
                for (int i = 0; i < 3; i++) {
                    cluster.start(i, Duration.ofSeconds(60));
                }
                Thread.sleep(1500); // sleep is the scenario: load after the restarts
            });
            assertConverged(cluster);
        }
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // compact placement: the demo and MultiProcessClusterTest$MultiPaxos; see smr-examples/pom.xml
    void aReplicaWhoseDataDirectoryWasWipedRecoversFromItsPeersBeforeVotingAndLosesNothing(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = cluster(dir, 1000)) {
            underLoad(cluster, () -> {
                Thread.sleep(1500); // sleep is the scenario: load before the kill
                cluster.kill(1);
                Path data = dir.resolve("data").resolve("replica-1");
                try (Stream<Path> files = Files.walk(data)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
                assertThat(data).doesNotExist();
                cluster.start(1, Duration.ofSeconds(60)); // a restart: no --bootstrap
                assertThat(Files.readString(cluster.log(1))).as("replica 1's output")
                        .contains("treated as a lost (wiped or replaced) directory");
                Await.value(Duration.ofSeconds(30), () -> ReplicaMetrics.gauge(cluster.metricsPort(1), "parallax_protocol_recovering"),
                        recovering -> recovering == 0, () -> "replica 1 to recover from its peers");
                assertThat(ReplicaMetrics.gauge(cluster.metricsPort(1), "parallax_protocol_recovering"))
                        .as("recovered from its peers, then votes again").isZero();
                Thread.sleep(1500); // sleep is the scenario: replica 1 takes part again while the load runs
            });
            assertConverged(cluster);
        }
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // compact placement: the demo and MultiProcessClusterTest$MultiPaxos; see smr-examples/pom.xml
    void aReplicaWhoseLastLogRecordWasDamagedCutsItRejoinsAndConverges(@TempDir Path dir) throws Exception {
        // No snapshot during the run: the log keeps every record, and recovery replays it.
        try (ProcessCluster cluster = cluster(dir, 1_000_000)) {
            underLoad(cluster, () -> {
                Thread.sleep(1500); // sleep is the scenario: load before the kill
                cluster.kill(1);
                LogTail.Record last = LogTail.lastRecord(dir.resolve("data").resolve("replica-1").resolve("log"));
                LogTail.corrupt(last);
                cluster.start(1, Duration.ofSeconds(60));
                String log = Files.readString(cluster.log(1));
                assertThat(log).as("replica 1's output").contains("WARN").contains("Cut the log")
                        .contains("at index " + last.index()).contains("CRC32C mismatch")
                        .contains(last.file().getFileName().toString());
                Thread.sleep(1500); // sleep is the scenario: replica 1 takes part again while the load runs
            });
            assertThat(Files.readString(cluster.log(1))).doesNotContain("Refusing to open");
            assertConverged(cluster);
        }
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // compact placement: the demo and MultiProcessClusterTest$MultiPaxos; see smr-examples/pom.xml
    void aShortChaosRunIsLinearizableLosesNothingAndConverges(@TempDir Path dir) {
        String duration = System.getProperty("chaos.duration", "12s");
        int code = new picocli.CommandLine(new ChaosCommand()).execute("--duration", duration, "--dir", dir.toString(),
                "--seed", Long.toString(System.getProperty("chaos.seed") == null ? 7 : Long.getLong("chaos.seed")));
        // Exit code 0: linearizable, no acknowledged write lost, and every replica (restarted ones
        // included) at the same decided frontier and store digest at the end.
        assertThat(code).as("chaos verdict (see the output above)").isZero();
    }

    /**
     * Stress profile only (CI budget): the default run kills S-Paxos replicas under load in
     * {@code SPaxosProcessTest} and {@code MultiProcessClusterTest$SPaxos} (linearizable histories,
     * nothing lost, convergence) and runs the S-Paxos demo; this adds partitions and restarts of every
     * replica in one run, which the Multi-Paxos chaos run above keeps in the default run.
     */
    @Test
    @dev.parallax.core.testkit.StressOnly
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (SPaxosReplicaClusterTest); see smr-examples/pom.xml
    @org.junit.jupiter.api.DisplayName("seed 002 (S-Paxos) §V-C: the short chaos run with --ordering s-paxos (kills, restarts, "
            + "partitions of replicas that all serve clients)")
    void aShortChaosRunWithSPaxosIsLinearizableLosesNothingAndConverges(@TempDir Path dir) {
        String duration = System.getProperty("chaos.duration", "12s");
        int code = new picocli.CommandLine(new ChaosCommand()).execute("--duration", duration, "--dir", dir.toString(),
                "--seed", Long.toString(System.getProperty("chaos.seed") == null ? 7 : Long.getLong("chaos.seed")),
                "--ordering", "s-paxos");
        assertThat(code).as("chaos verdict with S-Paxos (see the output above)").isZero();
    }
}
