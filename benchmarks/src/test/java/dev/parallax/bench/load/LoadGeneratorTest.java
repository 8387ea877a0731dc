package dev.parallax.bench.load;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.kv.KvStateMachine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoadGeneratorTest {

    @Test
    void aShortRunAgainstAnInProcessStoreProducesATimelineAndPercentiles(@TempDir Path dir) throws Exception {
        KvStateMachine store = new KvStateMachine();
        ExecutorService exec = Executors.newSingleThreadExecutor();
        CommandInvoker invoker = cmd -> {
            ByteBuffer copy = ByteBuffer.allocate(cmd.remaining()).put(cmd.duplicate()).flip();
            return CompletableFuture.supplyAsync(() -> store.execute(copy), exec);
        };
        try {
            List<CommandInvoker> conns = new ArrayList<>(List.of(invoker, invoker));
            LoadSpec spec = new LoadSpec(2, 8, 32, 20, 100, Duration.ofMillis(200), Duration.ofSeconds(2));
            List<BenchResult.Second> seen = new ArrayList<>();
            BenchResult r = new LoadGenerator(conns, spec).run("in-process", seen::add);
            assertThat(r.completed()).isPositive();
            assertThat(r.failed()).isZero();
            assertThat(r.timeline()).hasSize(2).isEqualTo(seen);
            assertThat(r.percentilesUs()).containsKeys("p50", "p90", "p99", "p99.9", "max");
            assertThat(r.throughput()).isPositive();
            BenchResult withCpu = new BenchResult(r.system(), r.spec(), r.completed(), r.failed(), r.seconds(),
                    r.percentilesUs(), r.timeline(), Map.of("load", CpuSampler.cpuSeconds(ProcessHandle.current().pid())));
            assertThat(withCpu.cpuUsPerCommand()).isPositive();
            ResultWriter.write(withCpu, dir, "run");
            assertThat(Files.readString(dir.resolve("run.json"))).contains("\"system\": \"in-process\"").contains("\"timeline\": [{");
            assertThat(Files.readAllLines(dir.resolve("run.csv"))).hasSize(3).first().isEqualTo("second,completed,p99_us");
        } finally {
            exec.shutdownNow();
        }
    }

    @Test
    void cpuOfThisProcessIsReadableAndGrows() {
        double before = CpuSampler.cpuSeconds(ProcessHandle.current().pid());
        long x = 0;
        for (int i = 0; i < 200_000_000; i++) {
            x += i * 31L;
        }
        assertThat(x).isNotZero();
        assertThat(CpuSampler.cpuSeconds(ProcessHandle.current().pid())).isGreaterThan(before);
        assertThat(CpuSampler.cpuSeconds(-5)).isEqualTo(-1);
    }

    @Test
    void specsAreValidated() {
        assertThatThrownBy(() -> new LoadSpec(0, 1, 32, 0, 1, Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LoadSpec(1, 1, 32, 101, 1, Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
