package dev.parallax.scheduler.psmr;

import dev.parallax.core.Command;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.Executor;
import dev.parallax.scheduler.Execution;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.parallax.scheduler.psmr.GroupMachine.FATAL;
import static dev.parallax.scheduler.psmr.GroupMachine.OK;
import static dev.parallax.scheduler.psmr.GroupMachine.THROW;
import static dev.parallax.scheduler.psmr.GroupMachine.command;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PsmrExecutor}, the adapter for one total order: random destination sets through bounded
 * queues (down to one command each, where a multi-worker command blocks the hand-over until every
 * queue of W has room) equal sequential execution; the life cycle and the error paths of the
 * {@link Executor} contract.
 */
class PsmrExecutorTest {

    @ParameterizedTest
    @CsvSource({"8, 1", "8, 2", "3, 64", "1, 4"})
    void randomDestinationsMatchTheTotalOrder(int workers, int capacity) throws Exception {
        RandomOrderRun run = new RandomOrderRun(workers, 20_000, 1000L * workers + capacity);
        try (Executor ex = Execution.psmr(workers, capacity)) {
            ex.start(run.machine, run.sink);
            for (int c = 0; c < run.n; c++) {
                ex.execute(run.command(c));
            }
            ex.awaitQuiescence();
            for (int c = 0; c < run.n; c++) {
                assertThat(run.resultCounts.get(c)).as("result of %d at quiescence", c).isEqualTo(1);
            }
        }
        PsmrRandomOrderTest.assertExecutedLikeTheTotalOrder(run);
        assertThat(PsmrRandomOrderTest.ruleViolations(run)).isEmpty();
    }

    @Test
    void aCommandNamingNoGroupRunsOnWorkerZero() throws Exception {
        GroupMachine m = new GroupMachine(2, GroupMachine::workerOfCurrentThread);
        Results results = new Results();
        try (Executor ex = Execution.psmr(4)) {
            ex.start(m, results);
            ex.execute(command(0, GroupSet.DEFAULT, 1, OK));
            ex.execute(command(1, GroupSet.of(4), 1, OK));
            ex.awaitQuiescence();
        }
        assertThat(m.executedBy(0)).isZero();
        assertThat(m.executedBy(1)).isZero();
        assertThat(results.threads.get(0).getName()).isEqualTo("parallax-psmr-0");
    }

