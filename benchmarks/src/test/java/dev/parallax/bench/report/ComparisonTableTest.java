package dev.parallax.bench.report;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.bench.load.SweepPoint;
import dev.parallax.bench.load.SweepResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class ComparisonTableTest {
    private static final LoadSpec BASE = new LoadSpec(4, 1, 32, 0, 100, Duration.ZERO, Duration.ofSeconds(2));

    /** A sweep of {@code system} with levels 1, 4, 16, ...: pairs of (throughput, p99 µs); 1 CPU-µs per command at each. */
    private static SweepResult sweep(String system, double... throughputAndP99) {
        List<SweepPoint> points = new ArrayList<>();
        int w = 1;
        for (int i = 0; i < throughputAndP99.length; i += 2) {
            long completed = Math.round(throughputAndP99[i] * 2);
            long p99 = (long) throughputAndP99[i + 1];
            BenchResult r = new BenchResult(system, BASE.withOutstanding(w), completed, 0, 2.0,
                    Map.of("p50", p99 / 4, "p99", p99), List.of(), Map.of("server-0", completed / 2e6, "load", completed / 2e6));
            points.add(new SweepPoint(w, r));
            w *= 4;
        }
        return new SweepResult(system, BASE, points, "done");
    }

    private static List<SystemOutcome> outcomes() {
        return List.of(
                SystemOutcome.of(sweep("parallax-none", 10_000, 1_000, 50_000, 4_000, 80_000, 9_000)),
                SystemOutcome.of(sweep("parallax-memory", 20_000, 800, 100_000, 3_000, 120_000, 20_000)),
                SystemOutcome.of(sweep("echo", 40_000, 200, 300_000, 2_000, 400_000, 6_000)),
                SystemOutcome.of(sweep("forwarder", 30_000, 300, 200_000, 4_500, 240_000, 12_000)),
                SystemOutcome.failed("ratis", "server-1 exited with 1"));
    }

    @Test
    void parallaxIsTheParallaxSystemWithTheBestThroughput() {
        ComparisonTable t = ComparisonTable.of(32, outcomes(), 5_000);
        assertThat(t.parallax()).hasValue("parallax-memory");
        assertThat(t.rows()).extracting(ComparisonTable.Row::system)
                .containsExactly("parallax-none", "parallax-memory", "echo", "forwarder", "ratis");
    }

    @Test
    void bestThroughputItsLatenciesAndCpuPerCommand() {
        ComparisonTable.Row echo = ComparisonTable.of(32, outcomes(), 5_000).row("echo").orElseThrow();
        assertThat(echo.bestThroughput()).isEqualTo(400_000);
        assertThat(echo.bestOutstanding()).isEqualTo(16);
        assertThat(echo.bestP99Us()).isEqualTo(6_000);
        assertThat(echo.bestP50Us()).isEqualTo(1_500);
        assertThat(echo.cpuUsPerCommand()).isCloseTo(1.0, within(1e-9));
        assertThat(echo.atTarget()).hasValue(300_000);
    }

    @Test
    void ratiosAreParallaxOverEachSystemAtBestAndAtTheLatencyTarget() {
        ComparisonTable t = ComparisonTable.of(32, outcomes(), 5_000);
        ComparisonTable.Row echo = t.row("echo").orElseThrow();
        assertThat(echo.ratioBest().getAsDouble()).isCloseTo(120_000 / 400_000.0, within(1e-9));
        assertThat(echo.ratioAtTarget().getAsDouble()).isCloseTo(100_000 / 300_000.0, within(1e-9));
        ComparisonTable.Row forwarder = t.row("forwarder").orElseThrow();
        assertThat(forwarder.ratioBest().getAsDouble()).isCloseTo(0.5, within(1e-9));
        assertThat(forwarder.ratioAtTarget().getAsDouble()).isCloseTo(0.5, within(1e-9));
        assertThat(t.row("parallax-memory").orElseThrow().ratioBest().getAsDouble()).isCloseTo(1.0, within(1e-9));
        assertThat(t.row("parallax-none").orElseThrow().ratioAtTarget().getAsDouble()).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void aSystemThatNeverMetTheTargetHasNoEqualLatencyFigures() {
        ComparisonTable t = ComparisonTable.of(32, outcomes(), 700);
        assertThat(t.row("echo").orElseThrow().atTarget()).hasValue(40_000);
        assertThat(t.row("parallax-memory").orElseThrow().atTarget()).isEmpty();
        assertThat(t.row("echo").orElseThrow().ratioAtTarget()).isEmpty();
    }

    @Test
    void failedSystemsAndTablesWithoutParallax() {
        ComparisonTable t = ComparisonTable.of(128, outcomes(), 5_000);
        ComparisonTable.Row ratis = t.row("ratis").orElseThrow();
        assertThat(ratis.failed()).isTrue();
        assertThat(ratis.ratioBest()).isEmpty();
        ComparisonTable none = ComparisonTable.of(128, List.of(SystemOutcome.of(sweep("echo", 1_000, 100))), 5_000);
        assertThat(none.parallax()).isEmpty();
        assertThat(none.row("echo").orElseThrow().ratioBest()).isEmpty();
        assertThat(ComparisonMarkdown.section(none)).contains("No parallax-* system was swept");
        assertThatThrownBy(() -> new SystemOutcome("x", null, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void markdownNamesTheParallaxSystemAndItsRatiosToTheLimits() {
        String md = ComparisonMarkdown.document("Comparison", List.of("4 connections"),
                List.of(ComparisonTable.of(32, outcomes(), 5_000)));
        assertThat(md).startsWith("# Comparison\n\n4 connections")
                .contains("## 32 B commands")
                .contains("| echo | 400,000 | 16 | 1.50 | 6.00 | 300,000 | 1.0 | 0.30x | 0.33x |")
                .contains("| ratis | failed: server-1 exited with 1 |")
                .contains("Parallax = parallax-memory")
                .contains("- Parallax/echo: 0.30x at best throughput, 0.33x at p99 <= 5.00 ms")
                .contains("- Parallax/forwarder: 0.50x at best throughput, 0.50x at p99 <= 5.00 ms");
    }

    /** One level of three replicas: the leader spends {@code leaderCpu} s and sends {@code leaderBytes}, each follower half. */
    private static SystemOutcome replicated(String system, double leaderCpu, double followerCpu, double leaderBytes,
                                            double followerBytes) {
        BenchResult r = new BenchResult(system, BASE.withOutstanding(1), 1_000_000, 0, 2.0, Map.of("p50", 100L, "p99", 400L),
                List.of(), Map.of("replica-0", leaderCpu, "replica-1", followerCpu, "replica-2", followerCpu, "load", 9.0))
                .withBytesSent(Map.of("replica-0", leaderBytes, "replica-1", followerBytes, "replica-2", followerBytes));
        return SystemOutcome.of(new SweepResult(system, BASE, List.of(new SweepPoint(1, r)), "done"));
    }

    @Test
    void balanceColumnsGiveEachServerProcessesCpuAndBytesPerCommandAndTheirMaxOverMin() {
        ComparisonTable t = ComparisonTable.of(32, List.of(
                replicated("parallax-none", 4.0, 2.0, 400e6, 200e6),
                replicated("parallax-spaxos-none", 3.0, 2.5, 300e6, 280e6)), 5_000);
        ComparisonTable.Row paxos = t.row("parallax-none").orElseThrow();
        assertThat(paxos.serverCpuUsPerCommand()).containsOnlyKeys("replica-0", "replica-1", "replica-2");
        assertThat(paxos.serverCpuUsPerCommand().get("replica-0")).isCloseTo(4.0, within(1e-9));
        assertThat(paxos.bytesPerCommand().get("replica-1")).isCloseTo(200.0, within(1e-9));
        assertThat(paxos.cpuMaxOverMin().getAsDouble()).isCloseTo(2.0, within(1e-9));
        assertThat(paxos.bytesMaxOverMin().getAsDouble()).isCloseTo(2.0, within(1e-9));
        ComparisonTable.Row spaxos = t.row("parallax-spaxos-none").orElseThrow();
        assertThat(spaxos.cpuMaxOverMin().getAsDouble()).isCloseTo(1.2, within(1e-9));
        assertThat(spaxos.bytesMaxOverMin().getAsDouble()).isCloseTo(300 / 280.0, within(1e-9));
        // CPU of the load JVM is in the total, not in the per-server figures.
        assertThat(spaxos.cpuUsPerCommand()).isCloseTo(3.0 + 2.5 + 2.5 + 9.0, within(1e-9));

        String md = ComparisonMarkdown.section(t);
        assertThat(md).contains("| system | CPU us/cmd per process | CPU max/min | bytes sent/cmd per process | bytes max/min |")
                .contains("| parallax-none | replica-0 4.0, replica-1 2.0, replica-2 2.0 | 2.00x | replica-0 400, replica-1 200, "
                        + "replica-2 200 | 2.00x |")
                .contains("| parallax-spaxos-none | replica-0 3.0, replica-1 2.5, replica-2 2.5 | 1.20x |");
    }

    @Test
    void aSystemWithOneServerProcessOrNoByteCountsHasNoBalanceFigures() {
        ComparisonTable t = ComparisonTable.of(32, outcomes(), 5_000);
        ComparisonTable.Row echo = t.row("echo").orElseThrow();
        assertThat(echo.serverCpuUsPerCommand()).containsOnlyKeys("server-0");
        assertThat(echo.cpuMaxOverMin()).isEmpty();
        assertThat(echo.bytesPerCommand()).isEmpty();
        assertThat(echo.bytesMaxOverMin()).isEmpty();
        assertThat(ComparisonMarkdown.section(t)).doesNotContain("CPU max/min");
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.1 ¶2, Table 3.2: the efficiency table gives each counting system's busiest sender, "
            + "its bytes per delivered byte and the inverse")
    void efficiencyTableListsSystemsThatCountTraffic() {
        BenchResult.Traffic leader = new BenchResult.Traffic(Map.of("replica-0", 4_000.0, "replica-1", 100.0, "replica-2", 100.0,
                "replica-3", 100.0, "replica-4", 100.0), Map.of("replica-0", 1_000.0, "replica-1", 1_000.0, "replica-2", 1_000.0,
                "replica-3", 1_000.0, "replica-4", 1_000.0));
        BenchResult.Traffic ring = new BenchResult.Traffic(Map.of("replica-0", 1_100.0, "replica-1", 50.0, "replica-2", 50.0,
                "replica-3", 50.0, "replica-4", 50.0), leader.deliveredBytes());
        BenchResult paxos = new BenchResult("parallax-n5-none", BASE.withOutstanding(1), 1_000, 0, 1.0, Map.of("p50", 100L,
                "p99", 400L), List.of(), Map.of()).withTraffic(leader);
        BenchResult mring = new BenchResult("parallax-mring-n5-none", BASE.withOutstanding(1), 1_000, 0, 1.0, Map.of("p50", 100L,
                "p99", 400L), List.of(), Map.of()).withTraffic(ring);
        ComparisonTable t = ComparisonTable.of(32, List.of(
                SystemOutcome.of(new SweepResult("parallax-n5-none", BASE, List.of(new SweepPoint(1, paxos)), "done")),
                SystemOutcome.of(new SweepResult("parallax-mring-n5-none", BASE, List.of(new SweepPoint(1, mring)), "done")),
                replicated("ratis", 1.0, 1.0, 1.0, 1.0)), 5_000);
        assertThat(t.row("parallax-n5-none").orElseThrow().traffic()).isEqualTo(leader);
        String md = ComparisonMarkdown.section(t);
        assertThat(md).contains("| system | replicas | busiest sender | sender B per delivered B | efficiency |")
                .contains("| parallax-n5-none | 5 | replica-0 | 4.00 | 25% |")
                .contains("| parallax-mring-n5-none | 5 | replica-0 | 1.10 | 91% |")
                .doesNotContain("| ratis | 3 |");
    }
}
