package dev.parallax.bench.systems.ratis;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.core.client.CommandInvoker;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class RatisSystemTest {
    /** Small server heaps: three JVMs with the comparison's pre-touched 2 GiB heaps start slowly on two shared cores. */
    private static final List<String> SMALL_JVMS = List.of("-Xmx256m", "-XX:+UseSerialGC");

    /**
     * Stress profile only (CI budget): the default run checks this system's settings and files
     * without starting it; {@code ParallaxSystemTest} runs the same load generator against
     * Parallax's own cluster. {@code ./parallax bench --compare} starts this cluster whenever it runs.
     */
    @dev.parallax.core.testkit.StressOnly
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aThreePeerGroupServesAShortClosedLoopLoad(@TempDir Path dir) throws Exception {
        try (RatisSystem ratis = new RatisSystem(false, SMALL_JVMS)) {
            ratis.start(dir, Duration.ofSeconds(60));
            assertThat(ratis.serverPids()).containsOnlyKeys("server-0", "server-1", "server-2");
            List<CommandInvoker> connections = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                connections.add(ratis.connect(8));
            }
            ByteBuffer reply = connections.get(0).invoke(ByteBuffer.wrap(new byte[32])).get(10, TimeUnit.SECONDS);
            assertThat(reply.remaining()).isEqualTo(Long.BYTES);
            assertThat(reply.getLong()).isPositive();

            LoadSpec spec = new LoadSpec(2, 8, 32, 0, 100, Duration.ofMillis(200), Duration.ofSeconds(1));
            BenchResult result = new LoadGenerator(connections, spec).run(ratis.name(), s -> { });
            assertThat(result.completed()).isPositive();
            assertThat(result.failed()).isZero();
        }
    }

    @Test
    void theTwoEntriesDifferOnlyInWhetherAppendsWaitForTheFsync() {
        RatisSystem durable = new RatisSystem(true);
        RatisSystem nosync = new RatisSystem(false);
        assertThat(durable.name()).isEqualTo("ratis");
        assertThat(nosync.name()).isEqualTo("ratis-nosync");
        assertThat(durable.settings()).containsEntry(RaftServerConfigKeys.Log.UNSAFE_FLUSH_ENABLED_KEY, "false")
                .containsEntry("raft.rpc.type", "GRPC").containsKey("jvm");
        assertThat(nosync.settings()).containsEntry(RaftServerConfigKeys.Log.UNSAFE_FLUSH_ENABLED_KEY, "true");
        List<String> differing = durable.settings().keySet().stream()
                .filter(k -> !durable.settings().get(k).equals(nosync.settings().get(k))).toList();
        assertThat(differing).containsExactly(RaftServerConfigKeys.Log.UNSAFE_FLUSH_ENABLED_KEY);
    }
}
