package dev.parallax.bench.report;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.InProcessKv;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.bench.load.Sweep;
import dev.parallax.bench.load.SweepPlan;
import dev.parallax.bench.load.SweepPoint;
import dev.parallax.bench.load.SweepResult;
import dev.parallax.core.client.CommandInvoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ChartsTest {
    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    private static void assertPng(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        assertThat(bytes.length).isGreaterThan(1000);
        assertThat(Arrays.copyOf(bytes, PNG_MAGIC.length)).isEqualTo(PNG_MAGIC);
    }

    @Test
    void timelineLatencyCurveAndComparisonChartsAreWrittenAsPngWithoutADisplay(@TempDir Path dir) throws Exception {
        try (InProcessKv kv = new InProcessKv()) {
            List<CommandInvoker> conns = List.of(kv.invoker());
            LoadSpec spec = new LoadSpec(1, 4, 32, 10, 100, Duration.ZERO, Duration.ofSeconds(2));
            BenchResult run = new LoadGenerator(conns, spec).run("in-process", s -> { });
            Charts.timeline(run, dir.resolve("run-timeline.png"));

            Sweep.Listener quiet = new Sweep.Listener() {
                @Override
                public void second(int outstanding, BenchResult.Second second) {
                }

                @Override
                public void point(SweepPoint point) {
                }
            };
            SweepPlan plan = new SweepPlan(1, 4, 4, 0.0, 2, 60_000_000);
            LoadSpec base = new LoadSpec(1, 1, 32, 0, 100, Duration.ZERO, Duration.ofSeconds(1));
            SweepResult a = new Sweep(conns, Map.of()).run("in-process-a", base, plan, quiet);
            SweepResult b = new Sweep(conns, Map.of()).run("in-process-b", base, plan, quiet);
            Charts.latencyCurve(a, dir.resolve("charts/a-latency.png"));
            Charts.comparison("two in-process stores", List.of(a, b), dir, "compare");
            Files.writeString(dir.resolve("a.csv"), dev.parallax.bench.load.ResultWriter.csv(a));
            Files.writeString(dir.resolve("b.json"), dev.parallax.bench.load.ResultWriter.json(b, Map.of()));
            SweepCurve readA = SweepCurve.read("a", dir.resolve("a.csv"));
            SweepCurve readB = SweepCurve.read("b", dir.resolve("b.json"));
            assertThat(readA.throughput()).hasSize(a.points().size());
            assertThat(readA.p99Ms()[0]).isEqualTo(Math.max(0.001, a.points().get(0).p99Us() / 1e3));
            assertThat(readB.p50Ms()).hasSize(b.points().size());
            Charts.comparisonCurves("read back", List.of(readA, readB), dir, "redrawn");
        }
        assertThat(System.getProperty("java.awt.headless")).isEqualTo("true");
        assertPng(dir.resolve("run-timeline.png"));
        assertPng(dir.resolve("charts/a-latency.png"));
        assertPng(dir.resolve("compare-p50.png"));
        assertPng(dir.resolve("compare-p99.png"));
        assertPng(dir.resolve("redrawn-p50.png"));
        assertPng(dir.resolve("redrawn-p99.png"));
    }
}
