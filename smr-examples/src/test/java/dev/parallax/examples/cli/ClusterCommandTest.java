package dev.parallax.examples.cli;

import dev.parallax.core.testkit.Await;
import dev.parallax.examples.process.ServerProcesses;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code parallax cluster}: bad input exits 2 before anything starts; run as a process, it starts
 * three replicas, prints their ports and the commands to try, serves redis-cli on every replica and
 * metrics over HTTP, and stops its replicas on SIGTERM (what Ctrl-C does).
 */
class ClusterCommandTest {
    private static final Duration START = Duration.ofSeconds(60);
    private static final Pattern REPLICA_LINE = Pattern.compile("(?m)^  replica (\\d+)  pid (\\d+) +client \\d+ +redis (\\d+) +metrics (\\S+)");

    private static CliRun cluster(String... args) {
        return CliRun.of(ClusterCommand::new, args);
    }

    @Test
    @DisplayName("bad input exits 2 with a message naming the option, before anything starts")
    void badInputExitsTwo(@TempDir Path dir) throws Exception {
        assertThat(cluster("--replicas", "2")).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("--replicas must be 3..9, not 2");
            assertThat(r.out()).isEmpty();
        });
        assertThat(cluster("--execution", "s-smr").err()).contains("./parallax demo --execution s-smr");
        assertThat(cluster("--ordering", "x-paxos").code()).isEqualTo(2);
        assertThat(cluster("--heap-mib", "8").err()).contains("--heap-mib must be at least 64, not 8");
        Path used = Files.createDirectories(dir.resolve("used"));
        Files.writeString(used.resolve("cluster.properties"), "members=0=127.0.0.1:1\n");
        assertThat(cluster("--dir", used.toString())).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("--dir " + used + " is not empty");
        });
        assertThat(used.resolve("replica-0.log")).doesNotExist();
    }

    @Test
    @DisplayName("as a process: 3 replicas with Redis front ends; redis-cli writes on one and reads on another; "
            + "metrics answer; SIGTERM stops every replica")
    void servesRedisAndMetricsUntilSigterm(@TempDir Path dir) throws Exception {
        RedisTools.require("redis-cli");
        Path work = dir.resolve("work");
        List<Long> replicaPids = new ArrayList<>();
        try (ServerProcesses outer = new ServerProcesses(dir, List.of("-Xmx128m", "-XX:+UseSerialGC"))) {
            outer.launch("cluster", ParallaxCli.class, List.of("cluster", "--dir", work.toString()));
            Path log = outer.log("cluster");
            Await.until(START, () -> read(log).contains("Ctrl-C stops the replicas.") || !outer.isAlive("cluster"),
                    () -> "the cluster to be ready; its output:\n" + read(log));
            String text = read(log);
            assertThat(outer.isAlive("cluster")).as(text).isTrue();
            assertThat(text).contains("3 replica processes on 127.0.0.1").contains("ordering multi-paxos");

            Matcher m = REPLICA_LINE.matcher(text);
            List<Integer> redisPorts = new ArrayList<>();
            List<String> metrics = new ArrayList<>();
            while (m.find()) {
                replicaPids.add(Long.parseLong(m.group(2)));
                redisPorts.add(Integer.parseInt(m.group(3)));
                metrics.add(m.group(4));
            }
            assertThat(redisPorts).as(text).hasSize(3);
            assertThat(text).contains("redis-cli -p " + redisPorts.get(0)).contains("curl -s " + metrics.get(0))
                    .contains("./parallax admin --config " + work.resolve("cluster.properties").toAbsolutePath() + " --metrics 0=");

            assertThat(redisCli(redisPorts.get(0), "SET", "greeting", "hello")).isEqualTo("OK");
            assertThat(redisCli(redisPorts.get(1), "INCR", "visits")).isEqualTo("1");
            assertThat(redisCli(redisPorts.get(2), "GET", "greeting")).isEqualTo("hello");

            HttpResponse<String> scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(metrics.get(0)))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.body()).contains("parallax_commands_executed_total").contains("parallax_paxos_leader");

            outer.close(); // SIGTERM, as Ctrl-C: the command's shutdown hook stops its replicas
            assertThat(outer.isAlive("cluster")).isFalse();
            Await.until("every replica to exit", Duration.ofSeconds(15),
                    () -> replicaPids.stream().noneMatch(ClusterCommandTest::alive));
            assertThat(work.resolve("cluster.properties")).exists(); // a --dir is kept
        } finally {
            replicaPids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        }
    }

    private static boolean alive(long pid) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        return h.isPresent() && h.get().isAlive();
    }

    private static String redisCli(int port, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        RedisTools.Result r = RedisTools.run(Duration.ofSeconds(30), null, command.toArray(String[]::new));
        assertThat(r.exitCode()).as(r.output()).isZero();
        return r.output().trim();
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