    @Test
    void lifeCycle() throws Exception {
        Set<Thread> seen = ConcurrentHashMap.newKeySet();
        GroupMachine inner = new GroupMachine(8, GroupMachine::workerOfCurrentThread);
        dev.parallax.core.StateMachine m = new dev.parallax.core.StateMachine() {
            @Override
            public java.nio.ByteBuffer execute(java.nio.ByteBuffer command) {
                seen.add(Thread.currentThread());
                return inner.execute(command);
            }

            @Override
            public void snapshot(java.nio.channels.WritableByteChannel out) {
            }

            @Override
            public void restore(java.nio.channels.ReadableByteChannel in) {
            }
        };
        Results results = new Results();
        PsmrExecutor ex = new PsmrExecutor(4, 2);
        assertThat(ex.workers()).isEqualTo(4);
        assertThat(ex.queueCapacity()).isEqualTo(2);
        assertThatThrownBy(() -> ex.execute(command(0, GroupSet.of(1), 1, OK)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not started");
        ex.start(m, results);
        assertThatThrownBy(() -> ex.start(m, results)).isInstanceOf(IllegalStateException.class);
        for (int c = 0; c < 8; c++) {
            ex.execute(command(c, GroupSet.of(c % 4, (c + 1) % 4), c, OK));
        }
        ex.awaitQuiescence();
        assertThat(results.byIndex).hasSize(8);
        ex.close();
        assertThat(seen).isNotEmpty().allSatisfy(t -> assertThat(t.isAlive()).as("%s joined", t).isFalse());
        assertThatThrownBy(() -> ex.execute(command(8, GroupSet.of(1), 1, OK)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(ex::awaitQuiescence).isInstanceOf(IllegalStateException.class);
        ex.close();
        assertThatThrownBy(() -> new PsmrExecutor(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PsmrExecutor(65, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PsmrExecutor(2, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRejectedMultiWorkerCommandGetsAnErrorResultAndExecutionGoesOn() throws Exception {
        GroupMachine m = new GroupMachine(3, GroupMachine::workerOfCurrentThread);
        Results results = new Results();
        try (Executor ex = Execution.psmr(3, 1)) {
            ex.start(m, results);
            ex.execute(command(0, GroupSet.of(0, 1, 2), 1, THROW));
            ex.execute(command(1, GroupSet.of(1, 2), 2, OK));
            ex.execute(command(2, GroupSet.of(0, 1, 2), 3, OK));
            ex.awaitQuiescence();
        }
        assertThat(results.byIndex.get(0).error()).isEqualTo("IllegalArgumentException: rejected 0");
        assertThat(results.byIndex.get(1).isError()).isFalse();
        assertThat(results.byIndex.get(2).isError()).isFalse();
        assertThat(results.fatal).isEmpty();
        assertThat(m.order(1)).isLessThan(m.order(2));
    }

    /** An Error on a multi-worker command: onFatal once, the waiting members released, later calls throw. */
    @Test
    void anErrorIsFatalOnceAndLaterCallsThrow() throws Exception {
        GroupMachine m = new GroupMachine(4, GroupMachine::workerOfCurrentThread);
        Results results = new Results();
        PsmrExecutor ex = new PsmrExecutor(4, 4);
        // Command 0 is held until all three are handed over: else the workers could already have
        // hit the fatal command 1 when command 2 is handed over, and execute would throw there.
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try {
            ex.start(holdingCommandZero(m, release), results);
            ex.execute(command(0, GroupSet.of(2, 3), 1, OK));
            ex.execute(command(1, GroupSet.of(0, 1, 2, 3), 1, FATAL));
            ex.execute(command(2, GroupSet.of(1, 3), 1, OK));
            release.countDown();
            assertThatThrownBy(ex::awaitQuiescence).isInstanceOf(IllegalStateException.class)
                    .hasCauseInstanceOf(AssertionError.class);
            assertThat(results.fatal).hasSize(1);
            assertThat(results.fatal.get(0).getKey()).isEqualTo(command(1, GroupSet.of(0, 1, 2, 3), 1, FATAL));
            assertThatThrownBy(() -> ex.execute(command(3, GroupSet.of(1), 1, OK)))
                    .isInstanceOf(IllegalStateException.class).hasCauseInstanceOf(AssertionError.class);
            assertThat(m.executions(2)).isZero();
        } finally {
            ex.close();
        }
        assertThat(results.fatal).hasSize(1);
    }

    /** {@code inner}, except that command 0 waits for {@code release} before it executes. */
    private static dev.parallax.core.StateMachine holdingCommandZero(GroupMachine inner,
            java.util.concurrent.CountDownLatch release) {
        return holdingCommandZero(inner, new java.util.concurrent.CountDownLatch(1), release);
    }

    /** {@code inner}, except that command 0 counts {@code entered} down, then waits for {@code release}. */
    private static dev.parallax.core.StateMachine holdingCommandZero(GroupMachine inner,
            java.util.concurrent.CountDownLatch entered, java.util.concurrent.CountDownLatch release) {
        return new dev.parallax.core.StateMachine() {
            @Override
            public java.nio.ByteBuffer execute(java.nio.ByteBuffer command) {
                if (command.getInt(0) == 0) {
                    entered.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return inner.execute(command);
            }

            @Override
            public void snapshot(java.nio.channels.WritableByteChannel out) {
            }

            @Override
            public void restore(java.nio.channels.ReadableByteChannel in) {
            }
        };
    }

    /** A fatal error wakes an execute blocked on a full queue of a worker that will never take again. */
    @Test
    void anErrorReleasesAnExecuteBlockedOnAFullQueue() throws Exception {
        GroupMachine m = new GroupMachine(4, GroupMachine::workerOfCurrentThread);
        Results results = new Results();
        try (PsmrExecutor ex = new PsmrExecutor(2, 1)) {
            ex.start(m, results);
            ex.execute(command(0, GroupSet.of(0, 1), 1, FATAL));
            Command next = command(1, GroupSet.of(1), 1, OK);
            assertThatThrownBy(() -> {
                for (int i = 0; i < 4; i++) {
                    ex.execute(next);
                }
            }).isInstanceOf(IllegalStateException.class).hasCauseInstanceOf(AssertionError.class);
            assertThat(results.fatal).hasSize(1);
        }
    }

    /**
     * An {@code execute} interrupted while a queue of W is full takes the command nowhere: it waits
     * for room in every queue of W before putting it in any.
     */
    @Test
    void anInterruptedExecuteHandsTheCommandToNoWorker() throws Exception {
        GroupMachine inner = new GroupMachine(3, GroupMachine::workerOfCurrentThread);
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        dev.parallax.core.StateMachine m = holdingCommandZero(inner, entered, release);
        Results results = new Results();
        Thread producer = Thread.currentThread();
        java.util.concurrent.atomic.AtomicBoolean third = new java.util.concurrent.atomic.AtomicBoolean();
        Thread interrupter = new Thread(() -> {
            try {
                Driver.awaitUntil(() -> third.get() && producer.getState() == Thread.State.TIMED_WAITING,
                        () -> "the producer to block on worker 0's full queue");
            } catch (InterruptedException e) {
                return;
            }
            producer.interrupt();
        });
        try (PsmrExecutor ex = new PsmrExecutor(2, 1)) {
            ex.start(m, results);
            ex.execute(command(0, GroupSet.of(0), 1, OK)); // worker 0 holds it inside the state machine
            entered.await();
            ex.execute(command(1, GroupSet.of(0), 2, OK)); // fills worker 0's queue
            third.set(true);
            interrupter.start();
            assertThatThrownBy(() -> ex.execute(command(2, GroupSet.of(0, 1), 3, OK)))
                    .isInstanceOf(InterruptedException.class);
            interrupter.join();
            release.countDown();
            ex.awaitQuiescence();
            assertThat(results.byIndex).containsOnlyKeys(0, 1);
            assertThat(inner.executions(2)).isZero();
            ex.execute(command(2, GroupSet.of(0, 1), 3, OK));
            ex.awaitQuiescence();
            assertThat(inner.executions(2)).isEqualTo(1);
            assertThat(results.duplicates).hasValue(0);
        }
    }
}
