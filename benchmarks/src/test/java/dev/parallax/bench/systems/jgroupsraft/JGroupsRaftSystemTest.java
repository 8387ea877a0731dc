package dev.parallax.bench.systems.jgroupsraft;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.core.client.CommandInvoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class JGroupsRaftSystemTest {

    /**
     * Stress profile only (CI budget): {@code ./parallax bench --compare} starts this cluster
     * whenever it runs; {@code ParallaxSystemTest} runs the same load generator against Parallax's
     * own cluster in the default run.
     */
    @dev.parallax.core.testkit.StressOnly
    @Test
    void threeMemberJvmsServeAShortLoadThroughTheLeadersFrontEndWithoutFailures(@TempDir Path dir) throws Exception {
        try (JGroupsRaftSystem raft = new JGroupsRaftSystem(false)) {
            raft.start(dir, Duration.ofSeconds(60));
            assertThat(raft.serverPids()).hasSize(3);
            assertThat(raft.leader()).isIn("A", "B", "C");
            assertThat(raft.settings()).containsEntry("RAFT.log_use_fsync", "false (default)");
            List<CommandInvoker> connections = List.of(raft.connect(8), raft.connect(8));

            ByteBuffer first = connections.get(0).invoke(ByteBuffer.wrap(new byte[32])).get(10, TimeUnit.SECONDS);
            assertThat(first.remaining()).isEqualTo(Long.BYTES);
            assertThat(first.getLong(first.position())).as("counter after the first command").isEqualTo(1);

            LoadSpec spec = new LoadSpec(2, 8, 32, 0, 100, Duration.ofMillis(300), Duration.ofSeconds(1));
            BenchResult r = new LoadGenerator(connections, spec).run(raft.name(), s -> { });
            assertThat(r.completed()).isPositive();
            assertThat(r.failed()).isZero();
        }
    }
}
