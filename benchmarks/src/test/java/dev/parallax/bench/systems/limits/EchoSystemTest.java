package dev.parallax.bench.systems.limits;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.core.client.CommandInvoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class EchoSystemTest {

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS) // server JVMs start cold: seconds each on a loaded machine
    void answersEveryCommandWithItsOwnBytesUnderLoad(@TempDir Path dir) throws Exception {
        try (EchoSystem echo = new EchoSystem()) {
            echo.start(dir, Duration.ofSeconds(45));
            assertThat(echo.serverPids()).containsOnlyKeys("server-0");
            List<CommandInvoker> conns = List.of(echo.connect(16), echo.connect(16));
            ByteBuffer reply = conns.get(0).invoke(ByteBuffer.wrap("hello, echo".getBytes(StandardCharsets.UTF_8)))
                    .get(15, TimeUnit.SECONDS);
            assertThat(StandardCharsets.UTF_8.decode(reply).toString()).isEqualTo("hello, echo");
            byte[] big = new byte[300_000];
            new Random(7).nextBytes(big);
            assertThat(conns.get(1).invoke(ByteBuffer.wrap(big)).get(15, TimeUnit.SECONDS)).isEqualTo(ByteBuffer.wrap(big));
            LoadSpec spec = new LoadSpec(2, 16, 32, 0, 100, Duration.ZERO, Duration.ofSeconds(1));
            BenchResult r = new LoadGenerator(conns, spec).run("echo", s -> { });
            assertThat(r.completed()).isPositive();
            assertThat(r.failed()).isZero();
            assertThat(echo.settings()).containsKeys("server.io.threads", "jvm");
        }
    }
}
