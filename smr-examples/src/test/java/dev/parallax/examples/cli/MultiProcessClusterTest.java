package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.examples.kv.KvOp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Three replica JVMs on loopback, started through {@code parallax replica}, once per ordering
 * protocol (a nested class each: Multi-Paxos; S-Paxos, seed 002; M-Ring, seed 003 ch. 3; P-SMR
 * over Multi-Ring, ch. 5-6, whose clients route by key). With Multi-Paxos the leader is killed with
 * SIGKILL under load; the clients' history must be linearizable and every acknowledged write
 * readable (the other protocols' kill under load is their own process test's,
 * {@link KillUnderLoadScenario}). The Redis front end is exercised on every
 * replica, followers included, through a real RESP client (Jedis) and the real Redis tools
 * (redis-cli, its {@code --pipe} mass insertion, and redis-benchmark; see {@link RedisTools} for
 * when a missing tool fails or skips). With S-Paxos and Ring Paxos no replica ever redirects a client.
 * M-Ring's nested class runs under {@code -Pstress} only (see the comment above it).
 */
class MultiProcessClusterTest {

    @Nested
    @DisplayName("ordering=multi-paxos")
    class MultiPaxos extends OneCluster {
        MultiPaxos() {
            super("multi-paxos");
        }

        @Test
        void killingTheLeaderUnderLoadLosesNothingAndStaysLinearizable() throws Exception {
            killTheLeaderUnderLoadLosesNothingAndStaysLinearizable();
        }
    }

    @Nested
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (SPaxosReplicaClusterTest); see smr-examples/pom.xml
    @DisplayName("ordering=s-paxos (seed 002 (S-Paxos) §IV-A: every replica serves its clients)")
    class SPaxos extends OneCluster {
        SPaxos() {
            super("s-paxos");
        }
    }

    // U-Ring's and Multi-Ring's Redis front end is the same code as M-Ring's and P-SMR's (every
    // replica serves, no redirects; routing by key for multi-ring): they are run here once each, by
    // MRing and Psmr (which runs multi-ring), to keep the default test run under 15 minutes.
    // U-Ring's and Multi-Ring's own kill-under-load runs are URingProcessTest and PsmrProcessTest (MultiRingProcessTest
    // under -Pstress).
    // MRing runs under -Pstress only (StressOnly, the same budget): an unrouted ordering whose every replica
    // serves its clients meets the Redis front end, redis-cli and redis-benchmark in SPaxos above, the same
    // front-end code with no redirect; M-Ring itself runs in replica JVMs over IP multicast on loopback in
    // the default run in MRingProcessTest (coordinator and spare killed under datagram faults, no redirect).
    @Nested
    @dev.parallax.core.testkit.StressOnly
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (RingReplicaClusterTest); see smr-examples/pom.xml
    @DisplayName("ordering=m-ring (seed 003 (Ring Paxos) §3.3.2: IP multicast on loopback, every replica serves its clients)")
    class MRing extends OneCluster {
        MRing() {
            super("m-ring");
        }
    }

    @Nested
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (PsmrReplicaClusterTest); see smr-examples/pom.xml
    @DisplayName("execution=p-smr over ordering=multi-ring (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6: a worker per "
            + "group fed by its own subscription, commands routed by key, every replica serves its clients)")
    class Psmr extends OneCluster {
        Psmr() {
            super("multi-ring", "p-smr");
        }
    }

