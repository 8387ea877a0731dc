package dev.parallax.bench.systems.zookeeper;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.core.client.CommandInvoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class ZooKeeperSystemTest {

    /**
     * Stress profile only (CI budget): the default run checks this system's settings and files
     * without starting it; {@code ParallaxSystemTest} runs the same load generator against
     * Parallax's own cluster. {@code ./parallax bench --compare} starts this cluster whenever it runs.
     */
    @dev.parallax.core.testkit.StressOnly
    @Test
    @org.junit.jupiter.api.DisplayName("an ensemble of three JVMs serves a short load of the Volery comparison's workload (10 % "
            + "create/delete, seed 004 §VI) without failures")
    void anEnsembleOfThreeJvmsServesAShortLoadWithoutFailures(@TempDir Path dir) throws Exception {
        ZkWorkload workload = ZkWorkload.globalPercent(10);
        try (ZooKeeperSystem zk = new ZooKeeperSystem(true).workload(workload)) {
            assertThat(zk.name()).isEqualTo("zookeeper-g10");
            zk.start(dir, Duration.ofSeconds(60));
            assertThat(zk.serverPids()).hasSize(3);
            assertThat(zk.settings()).containsEntry("zoo.cfg forceSync", "yes")
                    .containsEntry("zoo.cfg globalOutstandingLimit", "100000");
            assertThat(zk.settings().entrySet().stream().filter(e -> e.getKey().startsWith("mode ")).map(e -> e.getValue()))
                    .hasSize(3).containsOnlyOnce("leader");
            List<CommandInvoker> connections = List.of(zk.connect(8), zk.connect(8));

            ByteBuffer first = connections.get(1).invoke(ByteBuffer.wrap(new byte[32])).get(10, TimeUnit.SECONDS);
            ZkSessionOps.Kind firstKind = new ZkSessionOps(workload, 1).next().kind();
            if (firstKind == ZkSessionOps.Kind.SET_DATA) {
                assertThat(first.remaining()).isEqualTo(Integer.BYTES);
                assertThat(first.getInt(0)).as("data version after the znode's first setData").isEqualTo(1);
            } else {
                assertThat(firstKind).isEqualTo(ZkSessionOps.Kind.CREATE);
                assertThat(first.remaining()).as("a create's reply").isZero();
            }

            LoadSpec spec = new LoadSpec(2, 8, 32, 0, 100, Duration.ofMillis(300), Duration.ofSeconds(1));
            BenchResult r = new LoadGenerator(connections, spec).run(zk.name(), s -> { });
            assertThat(r.completed()).isPositive();
            assertThat(r.failed()).isZero();
            assertThat(((ZooKeeperInvoker) connections.get(0)).issued(ZkSessionOps.Kind.SET_DATA)).isPositive();
        }
    }

    @Test
    void eachServerGetsItsOwnIdDataLogDirAndTheWholeEnsemble(@TempDir Path dir) throws Exception {
        ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.onFreePorts(3, false);
        Path cfg = ensemble.writeServerFiles(dir, 2);
        assertThat(Files.readString(dir.resolve("data/myid"), StandardCharsets.US_ASCII)).isEqualTo("3");
        assertThat(dir.resolve("datalog")).isDirectory();
        List<String> lines = Files.readAllLines(cfg, StandardCharsets.US_ASCII);
        assertThat(lines).contains("forceSync=no", "clientPort=" + ensemble.clientPort(2), "admin.enableServer=false",
                        "dataLogDir=" + dir.resolve("datalog").toAbsolutePath())
                .filteredOn(l -> l.startsWith("server.")).hasSize(3);
    }
}
