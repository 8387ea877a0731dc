package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.testkit.executor.ResultRecorder;
import dev.parallax.core.testkit.executor.ShardedTestMachine;
import dev.parallax.scheduler.classmap.ShardedClasses;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Worker threads, back-pressure and classification errors, for every parallel executor of this
 * module; the executor-independent lifecycle and error rules are in the testkit's
 * {@link dev.parallax.core.testkit.executor.ExecutorContract} (see {@link ExecutorKindContract}).
 */
class ExecutorLifecycleTest {
    private static final ShardedClasses CLASSES = new ShardedClasses(2);

    private static Executor create(ExecutorKind kind, int capacity) {
        return kind.create(CLASSES.classMap(), ShardedTestMachineMaps.shardedClassifier(CLASSES), capacity);
    }

    private static Command command(long seq, byte op, int shard, int value) {
        return ShardedTestMachine.command(2, seq, op, shard, value, 0, false);
    }

    private static Set<Thread> liveWorkers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("parallax-") && t.isAlive())
                .collect(Collectors.toSet());
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void startsOneNamedWorkerPerThreadOfTheMap(ExecutorKind kind) throws Exception {
        Set<Thread> before = liveWorkers();
        Executor ex = create(kind, 64);
        ex.start(new ShardedTestMachine(2), new ResultRecorder());
        assertThat(liveWorkers()).hasSize(before.size() + CLASSES.classMap().threadCount());
        ex.close();
        assertThat(liveWorkers()).isEqualTo(before);
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void executeBlocksWhileTheQueueIsFullAndAnInterruptLeavesTheCommandUntaken(ExecutorKind kind) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ShardedTestMachine machine = new ShardedTestMachine(1, (op, shard, value) -> {
            if (value == 99) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        ResultRecorder results = new ResultRecorder();
        ShardedClasses one = new ShardedClasses(1);
        // The dependency graph also holds the executing command; a worker's queue does not.
        int capacity = kind == ExecutorKind.LATE || kind == ExecutorKind.LATE_GENERIC ? 2 : 1;
        try (Executor ex = kind.create(one.classMap(1), ShardedTestMachineMaps.shardedClassifier(one), capacity)) {
            ex.start(machine, results);
            Command blocker = ShardedTestMachine.command(1, 1, ShardedTestMachine.LOCAL_WRITE, 0, 99, 0, false);
            Command queued = ShardedTestMachine.command(1, 2, ShardedTestMachine.LOCAL_WRITE, 0, 2, 0, false);
            Command refused = ShardedTestMachine.command(1, 3, ShardedTestMachine.LOCAL_WRITE, 0, 3, 0, false);
            ex.execute(blocker);
            entered.await();
            ex.execute(queued);
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> ex.execute(refused)).isInstanceOf(InterruptedException.class);
            release.countDown();
            ex.awaitQuiescence();
            assertThat(results.results()).containsOnlyKeys(blocker.id(), queued.id());
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void anUnclassifiableCommandGetsAnErrorResultAndExecutionGoesOn(ExecutorKind kind) throws Exception {
        ResultRecorder results = new ResultRecorder();
        ShardedTestMachine machine = new ShardedTestMachine(2);
        try (Executor ex = create(kind, 8)) {
            ex.start(machine, results);
            Command before = command(1, ShardedTestMachine.LOCAL_WRITE, 0, 3);
            Command bad = command(2, (byte) 9, 0, 0);
            Command good = command(3, ShardedTestMachine.LOCAL_WRITE, 0, 4);
            ex.execute(before);
            ex.execute(bad);
            ex.execute(good);
            ex.awaitQuiescence();
            String expected = kind == ExecutorKind.LATE_GENERIC
                    ? "unclassifiable command: conflict relation threw IllegalArgumentException: op 9"
                    : "unclassifiable command: IllegalArgumentException: op 9";
            assertThat(results.results()).containsOnlyKeys(before.id(), bad.id(), good.id());
            assertThat(results.results().get(bad.id())).isEqualTo(CommandResult.error(expected));
            assertThat(results.unclassifiable()).containsExactly(bad.id());
            assertThat(results.results().get(good.id()).isError()).isFalse();
            assertThat(machine.state()[0]).isEqualTo((0L * 31 + 3) * 31 + 4);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ExecutorKind.class, names = {"LATE", "BARRIER", "WS_OPT"})
    void aClassOutsideTheMapGetsAnErrorResult(ExecutorKind kind) throws Exception {
        ResultRecorder results = new ResultRecorder();
        CommandClassifier outside = c -> c.payload().get(0) == 9 ? 99 : 0;
        try (Executor ex = kind.create(ShardedTestMachineMaps.single(), outside, 8)) {
            ex.start(new ShardedTestMachine(2), results);
            Command bad = command(1, (byte) 9, 0, 0);
            Command good = command(2, ShardedTestMachine.LOCAL_READ, 0, 0);
            ex.execute(bad);
            ex.execute(good);
            ex.awaitQuiescence();
            assertThat(results.results().get(bad.id()).error())
                    .isEqualTo("unclassifiable command: classifier returned class 99, outside [0, "
                            + ShardedTestMachineMaps.single().classCount() + ")");
            assertThat(results.results().get(good.id()).isError()).isFalse();
        }
    }
}
