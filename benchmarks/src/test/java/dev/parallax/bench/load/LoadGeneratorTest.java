package dev.parallax.bench.load;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoadGeneratorTest {

    @Test
    void aShortRunAgainstAnInProcessStoreProducesATimelineAndPercentiles(@TempDir Path dir) throws Exception {
        try (InProcessKv kv = new InProcessKv()) {
            List<CommandInvoker> conns = new ArrayList<>(List.of(kv.invoker(), kv.invoker()));
            LoadSpec spec = new LoadSpec(2, 8, 32, 20, 100, Duration.ofMillis(200), Duration.ofSeconds(2));
            List<BenchResult.Second> seen = new ArrayList<>();
            BenchResult r = new LoadGenerator(conns, spec).run("in-process", seen::add);
            assertThat(r.completed()).isPositive();
            assertThat(r.failed()).isZero();
            assertThat(r.timeline()).hasSize(2).isEqualTo(seen);
            assertThat(r.percentilesUs()).containsKeys("p50", "p90", "p99", "p99.9", "max");
            assertThat(r.throughput()).isPositive();
            BenchResult withCpu = r.withCpuSeconds(Map.of("load", CpuSampler.cpuSeconds(ProcessHandle.current().pid())));
            assertThat(withCpu.cpuUsPerCommand()).isPositive();
            ResultWriter.write(withCpu, Map.of("log.sync", "none"), dir, "run");
            assertThat(Files.readString(dir.resolve("run.json"))).contains("\"system\": \"in-process\"")
                    .contains("\"settings\": {\"log.sync\": \"none\"}").contains("\"timeline\": [{");
            assertThat(Files.readAllLines(dir.resolve("run.csv"))).hasSize(3).first().isEqualTo("second,completed,p99_us");
        }
    }

    @Test
    void anInvokerAnsweringOnTheCallingThreadIsLoopedNotRecursedAndCyclesThePool() throws Exception {
        LoadSpec spec = new LoadSpec(1, 2, 32, 0, 50, Duration.ZERO, Duration.ofSeconds(1));
        Set<ByteBuffer> distinct = new HashSet<>();
        Set<Integer> sizes = new HashSet<>();
        AtomicLong calls = new AtomicLong();
        CommandInvoker sync = cmd -> {
            if (calls.incrementAndGet() <= 4 * CommandPool.DEFAULT_SIZE) {
                distinct.add(ByteBuffer.allocate(cmd.remaining()).put(cmd.duplicate()).flip());
                sizes.add(cmd.remaining());
            }
            return CompletableFuture.completedFuture(ByteBuffer.allocate(0));
        };
        BenchResult r = new LoadGenerator(List.of(sync), spec).run("sync", s -> { });
        assertThat(r.failed()).isZero();
        assertThat(r.completed()).isGreaterThan(10L * CommandPool.DEFAULT_SIZE);
        assertThat(distinct).hasSize(CommandPool.DEFAULT_SIZE);
        assertThat(sizes).containsExactly(32);
    }

    @Test
    void failuresAreCountedAndTheLoadGoesOn() throws Exception {
        LoadSpec spec = new LoadSpec(1, 4, 32, 0, 10, Duration.ZERO, Duration.ofSeconds(1));
        CommandInvoker failing = cmd -> CompletableFuture.failedFuture(new IllegalStateException("closed"));
        BenchResult r = new LoadGenerator(List.of(failing), spec).run("failing", s -> { });
        assertThat(r.completed()).isZero();
        assertThat(r.failed()).isPositive();
    }

    @Test
    void aGeneratorRunsOnce() throws Exception {
        LoadSpec spec = new LoadSpec(1, 1, 32, 0, 10, Duration.ZERO, Duration.ofSeconds(1));
        CommandInvoker ok = cmd -> CompletableFuture.completedFuture(ByteBuffer.allocate(0));
        LoadGenerator g = new LoadGenerator(List.of(ok), spec);
        g.run("once", s -> { });
        assertThatThrownBy(() -> g.run("twice", s -> { })).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void poolsHoldTheReadShareExactlyAndCommandsOfTheLoadSize() {
        LoadSpec spec = new LoadSpec(1, 1, 48, 25, 100, Duration.ZERO, Duration.ofSeconds(1));
        CommandPool pool = CommandPool.generate(3, spec, 1024, 42);
        ByteBuffer view = pool.view();
        int gets = 0;
        for (int i = 0; i < pool.size(); i++) {
            KvCommand c = KvCommand.decode(pool.select(i, view));
            assertThat(new String(c.arg(0), StandardCharsets.UTF_8)).startsWith("3:");
            if (c.op() == KvOp.GET) {
                gets++;
            } else {
                assertThat(c.op()).isEqualTo(KvOp.SET);
                assertThat(view.remaining()).isEqualTo(48);
            }
        }
        assertThat(gets).isEqualTo(256);
        assertThat(CommandPool.generate(3, spec, 1024, 42).select(7, CommandPool.generate(3, spec, 1024, 42).view()))
                .isEqualTo(pool.select(7, pool.view()));
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
        assertThat(new LoadSpec(2, 1, 32, 0, 1, Duration.ZERO, Duration.ofSeconds(1)).withOutstanding(64).outstanding())
                .isEqualTo(64);
    }
}
