package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.Await;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Crash recovery with separate replica JVMs, durable state (Chronicle Queue log with an fsync per
 * batch, snapshots) and SIGKILL: each replica killed and restarted in turn under load (under
 * {@code -Pstress} only: the default run covers each of its steps elsewhere, see its comment); a replica
 * restarted after its peers compacted their logs (it must install a snapshot); all three killed at
 * once and restarted; a replica whose last log record was damaged while it was down (it must cut
 * the record with a warning and rejoin); a replica whose whole data directory was wiped while it
 * was down (restarted without {@code --bootstrap}, it must recover from its peers before voting).
 * No acknowledged write may be lost, the history must stay
 * linearizable, and afterwards every replica, restarted ones included, must reach the same decided
 * frontier and the same store contents ({@link ReplicaConvergence}).
 *
 * <p>The faults come after progress of the load, not after fixed times: each waits until the load
 * has acknowledged {@value #STEP} more writes (and a replica stays down until its peers have taken
 * {@value #SNAPSHOTS_WHILE_DOWN} snapshots when it must come back to a compacted log). The scenarios
 * that end with every replica running and converged share one cluster ({@link OnOneCluster}); the
 * damaged log, which wants no snapshot at all, and the chaos run, which starts its own cluster,
 * run on their own.
 */
class DurabilityProcessTest {
    /** Acknowledged writes of the load between two faults. */
    static final int STEP = 300;
    /** Snapshots each peer takes while a replica that must install one is down. */
    static final int SNAPSHOTS_WHILE_DOWN = 3;

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
            try {
                faults.run(what -> {
                    long from = load.completed();
                    Await.until(Duration.ofSeconds(60), () -> load.completed() >= from + STEP,
                            () -> what + " (" + STEP + " more acknowledged writes; " + (load.completed() - from) + " so far)");
                });
            } catch (AssertionError | RuntimeException e) {
                KillUnderLoadScenario.printLogTails(cluster);
                throw e;
            }
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
        /** Runs the faults; {@code load} waits for progress of the load between them. */
        void run(Progress load) throws Exception;
    }

    /** Progress of the load a fault script waits for. */
    @FunctionalInterface
    interface Progress {
        /** Waits (up to 60 s: four JVMs on a loaded machine) until the load has acknowledged {@value DurabilityProcessTest#STEP} more writes. */
        void await(String what) throws InterruptedException;
    }

    /** Snapshots replica {@code id} has taken since it started ({@code parallax_snapshots_taken_total}), -1 if unreadable. */
    private static long snapshotsTaken(ProcessCluster cluster, int id) {
        return ReplicaMetrics.gauge(cluster.metricsPort(id), "parallax_snapshots_taken_total");
    }

    /**
     * The scenarios after which every replica runs again and has converged, on one cluster: each
     * starts from a whole cluster and an empty store (FLUSHALL before its history, which is checked
     * against an empty store); a scenario that fails leaves the next a new cluster. Snapshots every
     * {@value #SNAPSHOT_EVERY} instances, as the compaction scenario wants; the others, which had a
     * cluster each with snapshots every 500 or 1,000 instances, assert nothing of the interval.
     *
     * <p>In this order, the wiped directory last: the replica whose directory was wiped recovers from
     * its peers before voting not only then but at every later restart (its log, it warns, "was never
     * rebuilt after its directory was lost"), and that recovery needs both peers, which a later
     * scenario that kills another replica meanwhile would not give it. Before it, a restarted replica
     * replays its own log (forced at every batch) and votes at once, so each scenario can kill the
     * next replica as soon as the load has gone on.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    class OnOneCluster {
        /** The snapshot interval: the compaction scenario's (the peers compact while a replica is down). */
        static final long SNAPSHOT_EVERY = 200;

        private Path root;
        private int started;
        private Path currentDir;
        private ProcessCluster current;
        /** Whether the last scenario on {@link #current} passed, leaving it whole. */
        private boolean whole;

        @BeforeAll
        void root(@TempDir Path dir) {
            root = dir;
        }

        @AfterAll
        void close() {
            if (current != null) {
                current.close();
            }
        }

        /**
         * The cluster the scenarios share, with an empty store: started on first use, and again (in a
         * new directory) if the last scenario on it failed, since it may have left a replica down or
         * behind. The caller calls {@link #passed()} when its scenario passed.
         */
        private ProcessCluster shared() throws Exception {
            if (current != null && !whole) {
                current.close();
                current = null;
            }
            if (current == null) {
                currentDir = root.resolve("cluster-" + started++);
                current = cluster(currentDir, SNAPSHOT_EVERY);
            }
            whole = false;
            // The history is checked against a store that starts empty; the last scenario's keys go.
            try (SmrClient client = SmrClient.connect(ClientConfig.builder(current.clientEndpoints())
                    .invokeTimeout(Duration.ofSeconds(30)).build())) {
                KvReply reply = KvReply.decode(client.invoke(KvCommand.of(KvOp.FLUSHALL).encode()).get(30, TimeUnit.SECONDS));
                assertThat(reply).as("FLUSHALL").isInstanceOf(KvReply.Ok.class);
            }
            return current;
        }

        /** The scenario on {@link #shared()} passed: the cluster is whole, every replica running and converged. */
        private void passed() {
            whole = true;
        }

        /**
         * Stress profile only ({@link dev.parallax.core.testkit.StressOnly}, the default run's 15-minute
         * budget): each step of it is a scenario of the default run on durable Multi-Paxos replica JVMs
         * under load, with the lost-write check: the leader SIGKILLed and restarted from its log and
         * snapshot, then caught up ({@link DemoCommandTest#aShortDemoKillsRestartsAndCatchesUpTheLeaderAndLosesNothing});
         * a follower SIGKILLed and restarted under load, with a linearizable history and convergence
         * ({@link #aReplicaRestartedAfterItsPeersCompactedInstallsASnapshot},
         * {@link #aReplicaWhoseDataDirectoryWasWipedRecoversFromItsPeersBeforeVotingAndLosesNothing},
         * {@link DurabilityProcessTest#aReplicaWhoseLastLogRecordWasDamagedCutsItRejoinsAndConverges});
         * every replica killed and restarted ({@link #restartingAllThreeAtOnceLosesNoAcknowledgedWrite}), and
         * a kill and restart among partitions in the chaos run. What it adds is their sequence on one
         * cluster.
         */
        @Test
        @Order(1)
        @dev.parallax.core.testkit.StressOnly // covered in the default run: see the method comment
        @org.junit.jupiter.api.Tag("one-placement") // the compact placement meets kills and restarts in the chaos run; time budget
        void killingAndRestartingEachReplicaInTurnLosesNothing() throws Exception {
            ProcessCluster cluster = shared();
            underLoad(cluster, load -> {
                for (int i = 0; i < 3; i++) {
                    load.await("load on the full cluster");
                    cluster.kill(i);
                    load.await("load while replica " + i + " is down");
                    cluster.start(i, Duration.ofSeconds(60));
                }
                load.await("load after the last restart");
            });
            assertConverged(cluster);
            passed();
        }

        @Test
        @Order(3)
        @org.junit.jupiter.api.Tag("one-placement") // the compact placement meets kills and restarts in the chaos run; time budget
        void aReplicaRestartedAfterItsPeersCompactedInstallsASnapshot() throws Exception {
            ProcessCluster cluster = shared();
            Path dir = currentDir;
            underLoad(cluster, load -> {
                load.await("load before the kill");
                long[] takenAtKill = new long[2];
                for (int i = 0; i < 2; i++) {
                    int id = i;
                    takenAtKill[i] = Await.value(Duration.ofSeconds(30), () -> snapshotsTaken(cluster, id), taken -> taken >= 0,
                            () -> "replica " + id + "'s snapshot count");
                }
                cluster.kill(2);
                // Replica 2 stays down while the others decide and compact: each peer takes snapshots
                // (one every 200 instances), and compacts its log below each, past replica 2's position.
                Await.until(Duration.ofSeconds(60), () -> snapshotsTaken(cluster, 0) >= takenAtKill[0] + SNAPSHOTS_WHILE_DOWN
                                && snapshotsTaken(cluster, 1) >= takenAtKill[1] + SNAPSHOTS_WHILE_DOWN,
                        () -> "replicas 0 and 1 to take " + SNAPSHOTS_WHILE_DOWN + " snapshots while replica 2 is down (taken at the kill: "
                                + takenAtKill[0] + ", " + takenAtKill[1] + "; now " + snapshotsTaken(cluster, 0) + ", "
                                + snapshotsTaken(cluster, 1) + ")");
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
            passed();
        }

        @Test
        @Order(2)
        @org.junit.jupiter.api.Tag("one-placement") // compact placement: MultiProcessClusterTest$MultiPaxos kills the leader under load; see smr-examples/pom.xml
        void restartingAllThreeAtOnceLosesNoAcknowledgedWrite() throws Exception {
            ProcessCluster cluster = shared();
            underLoad(cluster, load -> {
                load.await("load before the kills");
                for (int i = 0; i < 3; i++) {
                    cluster.kill(i);
                }
                cluster.startAll(Duration.ofSeconds(60)); // all three launched at once (restarts: no --bootstrap), then awaited
                load.await("load after the restarts");
            });
            assertConverged(cluster);
            passed();
        }

        @Test
        @Order(4)
        @org.junit.jupiter.api.Tag("one-placement") // compact placement: the demo and MultiProcessClusterTest$MultiPaxos; see smr-examples/pom.xml
        void aReplicaWhoseDataDirectoryWasWipedRecoversFromItsPeersBeforeVotingAndLosesNothing() throws Exception {
            ProcessCluster cluster = shared();
            Path dir = currentDir;
            underLoad(cluster, load -> {
                load.await("load before the kill");
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
                load.await("replica 1 takes part again while the load runs");
            });
            assertConverged(cluster);
            passed();
        }
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // compact placement: the demo and MultiProcessClusterTest$MultiPaxos; see smr-examples/pom.xml
    void aReplicaWhoseLastLogRecordWasDamagedCutsItRejoinsAndConverges(@TempDir Path dir) throws Exception {
        // No snapshot during the run: the log keeps every record, and recovery replays it.
        try (ProcessCluster cluster = cluster(dir, 1_000_000)) {
            underLoad(cluster, load -> {
                load.await("load before the kill");
                cluster.kill(1);
                LogTail.Record last = LogTail.lastRecord(dir.resolve("data").resolve("replica-1").resolve("log"));
                LogTail.corrupt(last);
                cluster.start(1, Duration.ofSeconds(60));
                String log = Files.readString(cluster.log(1));
                assertThat(log).as("replica 1's output").contains("WARN").contains("Cut the log")
                        .contains("at index " + last.index()).contains("CRC32C mismatch")
                        .contains(last.file().getFileName().toString());
                load.await("replica 1 takes part again while the load runs");
            });
            assertThat(Files.readString(cluster.log(1))).doesNotContain("Refusing to open");
            assertConverged(cluster);
        }
    }

    /**
     * Stress profile only (CI budget): the default run's chaos run is {@code MembershipChaosTest}'s,
     * which runs these kills, restarts and partitions with membership changes among them.
     */
    @Test
    @dev.parallax.core.testkit.StressOnly
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
     * replica in one run, which the Multi-Paxos chaos run (MembershipChaosTest, with membership changes) keeps in the default run.
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
