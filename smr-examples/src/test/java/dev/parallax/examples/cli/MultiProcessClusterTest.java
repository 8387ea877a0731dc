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
 * Three replica JVMs on loopback, started through {@code parallax replica}: the leader is killed
 * with SIGKILL under load; the clients' history must be linearizable and every acknowledged write
 * readable. The Redis front end is exercised through a real RESP client (Jedis).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiProcessClusterTest {
    private ProcessCluster cluster;

    @BeforeAll
    void startCluster(@TempDir Path dir) throws Exception {
        Properties p = new Properties();
        p.setProperty("paxos.heartbeat.ms", "40");
        p.setProperty("paxos.suspect.ms", "400");
        p.setProperty("client.io.threads", "1");
        cluster = new ProcessCluster(dir, 3, p, true,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        cluster.startAll(Duration.ofSeconds(60));
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void killingTheLeaderUnderLoadLosesNothingAndStaysLinearizable() throws Exception {
        HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> workers = new ArrayList<>();
        List<SmrClient> clients = new ArrayList<>();
        CountDownLatch warm = new CountDownLatch(4);
        for (int c = 0; c < 4; c++) {
            SmrClient client = SmrClient.connect(ClientConfig.builder(cluster.clientEndpoints())
                    .retryTimeout(Duration.ofMillis(500)).invokeTimeout(Duration.ofSeconds(20)).build());
            clients.add(client);
            int id = c;
            Thread t = new Thread(() -> HistoryClient.run(id, client, history, running, 4, warm::countDown), "history-client-" + c);
            workers.add(t);
            t.start();
        }
        try (ClosedLoopLoad load = new ClosedLoopLoad(cluster.clientEndpoints(), 2, 16, 500, Duration.ofSeconds(120))) {
            load.start();
            assertThat(warm.await(30, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(1500);
            int leader = clients.get(0).currentReplica();
            cluster.kill(leader);
            Thread.sleep(2500);
            running.set(false);
            for (Thread t : workers) {
                t.join(30_000);
            }
            load.stop(Duration.ofSeconds(30));
            assertThat(load.completed()).isPositive();
            assertThat(load.countLost(cluster.clientEndpoints(), System.out)).as("acknowledged writes lost").isZero();
            cluster.start(leader, Duration.ofSeconds(60));
        } finally {
            clients.forEach(SmrClient::close);
        }
        CheckResult result = LinearizabilityChecker.check(new KvModel(), history.history());
        assertThat(result.isLinearizable()).as("%s", result).isTrue();
        assertThat(result.operations()).isGreaterThan(50);
    }

    @Test
    void redisBenchmarkCompletesAgainstTheCluster() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(onPath("redis-benchmark"),
                "redis-benchmark is not installed (scripts/ensure-tools.sh installs redis-tools)");
        int live = 0;
        while (!cluster.isAlive(live)) {
            live++;
        }
        var ep = cluster.redisEndpoints().member(live);
        Process p = new ProcessBuilder("redis-benchmark", "-h", ep.host(), "-p", Integer.toString(ep.port()),
                "-t", "set,get", "-n", "100000", "-P", "16", "-q").redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("SET:").contains("GET:").contains("requests per second");
        System.out.println("redis-benchmark against replica " + live + ":\n" + output.replace('\r', '\n').strip());
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (java.nio.file.Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
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
