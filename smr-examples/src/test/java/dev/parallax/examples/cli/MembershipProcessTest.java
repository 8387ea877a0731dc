package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.testkit.Await;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operator replaces a Multi-Paxos (S-Paxos, U-Ring, M-Ring) replica whose disk died, under load, with real processes:
 * three {@code parallax replica} JVMs ({@code log.sync=every-batch}, snapshots every 500
 * instances) under a closed-loop load and four history clients; replica 2 is SIGKILLed and its data
 * directory deleted; a fresh replica starts with {@code --join} under id 3;
 * {@code parallax admin add 3=...} adds it as a learner, {@code parallax admin replace 2 3=...}
 * (retried while the leader says the learner has not caught up) replaces the dead voter, and the
 * leader is SIGKILLed right after the replacement is asked for, then restarted at once (until the
 * replacement is in effect, the dead voter and the killed leader are two of three). Checked: the
 * members end as voters 0, 1 and 3 at every live replica, no acknowledged write is lost (read back
 * through replicas 0, 1 and 3), the history is linearizable, and replicas 0, 1 and 3 converge to
 * one state. Clients are given replica 3's client address from the start, as an operator would
 * (it may come to lead, and clients follow redirects only to endpoints they know). The rings run
 * with {@code ring.member.ids=8}; their "leader" is the ring's coordinator, and the replacement
 * is in effect {@code ring.window} instances after its decision.
 */
class MembershipProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    record Run(int code, String out) {
    }

    static Run admin(ProcessCluster cluster, String... args) {
        List<String> m = new ArrayList<>();
        for (int id = 0; id < cluster.size(); id++) {
            m.add(id + "=127.0.0.1:" + Math.max(1, cluster.metricsPort(id)));
        }
        List<String> all = new ArrayList<>(List.of("admin", "--config", cluster.configFile().toString(), "--metrics",
                String.join(",", m), "--timeout", "20"));
        all.addAll(List.of(args));
        StringWriter out = new StringWriter();
        int code = new CommandLine(new ParallaxCli()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(out, true))
                .execute(all.toArray(String[]::new));
        return new Run(code, out.toString());
    }

    /** A loopback port whose port + 1000 (the joiner's client port) is free too. */
    static int joinPort() throws IOException {
        while (true) {
            int p = LocalPorts.next();
            if (p + 1000 <= 65535) {
                try (ServerSocket s = new ServerSocket(p + 1000)) {
                    return p;
                } catch (IOException taken) {
                    // try the next one
                }
            }
        }
    }

    static void deleteTree(Path p) throws IOException {
        if (Files.exists(p)) {
            try (Stream<Path> walk = Files.walk(p)) {
                for (Path x : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(x);
                }
            }
        }
    }

    /**
     * The orderings of {@link #replaceAWipedReplicaUnderLoadWithALeaderKill}: all five under
     * {@code -Pstress}; in the default run Multi-Paxos, U-Ring and Multi-Ring. S-Paxos shares
     * Multi-Paxos' membership path (its ordering layer is the same core) and M-Ring U-Ring's ring
     * rules; both are replaced under the full fault mix in their membership simulations.
     */
    static java.util.List<String> replacementOrderings() {
        return Boolean.getBoolean("parallax.stress") ? java.util.List.of("multi-paxos", "s-paxos", "u-ring", "m-ring", "multi-ring")
                : java.util.List.of("multi-paxos", "u-ring", "multi-ring");
    }

    /**
     * Multi-Paxos and S-Paxos, and U-Ring, M-Ring and Multi-Ring with {@code ring.member.ids=8}:
     * there the "leader" killed is a ring's coordinator ({@code parallax_ring_coordinator}), and the
     * change is decided in the ring and in effect {@code ring.window} instances later (RingGroup,
     * G2); Multi-Ring's rings (two group rings and the global ring) each take the change, {@code
     * parallax admin} asking each ring's coordinator in turn. S-Paxos and M-Ring run under
     * {@code -Pstress} only ({@link #replacementOrderings}).
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("replacementOrderings")
    @org.junit.jupiter.api.Tag("one-placement") // the core's placement does not matter here; see smr-examples/pom.xml
    @DisplayName("a wiped replica is replaced by a joining one under load, with a leader SIGKILL during the change: nothing lost, linearizable, converged")
    void replaceAWipedReplicaUnderLoadWithALeaderKill(String ordering, @TempDir Path dir) throws Exception {
        Properties p = ProcessCluster.localDefaults(dir.resolve("data"), 500);
        p.setProperty("ordering", ordering);
        p.setProperty("log.sync", "every-batch");
        p.setProperty("paxos.heartbeat.ms", "50");
        p.setProperty("paxos.suspect.ms", "500");
        boolean ring = ordering.endsWith("-ring");
        if (ring) {
            p.setProperty("ring.member.ids", "8");
            p.setProperty("ring.heartbeat.ms", "50");
            p.setProperty("ring.suspect.ms", "500");
        }
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, p, false,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-Dorg.slf4j.simpleLogger.log.dev.parallax.paxos=info", "-Dorg.slf4j.simpleLogger.log.dev.parallax.ringpaxos=info", "-Dorg.slf4j.simpleLogger.log.dev.parallax.core.replica=info"))
                .replicaArgs("--metrics-port", "0")) {
            cluster.startAll(WAIT);
            try {
                scenario(cluster, dir, ring ? "parallax_ring_first_undecided" : "parallax_paxos_first_undecided");
            } catch (AssertionError | RuntimeException e) {
                KillUnderLoadScenario.printLogTails(cluster);
                for (int r : new int[]{0, 1, 3}) {
                    int port = cluster.metricsPort(r);
                    System.out.println("replica " + r + ": acks sent " + ReplicaMetrics.gauge(port,
                            "parallax_protocol_messages_sent_by_type_total", "type=\"HeartbeatAck\"") + ", acks received "
                            + ReplicaMetrics.gauge(port, "parallax_protocol_messages_received_by_type_total", "type=\"HeartbeatAck\"")
                            + ", heartbeats received " + ReplicaMetrics.gauge(port, "parallax_protocol_messages_received_by_type_total",
                            "type=\"Heartbeat\"") + ", refused members " + ReplicaMetrics.gauge(port, "parallax_net_refused_total",
                            "reason=\"member\""));
                }
                int jm = cluster.metricsPort(3);
                System.out.println("joiner 3: view=" + ReplicaMetrics.gauge(jm, "parallax_paxos_view") + " first_undecided="
                        + ReplicaMetrics.gauge(jm, "parallax_paxos_first_undecided") + " snapshots_installed="
                        + ReplicaMetrics.gauge(jm, "parallax_snapshots_installed_total") + " recovering="
                        + ReplicaMetrics.gauge(jm, "parallax_protocol_recovering"));
                try {
                    List<String> lines = Files.readAllLines(cluster.log(3));
                    System.out.println("---- joiner 3 log (last 80 lines) ----");
                    lines.subList(Math.max(0, lines.size() - 80), lines.size()).forEach(System.out::println);
                } catch (IOException unreadable) {
                    System.out.println("---- joiner 3 log unreadable: " + unreadable);
                }
                throw e;
            }
        }
    }

    /** @param firstUndecided the gauge of the ordering's first undecided instance */
    private static void scenario(ProcessCluster cluster, Path dir, String firstUndecided) throws Exception {
        // The operator gives clients the new replica's client address (its port + 1000) as endpoint
        // 3: a client follows a redirect only to an endpoint it knows, and the new replica may lead.
        int join = joinPort();
        String joinAt = "127.0.0.1:" + join;
        dev.parallax.core.config.ClusterMembers endpoints = dev.parallax.core.config.ClusterMembers.parse(
                cluster.clientEndpoints().members().stream().map(m -> m.id() + "=" + m.host() + ":" + m.port())
                        .collect(java.util.stream.Collectors.joining(",")) + ",3=127.0.0.1:" + (join + 1000));
        java.util.function.Supplier<dev.parallax.core.client.ClientConfig.Builder> clientConfig =
                () -> dev.parallax.core.client.ClientConfig.builder(endpoints);
        HistoryClient.Workload workload = HistoryClient.Workload.perKey(4);
        HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> workers = new ArrayList<>();
        List<SmrClient> clients = new ArrayList<>();
        CountDownLatch warm = new CountDownLatch(4);
        for (int c = 0; c < 4; c++) {
            SmrClient client = SmrClient.connect(clientConfig.get().startAt(c % 2)
                    .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(30)).build());
            clients.add(client);
            CommandInvoker routed = KvRouting.invoker(cluster.clusterFile(), client);
            int id = c;
            Thread t = new Thread(() -> HistoryClient.run(id, routed, history, running, workload, warm::countDown), "history-" + c);
            workers.add(t);
            t.start();
        }
        ClosedLoopLoad load = new ClosedLoopLoad(clientConfig, 2, 8, 300, Duration.ofMinutes(3));
        try {
            load.start();
            assertThat(warm.await(30, TimeUnit.SECONDS)).as("every history client got answers").isTrue();
            awaitWrites(load, "the load runs before the disk dies");

            cluster.kill(2);
            deleteTree(dir.resolve("data").resolve("replica-2"));
            awaitWrites(load, "two replicas go on without replica 2");

            cluster.startJoiner(3, joinAt, WAIT);
            Run add = Await.value(WAIT, () -> admin(cluster, "add", "3=" + joinAt), r -> r.code() == 0
                    || r.out().contains("already a member"), () -> "admin add 3");
            assertThat(add.out()).contains("learners=[3]");

            // Ask for the replacement, then kill the leader at once: the change may be decided by
            // the old leader or by the next one, or lost with it and asked again.
            int leader = cluster.awaitLeader(WAIT);
            assertThat(leader).isBetween(0, 1);
            Run first = admin(cluster, "replace", "2", "3=" + joinAt);
            cluster.kill(leader);
            System.out.println("replace asked, leader " + leader + " killed: " + first.code() + " " + first.out().strip());
            // With replica 2's disk gone, the group has no quorum without the killed leader until the
            // replacement is in effect: restart it at once, as a supervisor would.
            cluster.start(leader, WAIT);
            awaitWrites(load, "the group goes on after the leader's kill and restart");
            String[] lastAnswer = new String[1];
            Await.until(WAIT, () -> {
                Run members = admin(cluster, "--replica", "1", "members");
                if (members.out().contains("voters=[0,1,3]")) {
                    return true;
                }
                Run again = admin(cluster, "replace", "2", "3=" + joinAt);
                if (!again.out().equals(lastAnswer[0])) {
                    System.out.println("replace again: " + again.code() + " " + again.out().strip());
                    lastAnswer[0] = again.out();
                }
                return false;
            }, () -> "voters 0, 1 and 3");
            awaitWrites(load, "the group of 0, 1 and 3 goes on");
            String[] lastMembers = new String[1];
            MembershipRequests joinerRequests = new MembershipRequests(cluster);
            Await.until(WAIT, () -> {
                String m0 = admin(cluster, "--replica", "0", "members").out();
                String m1 = admin(cluster, "--replica", "1", "members").out();
                // The joiner caught up by snapshot and log: the snapshot carried the member histories.
                String m3 = String.valueOf(joinerRequests.membersLine(3));
                lastMembers[0] = m0 + m1 + " joiner: " + m3;
                return m0.contains("voters=[0,1,3]") && m1.contains("voters=[0,1,3]") && m3.startsWith("voters=[0,1,3]");
            }, () -> "replicas 0, 1 and 3 report voters 0, 1, 3: " + lastMembers[0]);
            int joinerMetrics = cluster.metricsPort(3);
            assertThat(ReplicaMetrics.gauge(joinerMetrics, firstUndecided)).isPositive();

            running.set(false);
            for (Thread t : workers) {
                t.join(60_000);
            }
            load.stop(WAIT);
            assertThat(load.completed()).isPositive();
            for (int i : new int[]{0, 1, 3}) {
                int through = i;
                assertThat(load.countLost(() -> clientConfig.get().startAt(through), System.out))
                        .as("acknowledged writes lost, read through replica %d", i).isZero();
            }
        } finally {
            running.set(false);
            clients.forEach(SmrClient::close);
            for (Thread t : workers) {
                t.join(10_000);
            }
            load.close();
        }
        CheckResult r = LinearizabilityChecker.check(new KvModel(), history.history(), CheckBudget.ofTime(Duration.ofSeconds(60)));
        System.out.println("history check: " + r);
        assertThat(r.isLinearizable()).as("%s", r).isTrue();
        assertThat(r.operations()).isGreaterThan(50);
        ReplicaConvergence.Outcome o = ReplicaConvergence.await(cluster, new int[]{0, 1, 3}, WAIT);
        System.out.println("convergence of 0, 1, 3: " + o.describe());
        assertThat(o.converged()).as(o.describe()).isTrue();
    }

    private static void awaitWrites(ClosedLoopLoad load, String what) throws InterruptedException {
        long from = load.completed();
        Await.until(Duration.ofSeconds(30), () -> load.completed() >= from + 200,
                () -> what + " (200 writes; " + (load.completed() - from) + " so far)");
    }
}