    /** The tests, against one cluster running {@link #ordering} (and {@link #execution}, if set). */
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class OneCluster {
        private final String ordering;
        private final String execution;
        private ProcessCluster cluster;

        OneCluster(String ordering) {
            this(ordering, null);
        }

        OneCluster(String ordering, String execution) {
            this.ordering = ordering;
            this.execution = execution;
        }

        @BeforeAll
        void startCluster(@TempDir Path dir) throws Exception {
            Properties p = new Properties();
            p.setProperty("ordering", ordering);
            if (execution != null) {
                p.setProperty("execution", execution);
            }
            p.setProperty("paxos.heartbeat.ms", "40");
            p.setProperty("paxos.suspect.ms", "400");
            p.setProperty("ring.heartbeat.ms", "40");
            p.setProperty("ring.suspect.ms", "400");
            p.setProperty("client.io.threads", "1");
            cluster = new ProcessCluster(dir, 3, p, true,
                    List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"))
                    .replicaArgs("--metrics-port", "0");
            cluster.startAll(Duration.ofSeconds(60));
        }

        /** The replica the kill run SIGKILLs: the one whose metrics say it leads (-1 if none does). */
        int victim() throws InterruptedException {
            return cluster.awaitLeader(Duration.ofSeconds(10));
        }

        @AfterAll
        void stopCluster() {
            if (cluster != null) {
                cluster.close();
            }
        }

        /**
         * SIGKILLs {@link #victim()} under load; the history clients' history must be linearizable and
         * every acknowledged write readable. Run by {@link MultiPaxos} only: the other protocols' kill
         * under load is their own process test's ({@link KillUnderLoadScenario}: SPaxosProcessTest,
         * MRingProcessTest, URingProcessTest, MultiRingProcessTest, PsmrProcessTest), which checks
         * the same and more (convergence, no redirects).
         */
        void killTheLeaderUnderLoadLosesNothingAndStaysLinearizable() throws Exception {
            HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> workers = new ArrayList<>();
            List<SmrClient> clients = new ArrayList<>();
            CountDownLatch warm = new CountDownLatch(4);
            for (int c = 0; c < 4; c++) {
                // Reads go as queries to replica c mod 3 (read-index): through every replica, the killed leader's too.
                SmrClient client = SmrClient.connect(ClientConfig.builder(cluster.clientEndpoints()).startAt(c % 3).readAt(c % 3)
                        .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(20)).build());
                clients.add(client);
                int id = c;
                Thread t = new Thread(() -> HistoryClient.run(id, KvRouting.invoker(cluster.clusterFile(), client), history, running, 4, warm::countDown), "history-client-" + c);
                workers.add(t);
                t.start();
            }
            try (ClosedLoopLoad load = new ClosedLoopLoad(cluster, 2, 16, 500, Duration.ofSeconds(120))) {
                load.start();
                assertThat(warm.await(30, TimeUnit.SECONDS)).isTrue();
                // The history runs under load before the kill: until both have made progress.
                progress(history, load, 0, 0, "the history and the load to run before the kill");
                int leader = victim();
                assertThat(leader).as("the replica whose metrics say it leads").isBetween(0, 2);
                long answeredAtKill = answered(history);
                long writtenAtKill = load.completed();
                cluster.kill(leader);
                // The history runs on through the fail-over: until both have made progress again,
                // which they can only once a new leader leads.
                progress(history, load, answeredAtKill, writtenAtKill, "the history and the load to go on after the fail-over");
                // Enough for the check below to mean something.
                dev.parallax.core.testkit.Await.until("more than 50 completed operations", Duration.ofSeconds(30),
                        () -> answered(history) > 50);
                running.set(false);
                for (Thread t : workers) {
                    t.join(30_000);
                }
                load.stop(Duration.ofSeconds(30));
                assertThat(load.completed()).isPositive();
                assertThat(load.countLost(cluster.clientEndpoints(), System.out)).as("acknowledged writes lost").isZero();
                cluster.start(leader, Duration.ofSeconds(60));
                if (!ordering.equals("multi-paxos")) {
                    for (int i = 0; i < 3; i++) {
                        assertThat(ReplicaMetrics.gauge(cluster.metricsPort(i), "parallax_client_redirects_total"))
                                .as("redirects by replica %d", i).isZero();
                    }
                }
            } finally {
                // A failed assertion must not leave the history clients looping (and recording) forever.
                running.set(false);
                clients.forEach(SmrClient::close);
                for (Thread t : workers) {
                    t.join(10_000);
                }
            }
            CheckResult result = LinearizabilityChecker.check(new KvModel(), history.history());
            assertThat(result.isLinearizable()).as("%s", result).isTrue();
            assertThat(result.operations()).isGreaterThan(50);
        }

        /** Answered operations in {@code history}. */
        private static long answered(HistoryRecorder<dev.parallax.core.check.KvOp, String> history) {
            return history.history().operations().stream().filter(op -> !op.outcomeUnknown()).count();
        }

        /**
         * Waits (generously: four JVMs on a loaded machine) until the history has 50 more answered
         * operations than {@code answered} and the load 500 more writes than {@code written}.
         */
        private static void progress(HistoryRecorder<dev.parallax.core.check.KvOp, String> history, ClosedLoopLoad load,
                                     long answered, long written, String what) throws InterruptedException {
            dev.parallax.core.testkit.Await.until(Duration.ofSeconds(30),
                    () -> answered(history) >= answered + 50 && load.completed() >= written + 500,
                    () -> what + " (50 more answered operations: " + (answered(history) - answered) + "; 500 more writes: "
                            + (load.completed() - written) + ")");
        }

        /**
         * The requests of each redis-benchmark test: the reference run (SET and GET, 100,000
         * requests) with Multi-Paxos, and with S-Paxos, where it found a livelock at the
         * dissemination's span bound that the in-process tests had not (docs/protocols/s-paxos.md); a
         * fifth of it with the ring orderings, whose front end is the same code (the time budget of
         * the default run). The same 16-deep pipelining and commands in every case.
         */
        int benchmarkRequests() {
            return ordering.equals("multi-paxos") || ordering.equals("s-paxos") ? 100_000 : 20_000;
        }

        @Test
        void redisBenchmarkCompletesAgainstTheClusterWithoutErrorReplies() throws Exception {
            RedisTools.require("redis-benchmark");
            int live = 0;
            while (!cluster.isAlive(live)) {
                live++;
            }
            var ep = cluster.redisEndpoints().member(live);
            // The reference run (SET and GET, 100,000 requests, 16 pipelined) exactly, or a fifth of it
            // (benchmarkRequests), then the other write commands briefly.
            int requests = benchmarkRequests();
            String output = redisBenchmark(ep, "-t", "set,get", "-n", Integer.toString(requests), "-P", "16", "-q")
                    + redisBenchmark(ep, "-t", "incr,mset", "-n", Integer.toString(requests / 5), "-P", "16", "-q");
            assertThat(output).contains("SET:").contains("GET:").contains("INCR:").contains("MSET").contains("requests per second");
            System.out.println("redis-benchmark against replica " + live + ":\n" + output.strip());
        }

        private static String redisBenchmark(dev.parallax.core.config.Member ep, String... args) throws Exception {
            List<String> command = new ArrayList<>(List.of("redis-benchmark", "-h", ep.host(), "-p", Integer.toString(ep.port())));
            command.addAll(List.of(args));
            RedisTools.Result r = RedisTools.run(Duration.ofSeconds(180), null, command.toArray(String[]::new));
            String output = r.output().replace('\r', '\n');
            assertThat(r.exitCode()).as(output).isZero();
            // redis-benchmark prints each error reply it gets ("Error from server: ERR ...") and goes on.
            assertThat(output).as("error replies in the benchmark's output").doesNotContain("Error").doesNotContain("ERR");
            return output;
        }

        /** Runs redis-cli against replica {@code replica}'s RESP port (not a terminal: raw replies, one per line). */
        private RedisTools.Result cli(int replica, String... args) throws Exception {
            var ep = cluster.redisEndpoints().member(replica);
            List<String> command = new ArrayList<>(List.of("redis-cli", "-h", ep.host(), "-p", Integer.toString(ep.port())));
            command.addAll(List.of(args));
            return RedisTools.run(Duration.ofSeconds(60), null, command.toArray(String[]::new));
        }

        @Test
        void redisCliRunsStringCommandsOnEveryReplicaIncludingFollowers() throws Exception {
            RedisTools.require("redis-cli");
            int checked = 0;
            for (int replica = 0; replica < 3; replica++) {
                if (!cluster.isAlive(replica)) {
                    continue;
                }
                checked++;
                String key = "cli:" + replica;
                assertThat(cli(replica, "PING").output().strip()).isEqualTo("PONG");
                assertThat(cli(replica, "SET", key, "value " + replica).output().strip()).isEqualTo("OK");
                assertThat(cli(replica, "GET", key).output().strip()).isEqualTo("value " + replica);
                int other = (replica + 1) % 3;
                if (cluster.isAlive(other)) {
                    assertThat(cli(other, "GET", key).output().strip()).as("read through another replica").isEqualTo("value " + replica);
                }
                long before = Long.parseLong(cli(replica, "INCR", "cli:counter").output().strip());
                assertThat(Long.parseLong(cli(replica, "INCR", "cli:counter").output().strip())).isEqualTo(before + 1);
                assertThat(cli(replica, "MSET", key + ":a", "1", key + ":b", "two words").output().strip()).isEqualTo("OK");
                assertThat(cli(replica, "MGET", key + ":a", key + ":b", key + ":absent").lines())
                        .containsExactly("1", "two words", "");
                assertThat(cli(replica, "DEL", key, key + ":a", key + ":absent").output().strip()).isEqualTo("2");
                assertThat(cli(replica, "EXISTS", key).output().strip()).isEqualTo("0");
                RedisTools.Result unknown = cli(replica, "NOSUCHCOMMAND", "x");
                assertThat(unknown.output()).contains("ERR unknown command").containsIgnoringCase("nosuchcommand");
                RedisTools.Result notInteger = cli(replica, "INCR", key + ":b");
                assertThat(notInteger.output()).contains("ERR value is not an integer or out of range");
                assertThat(cli(replica, "GET", key + ":b").output().strip()).as("a rejected INCR changes nothing").isEqualTo("two words");
            }
            assertThat(checked).isGreaterThanOrEqualTo(2);
        }

        @Test
        void redisCliPipeMassInsertionReachesEveryReplica() throws Exception {
            RedisTools.require("redis-cli");
            int keys = 2000;
            for (int replica = 0; replica < 3; replica++) {
                if (!cluster.isAlive(replica)) {
                    continue;
                }
                java.io.ByteArrayOutputStream resp = new java.io.ByteArrayOutputStream();
                for (int i = 0; i < keys; i++) {
                    writeCommand(resp, "SET", "pipe:" + replica + ":" + i, "v" + i);
                }
                var ep = cluster.redisEndpoints().member(replica);
                RedisTools.Result r = RedisTools.run(Duration.ofSeconds(120), resp.toByteArray(),
                        "redis-cli", "-h", ep.host(), "-p", Integer.toString(ep.port()), "--pipe");
                assertThat(r.exitCode()).as(r.output()).isZero();
                assertThat(r.output()).contains("Last reply received from server.").contains("errors: 0, replies: " + keys);
                int other = (replica + 1) % 3;
                if (cluster.isAlive(other)) {
                    var otherEp = cluster.redisEndpoints().member(other);
                    try (Jedis jedis = new Jedis(otherEp.host(), otherEp.port(), 20_000)) {
                        assertThat(jedis.mget("pipe:" + replica + ":0", "pipe:" + replica + ":1", "pipe:" + replica + ":" + (keys - 1)))
                                .as("read through replica %d", other).containsExactly("v0", "v1", "v" + (keys - 1));
                    }
                }
            }
        }

        private static void writeCommand(java.io.ByteArrayOutputStream out, String... args) {
            StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
            for (String a : args) {
                byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
                sb.append('$').append(bytes.length).append("\r\n").append(a).append("\r\n");
            }
            out.writeBytes(sb.toString().getBytes(StandardCharsets.UTF_8));
        }

        @Test
        void aRealRedisClientWorksAgainstAnyReplicaIncludingFollowers() {
            for (int replica = 0; replica < 3; replica++) {
                if (!cluster.isAlive(replica)) {
                    continue;
                }
                var ep = cluster.redisEndpoints().member(replica);
                try (Jedis jedis = new Jedis(ep.host(), ep.port(), 20_000)) {
                    assertThat(jedis.ping()).isEqualTo("PONG");
                    assertThat(jedis.set("r" + replica, "v" + replica)).isEqualTo("OK");
                    assertThat(jedis.get("r" + replica)).isEqualTo("v" + replica);
                    assertThat(jedis.incr("counter")).isPositive();
                    assertThat(jedis.exists("r" + replica)).isTrue();
                    assertThat(jedis.mset("m:" + replica + ":a", "A", "m:" + replica + ":b", "B")).isEqualTo("OK");
                    assertThat(jedis.mget("m:" + replica + ":a", "m:" + replica + ":absent", "m:" + replica + ":b"))
                            .containsExactly("A", null, "B");
                    assertThat(jedis.del("m:" + replica + ":a", "m:" + replica + ":b")).isEqualTo(2);
                    Pipeline p = jedis.pipelined();
                    List<Response<String>> gets = new ArrayList<>();
                    for (int i = 0; i < 200; i++) {
                        p.set("p" + i, Integer.toString(i));
                        gets.add(p.get("p" + i));
                    }
                    p.sync();
                    for (int i = 0; i < 200; i++) {
                        assertThat(gets.get(i).get()).isEqualTo(Integer.toString(i));
                    }
                    jedis.set("text", "abc");
                    assertThatThrownBy(() -> jedis.incr("text")).isInstanceOf(JedisDataException.class)
                            .hasMessageContaining("not an integer");
                    assertThat(jedis.get("text")).isEqualTo("abc");
                    assertThat(jedis.del("r" + replica)).isEqualTo(1);
                }
            }
        }
    }
}
