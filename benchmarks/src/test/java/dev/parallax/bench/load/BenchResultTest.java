package dev.parallax.bench.load;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** {@link BenchResult}'s per-process figures: CPU and bytes per command of each server, and their balance. */
class BenchResultTest {
    private static final LoadSpec SPEC = new LoadSpec(6, 4, 32, 0, 100, Duration.ZERO, Duration.ofSeconds(1));

    private static BenchResult result(long completed) {
        return new BenchResult("parallax-none", SPEC, completed, 0, 1.0, Map.of("p50", 1L), List.of(),
                Map.of("replica-0", 0.5, "replica-1", 0.25, "replica-2", -1.0, "load", 1.0))
                .withBytesSent(Map.of("replica-0", 2_000_000.0, "replica-1", 1_000_000.0));
    }

    @Test
    void serverCpuPerCommandLeavesOutTheLoadJvmAndUnreadableProcesses() {
        Map<String, Double> cpu = result(100_000).serverCpuUsPerCommand();
        assertThat(cpu).containsOnlyKeys("replica-0", "replica-1");
        assertThat(cpu.get("replica-0")).isCloseTo(5.0, within(1e-9));
        assertThat(cpu.get("replica-1")).isCloseTo(2.5, within(1e-9));
        assertThat(result(100_000).cpuUsPerCommand()).isCloseTo(17.5, within(1e-9));
    }

    @Test
    void bytesPerCommandDividesEachServersBytesByTheAnsweredCommands() {
        Map<String, Double> bytes = result(100_000).bytesPerCommand();
        assertThat(bytes.get("replica-0")).isCloseTo(20.0, within(1e-9));
        assertThat(bytes.get("replica-1")).isCloseTo(10.0, within(1e-9));
        assertThat(BenchResult.maxOverMin(bytes).getAsDouble()).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void nothingAnsweredOrFewerThanTwoProcessesGivesNoFigures() {
        assertThat(result(0).serverCpuUsPerCommand()).isEmpty();
        assertThat(result(0).bytesPerCommand()).isEmpty();
        assertThat(BenchResult.maxOverMin(Map.of("replica-0", 3.0))).isEmpty();
        assertThat(BenchResult.maxOverMin(Map.of("replica-0", 3.0, "replica-1", 0.0))).isEmpty();
    }

    @Test
    void withCpuSecondsKeepsTheByteCounts() {
        BenchResult r = result(10).withCpuSeconds(Map.of("replica-0", 1.0));
        assertThat(r.bytesSent()).containsEntry("replica-0", 2_000_000.0);
    }
}
