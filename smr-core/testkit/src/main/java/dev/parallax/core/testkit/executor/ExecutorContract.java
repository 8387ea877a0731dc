package dev.parallax.core.testkit.executor;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.spi.Executor;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link Executor} must pass: for random workloads over a
 * {@link ShardedTestMachine}, the per-command results and the final state equal those of
 * sequential execution in delivery order, no two conflicting commands overlap, and every command
 * gets exactly one result; plus the executor-independent lifecycle and error rules of the
 * {@link Executor} interface (a {@link RuntimeException} from the state machine becomes an error
 * result and execution goes on; an {@link Error} is reported once to
 * {@link dev.parallax.core.spi.ResultSink#onFatal} and every later call throws
 * {@link IllegalStateException}; {@link Executor#awaitQuiescence} is a consistent snapshot point;
 * {@link Executor#close} joins every thread the executor started, also one blocked inside a command,
 * and is idempotent).
 *
 * <p>Every command of every workload carries its γ ({@link ShardedTestMachine#groups}), consistent
 * with its conflicts, so executors that route by group (P-SMR, seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 6, Alg. 1) run the same suite as those that classify payloads.
 *
 * <p>Usage: subclass (one class per executor configuration, named {@code *Test}) and implement
 * {@link #create}. The properties run with jqwik, the rest with JUnit Jupiter; the whole suite takes
 * a few seconds per executor. Threads: each test drives the executor from the test thread (one
 * test, {@code closeJoinsWorkersBlockedInsideACommand}, from one helper thread) and closes it before
 * returning.
 */
public abstract class ExecutorContract {
    private static final long TIMEOUT_S = 60;

    /**
     * A new, not started executor for {@code workload}: it must use {@code workload.threads()}
     * workers (or none) and an input bounded by {@code workload.capacity()}, and it will be started
     * on a {@link ShardedTestMachine} of {@code workload.shards()} shards and then handed
     * {@code workload.commands()} (or other commands of the same machine) in delivery order.
     */
    protected abstract Executor create(ExecutorWorkload workload);

    @Property(tries = 60)
    void everyWorkloadMatchesSequentialExecution(@ForAll("workloads") WorkloadShape shape) throws Exception {
        assertMatchesSequentialExecution(shape.generate());
    }

    /** Shapes that make threads hand work to one another: see {@link WorkloadShape#contended()}. */
    @Property(tries = 100)
    void contendedWorkloadsMatchSequentialExecution(@ForAll("contendedWorkloads") WorkloadShape shape)
            throws Exception {
        assertMatchesSequentialExecution(shape.generate());
    }

    @Provide
    Arbitrary<WorkloadShape> workloads() {
        return WorkloadShape.any();
    }

    @Provide
    Arbitrary<WorkloadShape> contendedWorkloads() {
        return WorkloadShape.contended();
    }

    /**
     * Runs {@code workload} on a {@link #create created} executor and on a {@link SequentialExecutor}
     * and checks that the results per command and the final state are equal, that no two
     * conflicting commands overlapped and that no command got two results. For subclasses that add
     * workloads of their own.
     */
    protected final void assertMatchesSequentialExecution(ExecutorWorkload workload) throws Exception {
        ShardedTestMachine reference = workload.newMachine();
        ResultRecorder expected = runSequentially(reference, workload.commands());
        ShardedTestMachine machine = workload.newMachine();
        ResultRecorder actual = new ResultRecorder();
        try (Executor ex = create(workload)) {
            ex.start(machine, actual);
            for (Command c : workload.commands()) {
                ex.execute(c);
            }
            ex.awaitQuiescence();
            assertThat(actual.results()).as("results of %s", workload).isEqualTo(expected.results());
            assertThat(machine.state()).as("final state of %s", workload).isEqualTo(reference.state());
            assertThat(machine.overlaps()).as("overlapping conflicting commands in %s", workload).isZero();
            assertThat(actual.duplicates()).as("duplicate results in %s", workload).isZero();
        }
    }

    private static ResultRecorder runSequentially(ShardedTestMachine machine, List<Command> commands) {
        ResultRecorder results = new ResultRecorder();
        try (Executor seq = new SequentialExecutor()) {
            seq.start(machine, results);
            for (Command c : commands) {
                seq.execute(c);
            }
            seq.awaitQuiescence();
        } catch (InterruptedException e) {
            throw new AssertionError("the sequential executor never blocks", e);
        }
        return results;
    }

    private static Command command(long seq, byte op, int shard, int value, int cost, boolean fail) {
        return ShardedTestMachine.command(2, seq, op, shard, value, cost, fail);
    }

    private static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
    }

    /** The threads alive now that were not in {@code before}, other than {@code ours}. */
    private static Set<Thread> newThreads(Set<Thread> before, Thread... ours) {
        Set<Thread> now = liveThreads();
        now.removeAll(before);
        now.removeAll(List.of(ours));
        return now;
    }

    @Test
    void aThrowingCommandGetsTheSequentialErrorResultAndExecutionGoesOn() throws Exception {
        List<Command> commands = new ArrayList<>();
        for (int i = 1; i <= 60; i++) {
            byte op = i % 3 == 0 ? ShardedTestMachine.LOCAL_WRITE : ShardedTestMachine.LOCAL_READ;
            if (i % 11 == 0) {
                op = ShardedTestMachine.NULL_REPLY;
            }
            commands.add(command(i, op, i % 2, i, 10, i % 7 == 0));
        }
        ShardedTestMachine reference = new ShardedTestMachine(2);
        ResultRecorder expected = runSequentially(reference, commands);
        ResultRecorder actual = new ResultRecorder();
        ShardedTestMachine machine = new ShardedTestMachine(2);
        try (Executor ex = create(ExecutorWorkload.of(2, 4, 1024, commands))) {
            ex.start(machine, actual);
            for (Command c : commands) {
                ex.execute(c);
            }
            ex.awaitQuiescence();
        }
        CommandResult failed = actual.results().get(commands.get(6).id());
        assertThat(failed.isError()).isTrue();
        assertThat(failed.error()).isEqualTo("IllegalStateException: rejected 7");
        CommandResult nullReply = CommandResult.error("state machine returned null");
        assertThat(expected.results().get(commands.get(10).id())).isEqualTo(nullReply);
        assertThat(actual.results().get(commands.get(10).id())).isEqualTo(nullReply);
        assertThat(actual.results().get(commands.get(32).id())).isEqualTo(nullReply);
        assertThat(actual.results()).isEqualTo(expected.results());
        assertThat(machine.state()).isEqualTo(reference.state());
    }

    @Test
    void closeJoinsEveryThreadEvenWithWorkQueuedAndIsIdempotent() throws Exception {
        Set<Thread> before = liveThreads();
        List<Command> commands = new ArrayList<>();
        for (int i = 1; i <= 500; i++) {
            byte op = i % 5 == 0 ? ShardedTestMachine.GLOBAL_WRITE : ShardedTestMachine.LOCAL_READ;
            commands.add(command(i, op, i % 2, i, 200, false));
        }
        Executor ex = create(ExecutorWorkload.of(2, 4, 64, commands));
        ex.start(new ShardedTestMachine(2), new ResultRecorder());
        for (Command c : commands) {
            ex.execute(c);
        }
        ex.close();
        ex.close();
        assertThat(newThreads(before)).as("threads left after close").isEmpty();
        assertThatThrownBy(() -> ex.execute(command(501, ShardedTestMachine.LOCAL_READ, 0, 0, 0, false)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(ex::awaitQuiescence).isInstanceOf(IllegalStateException.class);
    }

    /**
     * A command blocked inside the state machine does not keep {@link Executor#close} from joining
     * the executor's threads. The commands are handed over by a helper thread, since an executor
     * may run them on the caller's thread (the sequential one does: its close has no thread to join).
     */
    @Test
    void closeJoinsWorkersBlockedInsideACommand() throws Exception {
        Set<Thread> before = liveThreads();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ShardedTestMachine machine = new ShardedTestMachine(2, (op, shard, value) -> {
            if (value == 99) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted");
                }
            }
        });
        List<Command> commands = List.of(command(1, ShardedTestMachine.GLOBAL_WRITE, 0, 99, 0, false),
                command(2, ShardedTestMachine.LOCAL_WRITE, 1, 1, 0, false));
        Executor ex = create(ExecutorWorkload.of(2, 4, 64, commands));
        ex.start(machine, new ResultRecorder());
        Thread deliverer = new Thread(() -> {
            try {
                for (Command c : commands) {
                    ex.execute(c);
                }
            } catch (InterruptedException | IllegalStateException e) {
                // closed while handing over: the commands not taken are dropped, as close allows
            }
        }, "executor-contract-deliverer");
        deliverer.start();
        try {
            assertThat(entered.await(TIMEOUT_S, TimeUnit.SECONDS)).as("the blocking command started").isTrue();
            ex.close();
            assertThat(newThreads(before, deliverer)).as("threads left after close").isEmpty();
        } finally {
            release.countDown();
            deliverer.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
        }
        assertThat(deliverer.isAlive()).as("the deliverer returned").isFalse();
    }

    /**
     * The policy of docs/executors.md ("Errors"), the same for every executor: the sink hears of
     * the error once, with the command; nothing more runs; later calls throw with the error as
     * cause; close joins every thread.
     */
    @Test
    void anErrorFromTheStateMachineFailsTheExecutor() throws Exception {
        Set<Thread> before = liveThreads();
        Command ok = command(1, ShardedTestMachine.LOCAL_WRITE, 0, 5, 0, false);
        Command fatal = command(2, ShardedTestMachine.FATAL, 0, 0, 0, false);
        Executor ex = create(ExecutorWorkload.of(2, 4, 64, List.of(ok, fatal)));
        ResultRecorder results = new ResultRecorder();
        ShardedTestMachine machine = new ShardedTestMachine(2);
        ex.start(machine, results);
        ex.execute(ok);
        ex.execute(fatal);
        assertThatThrownBy(ex::awaitQuiescence).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("failed").hasRootCauseInstanceOf(AssertionError.class);
        assertThat(results.fatal()).hasSize(1);
        assertThat(results.fatal().get(0).getKey()).isEqualTo(fatal);
        assertThat(results.fatal().get(0).getValue()).isInstanceOf(AssertionError.class).hasMessage("fatal command");
        long[] state = machine.state();
        assertThatThrownBy(() -> ex.execute(command(3, ShardedTestMachine.LOCAL_WRITE, 0, 7, 0, false)))
                .isInstanceOf(IllegalStateException.class).hasRootCauseInstanceOf(AssertionError.class);
        assertThat(machine.state()).isEqualTo(state);
        assertThat(results.results()).containsOnlyKeys(ok.id());
        assertThat(results.fatal()).hasSize(1);
        ex.close();
        assertThat(newThreads(before)).as("threads left after close").isEmpty();
    }

    @Test
    void quiescenceIsAConsistentSnapshotPoint() throws Exception {
        List<Command> commands = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            for (int i = 1; i <= 100; i++) {
                commands.add(command(round * 100L + i,
                        i % 4 == 0 ? ShardedTestMachine.LOCAL_WRITE : ShardedTestMachine.LOCAL_READ, i % 2, i, 50,
                        false));
            }
        }
        ShardedTestMachine machine = new ShardedTestMachine(2);
        ShardedTestMachine reference = new ShardedTestMachine(2);
        ResultRecorder results = new ResultRecorder();
        ByteArrayOutputStream snap = new ByteArrayOutputStream();
        ByteArrayOutputStream refSnap = new ByteArrayOutputStream();
        try (Executor ex = create(ExecutorWorkload.of(2, 4, 16, commands)); Executor seq = new SequentialExecutor()) {
            ex.start(machine, results);
            seq.start(reference, new ResultRecorder());
            for (int round = 0; round < 5; round++) {
                for (Command c : commands.subList(round * 100, round * 100 + 100)) {
                    ex.execute(c);
                    seq.execute(c);
                }
                ex.awaitQuiescence();
                assertThat(results.results()).hasSize((round + 1) * 100);
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

    @Test
    void lifecycleMisuseIsRejected() throws Exception {
        Command c = command(1, ShardedTestMachine.LOCAL_READ, 0, 0, 0, false);
        Executor ex = create(ExecutorWorkload.of(2, 1, 8, List.of(c)));
        assertThatThrownBy(() -> ex.execute(c)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not started");
        ex.start(new ShardedTestMachine(2), new ResultRecorder());
        assertThatThrownBy(() -> ex.start(new ShardedTestMachine(2), new ResultRecorder()))
                .isInstanceOf(IllegalStateException.class);
        ex.awaitQuiescence();
        ex.close();
        assertThatThrownBy(() -> ex.execute(c)).isInstanceOf(IllegalStateException.class);
    }
}
