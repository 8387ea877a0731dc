package dev.parallax.bench.load;

import org.junit.jupiter.api.DisplayName;
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

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.1 ¶2: sender bytes per delivered byte = busiest replica's peer bytes over the mean delivered bytes; efficiency is its inverse")
    void trafficGivesTheBusiestSendersBytesPerDeliveredByte() {
        // A Multi-Paxos-like leader at n = 3: it sends each value to two followers.
        BenchResult.Traffic before = new BenchResult.Traffic(Map.of("replica-0", 100.0, "replica-1", 10.0, "replica-2", 10.0),
                Map.of("replica-0", 50.0, "replica-1", 50.0, "replica-2", 50.0));
        BenchResult.Traffic after = new BenchResult.Traffic(Map.of("replica-0", 2_100.0, "replica-1", 60.0, "replica-2", 60.0),
                Map.of("replica-0", 1_050.0, "replica-1", 1_050.0, "replica-2", 1_050.0));
        BenchResult.Traffic t = after.since(before);
        assertThat(t.peerBytesSent()).containsEntry("replica-0", 2_000.0).containsEntry("replica-1", 50.0);
        assertThat(t.busiestSender()).contains("replica-0");
        assertThat(t.senderBytesPerDeliveredByte().getAsDouble()).isCloseTo(2.0, within(1e-9));
        assertThat(t.efficiency().getAsDouble()).isCloseTo(0.5, within(1e-9));
        assertThat(result(100).withTraffic(t).traffic()).isEqualTo(t);
        assertThat(result(100).traffic()).isEqualTo(BenchResult.Traffic.NONE);
    }

    @Test
    @DisplayName("no efficiency when traffic was not counted, a replica could not be read, or nothing was delivered")
    void trafficWithoutFiguresGivesNoRatio() {
        assertThat(BenchResult.Traffic.NONE.senderBytesPerDeliveredByte()).isEmpty();
        BenchResult.Traffic unreadable = new BenchResult.Traffic(Map.of("replica-0", 10.0), Map.of("replica-0", 5.0))
                .since(new BenchResult.Traffic(Map.of("replica-0", -1.0), Map.of("replica-0", 0.0)));
        assertThat(unreadable.senderBytesPerDeliveredByte()).isEmpty();
        BenchResult.Traffic idle = new BenchResult.Traffic(Map.of("replica-0", 10.0), Map.of("replica-0", 0.0));
        assertThat(idle.senderBytesPerDeliveredByte()).isEmpty();
        assertThat(idle.efficiency()).isEmpty();
    }
}
