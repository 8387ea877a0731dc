package dev.parallax.bench.load;

import dev.parallax.core.client.CommandInvoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SweepTest {

    @Test
    void sweepsTheLevelsOfThePlanOverTheSameConnectionsAndMeasuresCpu(@TempDir Path dir) throws Exception {
        try (InProcessKv kv = new InProcessKv()) {
            List<CommandInvoker> conns = List.of(kv.invoker(), kv.invoker());
            LoadSpec base = new LoadSpec(2, 1, 32, 0, 100, Duration.ZERO, Duration.ofSeconds(1));
            SweepPlan plan = new SweepPlan(1, 4, 16, 0.0, 3, 60_000_000);
            List<Integer> secondsOf = new ArrayList<>();
            List<SweepPoint> heard = new ArrayList<>();
            SweepResult s = new Sweep(conns, Map.of("load", ProcessHandle.current().pid())).run("in-process", base, plan,
                    new Sweep.Listener() {
                        @Override
                        public void second(int outstanding, BenchResult.Second second) {
                            secondsOf.add(outstanding);
                        }

                        @Override
                        public void point(SweepPoint point) {
                            heard.add(point);
                        }
                    });
            assertThat(s.points()).extracting(SweepPoint::outstanding).containsExactly(1, 4, 16);
            assertThat(s.points()).isEqualTo(heard);
            assertThat(secondsOf).containsExactly(1, 4, 16);
            assertThat(s.stopReason()).contains("largest level");
            assertThat(s.points()).allSatisfy(p -> {
                assertThat(p.result().failed()).isZero();
                assertThat(p.throughput()).isPositive();
                assertThat(p.result().spec().outstanding()).isEqualTo(p.outstanding());
                assertThat(p.result().cpuSeconds()).containsKey("load");
            });
            ResultWriter.write(s, Map.of("threads", "1"), dir, "sweep");
            assertThat(Files.readAllLines(dir.resolve("sweep.csv"))).hasSize(4).first().asString().startsWith("outstanding,");
            assertThat(Files.readString(dir.resolve("sweep.json"))).contains("\"stopReason\": ").contains("\"outstanding\": 16");
        }
    }

    @Test
    void eachLevelRecordsTheBytesTheProbeCountedDuringItsMeasuredPeriod() throws Exception {
        try (InProcessKv kv = new InProcessKv()) {
            List<CommandInvoker> conns = List.of(kv.invoker());
            LoadSpec base = new LoadSpec(1, 1, 32, 0, 100, Duration.ZERO, Duration.ofSeconds(1));
            SweepPlan plan = new SweepPlan(1, 2, 4, 0.0, 3, 60_000_000);
            long[] reads = {0};
            Sweep.Probe probe = new Sweep.Probe() {
                @Override
                public void started() {
                }

                @Override
                public String ended() {
                    return "";
                }

                /** A cumulative counter that grows by 1,000 (replica-0) and 10 (replica-1) per read; replica-2 unreadable. */
                @Override
                public Map<String, Double> bytesSent() {
                    reads[0]++;
                    return Map.of("replica-0", 1_000.0 * reads[0], "replica-1", 10.0 * reads[0], "replica-2", -1.0);
                }
            };
            SweepResult s = new Sweep(conns, Map.of("load", ProcessHandle.current().pid()), probe, Duration.ZERO)
                    .run("in-process", base, plan, new Sweep.Listener() {
                        @Override
                        public void second(int outstanding, BenchResult.Second second) {
                        }

                        @Override
                        public void point(SweepPoint point) {
                        }
                    });
            assertThat(s.points()).hasSize(3).allSatisfy(p -> assertThat(p.result().bytesSent())
                    .containsEntry("replica-0", 1_000.0).containsEntry("replica-1", 10.0).containsEntry("replica-2", -1.0));
            assertThat(reads[0]).isEqualTo(6);
            assertThat(ResultWriter.json(s, Map.of())).contains("\"bytesSent\": ");
        }
    }
}
