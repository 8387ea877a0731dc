package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.Await;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
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
 * A rolling restart's step with real processes: three Multi-Paxos (or U-Ring) {@code parallax
 * replica} JVMs under a closed-loop load and four history clients; the leader (the ring's
 * coordinator) gets SIGTERM. It hands leadership to the best caught-up voter before it stops
 * ({@link ShutdownHandover}): its log says so, the new leader received the old one's TimeoutNow
 * (the ring's HandOver), and no survivor ran a pre-vote round (the step of an election after a
 * suspect timeout; a transfer skips it, Raft thesis §3.10), or, on the ring, no survivor but the
 * new coordinator started a round. No acknowledged write is lost (read back through both
 * survivors), the history is linearizable, the survivors converge.
 */
class RollingRestartProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String EVENTS = "parallax_protocol_events_total";

    /** What a survivor other than the new leader must not have done: a pre-vote round, or on a ring a round of its own. */
    private record Election(String handOverType, String event) {
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"multi-paxos", "u-ring"})
    @org.junit.jupiter.api.Tag("one-placement") // compact placement: MultiProcessClusterTest$MultiPaxos; see smr-examples/pom.xml
    @DisplayName("SIGTERM of the leader under load hands leadership over (TimeoutNow or HandOver, no election): nothing lost, linearizable")
    void sigtermOfTheLeaderHandsLeadershipOver(String ordering, @TempDir Path dir) throws Exception {
        Properties p = ProcessCluster.localDefaults(dir.resolve("data"), 2_000);
        p.setProperty("ordering", ordering);
        p.setProperty("paxos.heartbeat.ms", "50");
        p.setProperty("paxos.suspect.ms", "500");
        p.setProperty("ring.heartbeat.ms", "50");
        p.setProperty("ring.suspect.ms", "500");
        Election election = ordering.equals("u-ring") ? new Election("HandOver", "event=\"rounds.started\"")
                : new Election("TimeoutNow", "event=\"prevote.rounds\"");
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, p, false,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"))
                .replicaArgs("--metrics-port", "0")) {
            cluster.startAll(WAIT);
            try {
                scenario(cluster, election);
            } catch (AssertionError | RuntimeException e) {
                KillUnderLoadScenario.printLogTails(cluster);
                throw e;
            }
        }
    }

    private static void scenario(ProcessCluster cluster, Election election) throws Exception {
        HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> workers = new ArrayList<>();
        List<SmrClient> clients = new ArrayList<>();
        CountDownLatch warm = new CountDownLatch(4);
        for (int c = 0; c < 4; c++) {
            SmrClient client = SmrClient.connect(cluster.clientConfig().startAt(c % 3)
                    .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(30)).build());
            clients.add(client);
            int id = c;
            Thread t = new Thread(() -> HistoryClient.run(id, KvRouting.invoker(cluster.clusterFile(), client), history, running,
                    HistoryClient.Workload.perKey(4), warm::countDown), "history-" + c);
            workers.add(t);
            t.start();
        }
        try (ClosedLoopLoad load = new ClosedLoopLoad(cluster, 2, 8, 300, Duration.ofMinutes(3))) {
            load.start();
            assertThat(warm.await(30, TimeUnit.SECONDS)).as("every history client got answers").isTrue();
            awaitWrites(load, "the load runs");
            int leader = cluster.awaitLeader(WAIT);
            assertThat(leader).isBetween(0, 2);
            int[] survivors = java.util.stream.IntStream.range(0, 3).filter(i -> i != leader).toArray();
            long[] preVotesBefore = new long[survivors.length];
            for (int i = 0; i < survivors.length; i++) {
                preVotesBefore[i] = ReplicaMetrics.gauge(cluster.metricsPort(survivors[i]), EVENTS, election.event());
                assertThat(preVotesBefore[i]).as("replica %d's %s are published", survivors[i], election.event()).isNotNegative();
            }

            long termAt = System.nanoTime() - load.startedAt();
            ProcessHandle.of(cluster.pid(leader)).orElseThrow().destroy(); // SIGTERM
            Await.until(WAIT, () -> !cluster.isAlive(leader), () -> "replica " + leader + " stops after SIGTERM");
            assertThat(Files.readString(cluster.log(leader)))
                    .contains("replica " + leader + " handed its leadership over before stopping");
            int next = Await.value(WAIT, cluster::leader, l -> l >= 0 && l != leader, () -> "a new leader");
            assertThat(ReplicaMetrics.gauge(cluster.metricsPort(next), "parallax_protocol_messages_received_by_type_total",
                    "type=\"" + election.handOverType() + "\"")).as("replica %d took over on the old leader's %s", next,
                    election.handOverType()).isPositive();
            for (int i = 0; i < survivors.length; i++) {
                if (survivors[i] != next || election.handOverType().equals("TimeoutNow")) {
                    assertThat(ReplicaMetrics.gauge(cluster.metricsPort(survivors[i]), EVENTS, election.event()))
                            .as("replica %d: %s unchanged, no election", survivors[i], election.event()).isEqualTo(preVotesBefore[i]);
                }
            }
            awaitWrites(load, "the survivors go on under replica " + next);
            System.out.println("leader " + leader + " stopped by SIGTERM, replica " + next + " leads; longest write gap "
                    + load.longestGapAfter(termAt, System.nanoTime() - load.startedAt()).toMillis() + " ms");

            running.set(false);
            for (Thread t : workers) {
                t.join(60_000);
            }
            load.stop(WAIT);
            for (int through : survivors) {
                assertThat(load.countLost(() -> cluster.clientConfig().startAt(through), System.out))
                        .as("acknowledged writes lost, read through replica %d", through).isZero();
            }
            CheckResult r = HistoryClient.check(history);
            assertThat(r.isLinearizable()).as("%s", r).isTrue();
            assertThat(r.operations()).isGreaterThan(50);
            ReplicaConvergence.Outcome o = ReplicaConvergence.await(cluster, survivors, WAIT);
            assertThat(o.converged()).as(o.describe()).isTrue();
        } finally {
            running.set(false);
            clients.forEach(SmrClient::close);
            for (Thread t : workers) {
                t.join(10_000);
            }
        }
    }

    private static void awaitWrites(ClosedLoopLoad load, String what) throws InterruptedException {
        long from = load.completed();
        Await.until(Duration.ofSeconds(30), () -> load.completed() >= from + 200,
                () -> what + " (200 writes; " + (load.completed() - from) + " so far)");
    }
}
