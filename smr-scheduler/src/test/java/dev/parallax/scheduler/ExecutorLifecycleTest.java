package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.StateMachine;
import dev.parallax.core.spi.Executor;
import dev.parallax.scheduler.classmap.ClassMap;
import dev.parallax.scheduler.classmap.ShardedClasses;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Start, quiescence, errors, back-pressure and shutdown, for every executor. */
class ExecutorLifecycleTest {
    private static final ShardedClasses CLASSES = new ShardedClasses(2);

    private static Executor create(ExecutorKind kind, int capacity) {
        return kind.create(CLASSES.classMap(), ShardedTestMachine.shardedClassifier(CLASSES), capacity);
    }

    private static Executor create(ExecutorKind kind, ClassMap map, int capacity) {
        return kind.create(map, ShardedTestMachine.shardedClassifier(CLASSES), capacity);
    }

    private static Set<Thread> liveWorkers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("parallax-") && t.isAlive())
                .collect(Collectors.toSet());
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void aThrowingCommandGetsTheSequentialErrorResultAndExecutionGoesOn(ExecutorKind kind) throws Exception {
        List<Command> commands = new ArrayList<>();
        for (int i = 1; i <= 60; i++) {
            byte op = i % 3 == 0 ? ShardedTestMachine.LOCAL_WRITE : ShardedTestMachine.LOCAL_READ;
            if (i % 11 == 0) {
                op = ShardedTestMachine.NULL_REPLY;
            }
            commands.add(ShardedTestMachine.command(i, op, i % 2, i, 10, i % 7 == 0));
        }
        ResultRecorder expected = new ResultRecorder();
        ShardedTestMachine reference = new ShardedTestMachine(2);
        try (Executor seq = Execution.sequential()) {
            seq.start(reference, expected);
            for (Command c : commands) {
                seq.execute(c);
            }
        }
        ResultRecorder actual = new ResultRecorder();
        ShardedTestMachine machine = new ShardedTestMachine(2);
        try (Executor ex = create(kind, 1024)) {
            ex.start(machine, actual);
            for (Command c : commands) {
                ex.execute(c);
            }
            ex.awaitQuiescence();
        }
        CommandResult failed = actual.results.get(commands.get(6).id());
        assertThat(failed.isError()).isTrue();
        assertThat(failed.error()).isEqualTo("IllegalStateException: rejected 7");
        CommandResult nullReply = CommandResult.error("state machine returned null");
        assertThat(expected.results.get(commands.get(10).id())).isEqualTo(nullReply);
        assertThat(actual.results.get(commands.get(10).id())).isEqualTo(nullReply);
        assertThat(actual.results.get(commands.get(32).id())).isEqualTo(nullReply);
        assertThat(actual.results).isEqualTo(expected.results);
        assertThat(machine.state()).isEqualTo(reference.state());
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void closeJoinsEveryWorkerEvenWithWorkQueued(ExecutorKind kind) throws Exception {
        Set<Thread> before = liveWorkers();
        Executor ex = create(kind, 64);
        ex.start(new ShardedTestMachine(2), new ResultRecorder());
        assertThat(liveWorkers()).hasSize(before.size() + 4);
        for (int i = 1; i <= 500; i++) {
            byte op = i % 5 == 0 ? ShardedTestMachine.GLOBAL_WRITE : ShardedTestMachine.LOCAL_READ;
            ex.execute(ShardedTestMachine.command(i, op, i % 2, i, 200, false));
        }
        ex.close();
        ex.close();
        assertThat(liveWorkers()).isEqualTo(before);
        assertThatThrownBy(() -> ex.execute(ShardedTestMachine.command(501, (byte) 0, 0, 0, 0, false)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(ex::awaitQuiescence).isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void closeJoinsWorkersBlockedInsideACommand(ExecutorKind kind) throws Exception {
        Set<Thread> before = liveWorkers();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        ShardedTestMachine machine = new ShardedTestMachine(2, (op, shard, value) -> {
            if (value == 99) {
                entered.countDown();
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted");
                }
            }
        });
        Executor ex = create(kind, 64);
        ex.start(machine, new ResultRecorder());
        ex.execute(ShardedTestMachine.command(1, ShardedTestMachine.GLOBAL_WRITE, 0, 99, 0, false));
        ex.execute(ShardedTestMachine.command(2, ShardedTestMachine.LOCAL_WRITE, 1, 1, 0, false));
        entered.await();
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
        try (Executor ex = kind.create(one.classMap(1), ShardedTestMachine.shardedClassifier(one), capacity)) {
            ex.start(machine, results);
            Command blocker = ShardedTestMachine.command(1, ShardedTestMachine.LOCAL_WRITE, 0, 99, 0, false);
            Command queued = ShardedTestMachine.command(2, ShardedTestMachine.LOCAL_WRITE, 0, 2, 0, false);
            Command refused = ShardedTestMachine.command(3, ShardedTestMachine.LOCAL_WRITE, 0, 3, 0, false);
            ex.execute(blocker);
            entered.await();
            ex.execute(queued);
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> ex.execute(refused)).isInstanceOf(InterruptedException.class);
            release.countDown();
            ex.awaitQuiescence();
            assertThat(results.results).containsOnlyKeys(blocker.id(), queued.id());
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void anErrorFromTheStateMachineFailsTheExecutor(ExecutorKind kind) throws Exception {
        Set<Thread> before = liveWorkers();
        Executor ex = create(kind, 64);
        assertAnErrorIsFatal(ex);
        assertThat(liveWorkers()).isEqualTo(before);
    }

    @org.junit.jupiter.api.Test
    void anErrorFromTheStateMachineFailsTheSequentialExecutorAlike() throws Exception {
        assertAnErrorIsFatal(Execution.sequential());
    }

    /**
     * The policy of docs/executors.md ("Errors"), the same for every executor: the sink hears of
     * the error once, with the command; nothing more runs; later calls throw with the error as cause.
     */
    private static void assertAnErrorIsFatal(Executor ex) throws Exception {
        ResultRecorder results = new ResultRecorder();
        ShardedTestMachine machine = new ShardedTestMachine(2);
        ex.start(machine, results);
        Command ok = ShardedTestMachine.command(1, ShardedTestMachine.LOCAL_WRITE, 0, 5, 0, false);
        Command fatal = ShardedTestMachine.command(2, ShardedTestMachine.FATAL, 0, 0, 0, false);
        ex.execute(ok);
        ex.execute(fatal);
        assertThatThrownBy(ex::awaitQuiescence).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("failed").hasRootCauseInstanceOf(AssertionError.class);
        assertThat(results.fatal).hasSize(1);
        assertThat(results.fatal.get(0).getKey()).isEqualTo(fatal);
        assertThat(results.fatal.get(0).getValue()).isInstanceOf(AssertionError.class).hasMessage("fatal command");
        long[] state = machine.state();
        assertThatThrownBy(() -> ex.execute(ShardedTestMachine.command(3, ShardedTestMachine.LOCAL_WRITE, 0, 7, 0,
                false))).isInstanceOf(IllegalStateException.class).hasRootCauseInstanceOf(AssertionError.class);
        assertThat(machine.state()).isEqualTo(state);
        assertThat(results.results).containsOnlyKeys(ok.id());
        assertThat(results.fatal).hasSize(1);
        ex.close();
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void quiescenceIsAConsistentSnapshotPoint(ExecutorKind kind) throws Exception {
        ShardedTestMachine machine = new ShardedTestMachine(2);
        ShardedTestMachine reference = new ShardedTestMachine(2);
        ResultRecorder results = new ResultRecorder();
        ByteArrayOutputStream snap = new ByteArrayOutputStream();
        ByteArrayOutputStream refSnap = new ByteArrayOutputStream();
        try (Executor ex = create(kind, 16); Executor seq = Execution.sequential()) {
            ex.start(machine, results);
            seq.start(reference, new ResultRecorder());
            for (int round = 0; round < 5; round++) {
                for (int i = 1; i <= 100; i++) {
                    Command c = ShardedTestMachine.command(round * 100L + i,
                            i % 4 == 0 ? ShardedTestMachine.LOCAL_WRITE : ShardedTestMachine.LOCAL_READ, i % 2, i, 50,
                            false);
                    ex.execute(c);
                    seq.execute(c);
                }
                ex.awaitQuiescence();
                assertThat(results.results).hasSize((round + 1) * 100);
                assertThat(machine.state()).isEqualTo(reference.state());
            }
            try (WritableByteChannel out = Channels.newChannel(snap);
                 WritableByteChannel refOut = Channels.newChannel(refSnap)) {
                machine.snapshot(out);
                reference.snapshot(refOut);
            }
        }
        assertThat(snap.toByteArray()).isEqualTo(refSnap.toByteArray());
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void lifecycleMisuseIsRejected(ExecutorKind kind) throws Exception {
        Executor ex = create(kind, ShardedTestMachineMaps.single(), 8);
        assertThatThrownBy(() -> ex.execute(ShardedTestMachine.command(1, (byte) 0, 0, 0, 0, false)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not started");
        ex.start(new ShardedTestMachine(2), new ResultRecorder());
        assertThatThrownBy(() -> ex.start(new ShardedTestMachine(2), new ResultRecorder()))
                .isInstanceOf(IllegalStateException.class);
        ex.awaitQuiescence();
        ex.close();
    }

    @ParameterizedTest
    @EnumSource(ExecutorKind.class)
    void anUnclassifiableCommandGetsAnErrorResultAndExecutionGoesOn(ExecutorKind kind) throws Exception {
        ResultRecorder results = new ResultRecorder();
        ShardedTestMachine machine = new ShardedTestMachine(2);
        try (Executor ex = create(kind, 8)) {
            ex.start(machine, results);
            Command before = ShardedTestMachine.command(1, ShardedTestMachine.LOCAL_WRITE, 0, 3, 0, false);
            Command bad = ShardedTestMachine.command(2, (byte) 9, 0, 0, 0, false);
            Command good = ShardedTestMachine.command(3, ShardedTestMachine.LOCAL_WRITE, 0, 4, 0, false);
            ex.execute(before);
            ex.execute(bad);
            ex.execute(good);
            ex.awaitQuiescence();
            String expected = kind == ExecutorKind.LATE_GENERIC
                    ? "unclassifiable command: conflict relation threw IllegalArgumentException: op 9"
                    : "unclassifiable command: IllegalArgumentException: op 9";
            assertThat(results.results).containsOnlyKeys(before.id(), bad.id(), good.id());
            assertThat(results.results.get(bad.id())).isEqualTo(CommandResult.error(expected));
            assertThat(results.unclassifiable).containsExactly(bad.id());
            assertThat(results.results.get(good.id()).isError()).isFalse();
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
            Command bad = ShardedTestMachine.command(1, (byte) 9, 0, 0, 0, false);
            Command good = ShardedTestMachine.command(2, ShardedTestMachine.LOCAL_READ, 0, 0, 0, false);
            ex.execute(bad);
            ex.execute(good);
            ex.awaitQuiescence();
            assertThat(results.results.get(bad.id()).error())
                    .isEqualTo("unclassifiable command: classifier returned class 99, outside [0, "
                            + ShardedTestMachineMaps.single().classCount() + ")");
            assertThat(results.results.get(good.id()).isError()).isFalse();
        }
    }

    /** A throwaway state machine for the sequential executor's contract checks. */
    static class Echo implements StateMachine {
        @Override
        public ByteBuffer execute(ByteBuffer command) {
            return command;
        }

        @Override
        public void snapshot(WritableByteChannel out) {
        }

        @Override
        public void restore(ReadableByteChannel in) {
        }
    }
}
