package dev.parallax.dist;

import dev.parallax.core.testkit.Await;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compose files of the tarball: {@code config} checks both wherever compose is installed (the
 * build installs docker-compose where it can); {@code up} runs them only where a Docker daemon
 * answers, and is skipped with the reason elsewhere.
 */
class ComposeIT {
    private static final Duration RUN = Duration.ofSeconds(120);

    @Test
    @DisplayName("compose config accepts the KV and the Volery compose files")
    void config() throws Exception {
        List<String> compose = compose();
        for (String service : List.of("kv", "volery")) {
            Path dir = Dist.tarballHome().resolve("compose").resolve(service);
            String out = Dist.run(RUN, dir, Map.of(), with(compose, "-f", "compose.yaml", "config"))
                    .ok(service + ": " + String.join(" ", compose) + " config").output();
            assertThat(out).as(service).contains("parallax:" + Dist.version(), service + "0", service + "2",
                    "/etc/parallax/cluster.properties");
        }
    }

    @Test
    @DisplayName("with a Docker daemon: the KV store answers redis-cli and Volery zkCli, then down")
    void upAndDown() throws Exception {
        List<String> compose = compose();
        Dist.Result info = Dist.run(Duration.ofSeconds(60), null, "sh", "-c", "docker info 2>&1");
        Assumptions.assumeTrue(info.exitCode() == 0, () -> "skipped: no Docker daemon reachable (docker info: "
                + info.output().lines().reduce((a, b) -> b).orElse("") + ")");
        Dist.run(Duration.ofMinutes(5), null, "docker", "load", "-i", Dist.path("dist.image").toString())
                .ok("docker load");
        Path home = Dist.tarballHome();
        Path kv = home.resolve("compose/kv");
        try {
            Dist.run(RUN, kv, Map.of(), with(compose, "up", "-d")).ok("kv: compose up");
            Assertions.assertTrue(Dist.onPath("redis-cli"), "redis-cli is not on the PATH; install redis-tools");
            Await.until("redis-cli -p 6379 ping answers PONG", Duration.ofSeconds(90),
                    () -> quietly("redis-cli", "-p", "6379", "ping").contains("PONG"));
            Await.until("a SET through replica 1 is read back", Duration.ofSeconds(60),
                    () -> quietly("redis-cli", "-p", "6380", "set", "compose", "ok").contains("OK"));
        } finally {
            Dist.run(RUN, kv, Map.of(), with(compose, "down"));
        }
        Path volery = home.resolve("compose/volery");
        try {
            Dist.run(RUN, volery, Map.of(), with(compose, "up", "-d")).ok("volery: compose up");
            String zkcli = "JAVA_HOME=" + System.getProperty("java.home") + " " + home.resolve("bin/parallax")
                    + " zkcli -server 127.0.0.1:2181 ";
            Await.until("zkCli creates /compose through Volery and lists it", Duration.ofSeconds(90),
                    () -> quietly("sh", "-c", zkcli + "create /compose x; " + zkcli + "ls /").contains("[compose"));
        } finally {
            Dist.run(RUN, volery, Map.of(), with(compose, "down"));
        }
    }

    /** {@code docker compose} (v2) if present, else {@code docker-compose} (v1); fails naming both if neither. */
    static List<String> compose() throws IOException {
        if (Dist.onPath("docker")
                && Dist.run(Duration.ofSeconds(30), null, "docker", "compose", "version").exitCode() == 0) {
            return List.of("docker", "compose");
        }
        if (Dist.onPath("docker-compose")) {
            return List.of("docker-compose");
        }
        return Assertions.fail("neither `docker compose` nor `docker-compose` is installed: install docker-compose "
                + "(scripts/ensure-test-tools.sh, which the build runs, does as root or with password-less sudo)");
    }

    private static List<String> with(List<String> head, String... tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(List.of(tail));
        return all;
    }

    private static String quietly(String... command) {
        try {
            return Dist.run(Duration.ofSeconds(30), null, command).output();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
