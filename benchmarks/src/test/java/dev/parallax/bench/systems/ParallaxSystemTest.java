package dev.parallax.bench.systems;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.stage.ThreadPlacement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Smoke test: three replica JVMs under a short load, and the leader report around the measured period. */
class ParallaxSystemTest {

    @Test
    void runsALoadAndReportsWhereTheLeadersTimeWent(@TempDir Path dir) throws Exception {
        try (ParallaxSystem sut = new ParallaxSystem("none")) {
            sut.start(dir, Duration.ofSeconds(60));
            assertThat(sut.serverPids()).containsOnlyKeys("replica-0", "replica-1", "replica-2");
            List<CommandInvoker> conns = List.of(sut.connect(16), sut.connect(16), sut.connect(16));
            // Spread: connection k starts at replica k (Multi-Paxos then redirects each to the leader once).
            for (int k = 0; k < 3; k++) {
                assertThat(((SmrClient) conns.get(k)).currentReplica()).isEqualTo(k);
            }
            // A measured second: the bytes and the leader report below need a measured period, not a long one.
            LoadSpec spec = new LoadSpec(3, 16, 32, 0, 100, Duration.ofSeconds(1), Duration.ofSeconds(1));
            String[] report = {""};
            List<Map<String, Double>> bytes = new java.util.ArrayList<>();
            BenchResult r = new LoadGenerator(conns, spec).run(sut.name(), s -> { }, () -> {
                sut.measurementStarted();
                bytes.add(sut.bytesSent());
            }, () -> {
                bytes.add(sut.bytesSent());
                report[0] = sut.measurementEnded();
            });
            assertThat(r.completed()).isPositive();
            assertThat(r.failed()).isZero();
            // Every replica sent bytes to its peers during the period (Accepts go to every replica),
            // and the leader also answered the clients.
            assertThat(bytes.get(0)).containsOnlyKeys("replica-0", "replica-1", "replica-2");
            for (String replica : bytes.get(0).keySet()) {
                assertThat(bytes.get(0).get(replica)).as(replica).isNotNegative();
                assertThat(bytes.get(1).get(replica)).as(replica).isGreaterThan(bytes.get(0).get(replica));
            }
            assertThat(report[0]).containsPattern("replica \\d \\(leader\\) threads");
            assertThat(report[0]).contains("stages: busy ratio").contains("paxos-protocol")
                    .contains("replica 0").contains("replica 2").contains("commands_executed_total=");
            assertThat(sut.settings()).containsEntry("log.sync", "none").containsEntry("paxos.eager.below", "1");
        }
    }

    @Test
    void theRuntimeSettingsAreRecordedWithTheResultsAndOnlyRuntimeKeysAreTaken() {
        ParallaxSystem plain = new ParallaxSystem("memory");
        int cores = Runtime.getRuntime().availableProcessors();
        assertThat(plain.settings()).containsEntry("ordering", "multi-paxos").containsEntry("execution", "sequential")
                .containsEntry("threads", "auto (" + ThreadPlacement.AUTO.resolve(cores).configName() + " with " + cores + " cores)");
        ParallaxSystem chosen = new ParallaxSystem("memory").runtime(Map.of("execution", "early-busy-wait", "threads", "staged"));
        assertThat(chosen.settings()).containsEntry("execution", "early-busy-wait, 2 workers").containsEntry("threads", "staged");
        assertThatThrownBy(() -> new ParallaxSystem("none").runtime(Map.of("paxos.window", "3")))
                .hasMessageContaining("not a runtime setting: paxos.window");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("an M-Ring cluster's file names a cluster secret of its own: M-Ring's datagrams are "
            + "authenticated (mring.auth=hmac), and a replica without a secret refuses to start (a regression: the "
            + "parallax-mring-* systems did not start once the datagrams were authenticated)")
    void anMRingClusterHasASecret(@TempDir Path dir) throws Exception {
        ParallaxSystem mring = (ParallaxSystem) Systems.create("parallax-mring-none");
        try (ReplicaCluster cluster = new ReplicaCluster(mring.spec(), dir, java.util.List.of())) {
            String file = java.nio.file.Files.readString(cluster.configFile());
            java.util.regex.Matcher secret = java.util.regex.Pattern.compile("(?m)^cluster\\.secret=(.+)$").matcher(file);
            assertThat(secret.find()).as("cluster.secret in %s", file).isTrue();
            assertThat(java.nio.file.Files.size(Path.of(secret.group(1).strip()))).isPositive();
            assertThat(file).doesNotContain("mring.auth");
        }
    }

    @Test
    void unknownSyncPoliciesAndSystemsAreRejectedWithTheChoices() {
        assertThatThrownBy(() -> new ParallaxSystem("sometimes")).hasMessageContaining("none, every-batch or memory");
        assertThatThrownBy(() -> Systems.create("raft-of-theseus")).hasMessageContaining("parallax-none")
                .hasMessageContaining("forwarder");
    }
}
