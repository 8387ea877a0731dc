package dev.parallax.bench.systems.limits;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.core.client.CommandInvoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class ForwarderSystemTest {

    /**
     * Stress profile only (CI budget): the forwarder is a measuring baseline of
     * {@code ./parallax bench --compare}, which starts it whenever it runs; {@code ParallaxSystemTest}
     * runs the same load generator against Parallax's own cluster in the default run.
     */
    @dev.parallax.core.testkit.StressOnly
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS) // server JVMs start cold: seconds each on a loaded machine
    void answersEveryCommandOnceAFollowerAcknowledgedItsBatch(@TempDir Path dir) throws Exception {
        try (ForwarderSystem forwarder = new ForwarderSystem()) {
            forwarder.start(dir, Duration.ofSeconds(45));
            assertThat(forwarder.serverPids()).containsOnlyKeys("follower-1", "follower-2", "leader");
            List<CommandInvoker> conns = List.of(forwarder.connect(16), forwarder.connect(16));
            ByteBuffer big = ByteBuffer.allocate(200_000);
            CompletableFuture<ByteBuffer> first = conns.get(0).invoke(ByteBuffer.allocate(32));
            CompletableFuture<ByteBuffer> second = conns.get(0).invoke(big);
            assertThat(first.get(15, TimeUnit.SECONDS).remaining()).isEqualTo(8);
            assertThat(second.get(15, TimeUnit.SECONDS).remaining()).isEqualTo(8);
            LoadSpec spec = new LoadSpec(2, 16, 128, 0, 100, Duration.ZERO, Duration.ofSeconds(1));
            BenchResult r = new LoadGenerator(conns, spec).run("forwarder", s -> { });
            assertThat(r.completed()).isPositive();
            assertThat(r.failed()).isZero();
            assertThat(forwarder.settings()).containsKeys("leader.io.threads", "reply");
        }
    }
}
