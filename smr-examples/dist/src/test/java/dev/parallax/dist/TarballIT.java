package dev.parallax.dist;

import dev.parallax.examples.cli.ClusterFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** The release tarball: its layout, its launcher, and sample files a replica accepts. */
class TarballIT {
    private static final Duration RUN = Duration.ofSeconds(90);

    @Test
    @DisplayName("the tarball holds bin/, conf/*.example, lib/, libexec/, compose/, systemd/, observability/ and the notices")
    void layout() throws Exception {
        Path home = Dist.tarballHome();
        assertThat(home.resolve("bin/parallax")).isExecutable();
        assertThat(home.resolve("libexec/testbed.sh")).isExecutable();
        for (String f : List.of("conf/cluster.properties.example", "conf/kv-cluster.properties.example",
                "conf/volery-cluster.properties.example", "lib/jvm-flags.txt", "systemd/parallax-replica@.service",
                "systemd/replica.env.example", "compose/kv/compose.yaml", "compose/kv/cluster.properties",
                "compose/volery/compose.yaml", "compose/volery/cluster.properties", "observability/grafana-dashboard.json",
                "observability/prometheus-alerts.yml", "LICENSE", "NOTICE", "README.md")) {
            assertThat(home.resolve(f)).as(f).isRegularFile();
        }
        try (var jars = Files.list(home.resolve("lib"))) {
            assertThat(jars.map(p -> p.getFileName().toString()).toList())
                    .anyMatch(n -> n.startsWith("parallax-examples-") && n.endsWith(".jar"))
                    .anyMatch(n -> n.startsWith("picocli-"))
                    .anyMatch(n -> n.startsWith("chronicle-queue-"))
                    .noneMatch(n -> n.contains("junit") || n.contains("tests"));
        }
        assertThat(Files.readString(home.resolve("compose/kv/compose.yaml"))).contains("image: parallax:" + Dist.version());
    }

    @Test
    @DisplayName("bin/parallax --help lists the commands, bench and testbed among them")
    void help() throws Exception {
        String out = launcher("--help").ok("bin/parallax --help").output();
        assertThat(out).contains("replica", "kv", "admin", "keys", "bench", "testbed");
    }

    @Test
    @DisplayName("bin/parallax keys prints every cluster-file key")
    void keys() throws Exception {
        String out = launcher("keys").ok("bin/parallax keys").output();
        assertThat(out).contains("`members`", "`multiring.kind`", "`data.dir`");
    }

    @Test
    @DisplayName("bin/parallax bench says it needs a source checkout")
    void bench() throws Exception {
        Dist.Result r = launcher("bench");
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.output()).contains("source checkout");
    }

    @Test
    @DisplayName("the sample cluster files load (keys, values, the ordering and executor checks)")
    void samplesLoad() throws Exception {
        Path home = Dist.tarballHome();
        for (String f : List.of("conf/cluster.properties.example", "conf/kv-cluster.properties.example",
                "conf/volery-cluster.properties.example", "compose/kv/cluster.properties",
                "compose/volery/cluster.properties")) {
            assertThatCode(() -> ClusterFile.load(home.resolve(f))).as(f).doesNotThrowAnyException();
        }
        assertThat(ClusterFile.load(home.resolve("conf/volery-cluster.properties.example")).settings()
                .toProperties().getProperty("multiring.kind")).isEqualTo("u-ring");
    }

    private static Dist.Result launcher(String... args) throws Exception {
        Path home = Dist.tarballHome();
        List<String> command = new java.util.ArrayList<>();
        command.add(home.resolve("bin/parallax").toString());
        command.addAll(List.of(args));
        return Dist.run(RUN, home, Map.of("JAVA_HOME", System.getProperty("java.home"),
                "PARALLAX_JAVA_OPTS", "-Xmx256m"), command);
    }
}
