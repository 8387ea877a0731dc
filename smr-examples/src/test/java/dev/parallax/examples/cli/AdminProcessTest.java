package dev.parallax.examples.cli;

import dev.parallax.core.config.Member;
import dev.parallax.core.testkit.Await;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import redis.clients.jedis.Jedis;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code parallax admin} against three Multi-Paxos replica JVMs (started as the other process
 * tests start them, with a cluster secret, so every mutating request is signed): {@code status}
 * shows the leader and its decided and executed instances, {@code members} shows the
 * membership, {@code add} adds a learner (the membership change itself is tested under load by
 * {@link MembershipProcessTest}), and {@code snapshot} makes every replica write one.
 */
class AdminProcessTest {
    /** What {@code admin add} answers: exit code and a part of the message (the new membership). */
    private static final int ADD_EXIT = 0;
    private static final String ADD_ANSWER = "learners=[3]";
    /** A status row: replica (1), reachable, stream (2), role (3), view (4), leader (5), decided (6), executed (7), lag (8), membership (9). */
    private static final Pattern ROW = Pattern.compile(
            "(?m)^(\\d+)\\s+yes\\s+(\\S+)\\s+(leader|follower|recovering)\\s+(-?\\d+)\\s+(-?\\d+)\\s+(-?\\d+)\\s+(-?\\d+)\\s+(\\d+)\\s+(.*)$");

    private record Run(int code, String out, String err) {
    }

    private static Run admin(ProcessCluster cluster, String... args) {
        List<String> m = new ArrayList<>();
        for (int id = 0; id < cluster.size(); id++) {
            m.add(id + "=127.0.0.1:" + cluster.metricsPort(id));
        }
        List<String> all = new ArrayList<>(List.of("admin", "--config", cluster.configFile().toString(), "--metrics",
                String.join(",", m)));
        all.addAll(List.of(args));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new ParallaxCli()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(all.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    @DisplayName("status shows the leader and the decided instances; members shows the membership; add adds a learner; snapshot is taken")
    void adminAgainstAThreeReplicaMultiPaxosCluster(@TempDir Path dir) throws Exception {
        Properties p = ProcessCluster.localDefaults(dir.resolve("data"), 100_000);
        p.setProperty("ordering", "multi-paxos");
        p.setProperty("paxos.heartbeat.ms", "40");
        p.setProperty("paxos.suspect.ms", "400");
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, p, true,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"))
                .replicaArgs("--metrics-port", "0")) {
            cluster.startAll(Duration.ofSeconds(60));
            int leader = cluster.awaitLeader(Duration.ofSeconds(30));
            assertThat(leader).as("a leader").isBetween(0, 2);
            Member redis = cluster.redisEndpoints().member(leader);
            try (Jedis jedis = new Jedis(redis.host(), redis.port())) {
                for (int i = 0; i < 5; i++) {
                    assertThat(jedis.set("k" + i, "v" + i)).isEqualTo("OK");
                }
            }

            Run status = admin(cluster, "status");
            assertThat(status.code()).as(status.out() + status.err()).isZero();
            Matcher row = ROW.matcher(status.out());
            int rows = 0;
            boolean leaderSeen = false;
            while (row.find()) {
                rows++;
                assertThat(Integer.parseInt(row.group(5))).as("the leader replica %s believes in", row.group(1)).isEqualTo(leader);
                if (row.group(3).equals("leader")) {
                    leaderSeen = true;
                    assertThat(Integer.parseInt(row.group(1))).isEqualTo(leader);
                    assertThat(Long.parseLong(row.group(6))).as("decided at the leader: five writes, one instance each")
                            .isGreaterThanOrEqualTo(4);
                    assertThat(Long.parseLong(row.group(7))).as("executed at the leader, which answered them").isGreaterThanOrEqualTo(4);
                }
            }
            assertThat(rows).as("one row per replica:\n" + status.out()).isEqualTo(3);
            assertThat(leaderSeen).as(status.out()).isTrue();
            assertThat(status.out()).contains("voters=[0,1,2]");

            Run members = admin(cluster, "members");
            assertThat(members.code()).isZero();
            assertThat(members.out()).contains("replica 0: voters=[0,1,2] learners=[]", "replica 2: voters=[0,1,2] learners=[]");

            Run add = admin(cluster, "add", "3=127.0.0.1:" + dev.parallax.core.net.LocalPorts.endpoints(1).replaceAll(".*:", ""));
            assertThat(add.code()).as(add.out() + add.err()).isEqualTo(ADD_EXIT);
            assertThat(add.out() + add.err()).contains(ADD_ANSWER);

            Run snapshot = admin(cluster, "snapshot");
            assertThat(snapshot.code()).as(snapshot.err()).isZero();
            try (Jedis jedis = new Jedis(redis.host(), redis.port())) {
                assertThat(jedis.set("after-snapshot-request", "v")).isEqualTo("OK");
            }
            for (int id = 0; id < 3; id++) {
                int port = cluster.metricsPort(id);
                Await.until("replica " + id + " took the requested snapshot", Duration.ofSeconds(30),
                        () -> ReplicaMetrics.gauge(port, "parallax_snapshots_taken_total") >= 1);
            }
        }
    }
}
