package dev.parallax.scheduler.psmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.CommandRouter;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import static dev.parallax.scheduler.psmr.Driver.awaitWaiting;
import static dev.parallax.scheduler.psmr.GroupMachine.FATAL;
import static dev.parallax.scheduler.psmr.GroupMachine.OK;
import static dev.parallax.scheduler.psmr.GroupMachine.THROW;
import static dev.parallax.scheduler.psmr.GroupMachine.command;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The rule and the signal protocol of {@link PsmrWorkers} (seed 003 ch. 6, Alg. 1), driven by hand
 * with one thread per worker; "waits" are observed through {@link PsmrWorkers#waitReport()}.
 */
class PsmrWorkersTest {
    private final Results results = new Results();

    private GroupMachine machine(int commands) {
        return new GroupMachine(commands, Driver.WORKER::get);
    }

    /** The specification of l.16 written independently: the lowest g mod k over γ. */
    static int specExecutor(GroupSet groups, int k) {
        int min = Integer.MAX_VALUE;
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            min = Math.min(min, g % k);
        }
        return min;
    }

    @Property(tries = 2000)
    void theRuleIsTheLowestWorkerOfTheGroups(@ForAll long bits, @ForAll @IntRange(min = 1, max = 64) int k) {
        GroupSet groups = GroupSet.ofBits(bits == 0 ? 1 : bits);
        long w = PsmrWorkers.workersOf(groups, k);
        for (int i = 0; i < 64; i++) {
            boolean expected = false;
            for (int g = groups.first(); g >= 0; g = groups.next(g)) {
                expected |= g % k == i;
            }
            assertThat((w >>> i & 1) == 1).as("worker %d in W(%s) over %d", i, groups, k).isEqualTo(expected);
        }
        assertThat(PsmrWorkers.executorOf(w)).isEqualTo(specExecutor(groups, k));
    }

    @Test
    void ruleAndSizesRejectBadInput() {
        assertThatThrownBy(() -> PsmrWorkers.executorOf(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PsmrWorkers(0, machine(1), results)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PsmrWorkers(65, machine(1), results)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PsmrWorkers.workersOf(GroupSet.DEFAULT, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(PsmrWorkers.workersOf(GroupSet.DEFAULT, 5)).as("no group named -> worker 0").isEqualTo(1L);
        assertThat(new PsmrWorkers(64, machine(1), results).size()).isEqualTo(64);
    }

    /** Alg. 1 l.10-13: a single-worker command runs on the delivering thread, alone. */
    @Test
    void parallelModeExecutesOnTheDeliveringThread() throws Exception {
        GroupMachine m = machine(2);
        PsmrWorkers group = new PsmrWorkers(4, m, results);
        Driver.WORKER.set(2);
        try {
            group.worker(2).deliver(command(0, GroupSet.of(6), 5, OK)); // 6 mod 4 = 2
            group.worker(2).deliver(command(1, GroupSet.of(2, 10), 5, OK)); // both groups on worker 2
        } finally {
            Driver.WORKER.remove();
        }
        assertThat(m.executions(0)).isEqualTo(1);
        assertThat(m.executions(1)).isEqualTo(1);
        assertThat(m.executedBy(0)).isEqualTo(2);
        assertThat(results.threads.get(0)).isSameAs(Thread.currentThread());
        assertThat(results.byIndex.get(1).isError()).isFalse();
        assertThat(group.completed()).isEqualTo(2);
        group.awaitCompleted(2);
    }

    /**
     * Bad input: a command whose groups do not cover the workers of the groups the service's C-G
     * function gives it (a client that did not route it) would race the worker it touches. With
     * the C-G given, it gets an error result and never runs; a command sent to more groups than it
     * needs runs (only slower).
     */
    @Test
    void commandsWhoseGroupsDoNotCoverTheirCgAreAnsweredWithAnErrorAndNotRun() throws Exception {
        GroupMachine m = machine(3);
        CommandRouter cg = b -> GroupSet.ofBits(b.getLong(b.position() + 4)); // the groups in its payload
        PsmrWorkers group = new PsmrWorkers(2, m, results, c -> true, cg);
        Command touchesBoth = command(0, GroupSet.of(0, 1), 5, OK);
        Command sentToZero = new Command(new CommandId(7, GroupSet.of(0), 0), touchesBoth.payload());
        Command wider = new Command(new CommandId(8, GroupSet.of(0, 2), 1), command(1, GroupSet.of(0), 5, OK).payload());
        Driver.WORKER.set(0);
        try {
            group.worker(0).deliver(sentToZero);
            group.worker(0).deliver(wider); // groups 0 and 2: both on worker 0 of 2
        } finally {
            Driver.WORKER.remove();
        }
        assertThat(m.executions(0)).as("the misrouted command never ran").isZero();
        assertThat(results.byIndex.get(0).error()).contains("was addressed to groups " + GroupSet.of(0))
                .contains("touches groups " + GroupSet.of(0, 1));
        assertThat(m.executions(1)).as("more groups than needed is allowed").isEqualTo(1);
        assertThat(group.completed()).isEqualTo(2);
        CommandRouter broken = b -> {
            throw new IllegalArgumentException("cannot parse");
        };
        PsmrWorkers strict = new PsmrWorkers(2, m, results, c -> true, broken);
        Driver.WORKER.set(0);
        try {
            strict.worker(0).deliver(command(2, GroupSet.of(0), 5, OK));
        } finally {
            Driver.WORKER.remove();
        }
        assertThat(results.byIndex.get(2).error()).contains("cannot route").contains("cannot parse");
        assertThat(m.executions(2)).isZero();
    }

    /**
     * Alg. 1 l.16-23: e = min W waits for a signal from every other member (in turn), executes,
     * delivers the result and releases them; l.25-26: the others signal e and wait.
     */
    @Test
    void executorWaitsForEveryMemberThenExecutesAndReleases() throws Exception {
        GroupMachine m = machine(1);
        PsmrWorkers group = new PsmrWorkers(4, m, results);
        Command c = command(0, GroupSet.of(1, 2, 3), 9, OK);
        Driver e = Driver.start(group.worker(1), c);
        awaitWaiting(group, 1, "waits for the signal of member 2 #1");
        Driver third = Driver.start(group.worker(3), c);
        awaitWaiting(group, 3, "waits for the release by executor 1 #1");
        assertThat(Driver.line(group, 1)).as("one signal is missing").contains("signal of member 2 #1");
        assertThat(m.executions(0)).isZero();
        Driver second = Driver.start(group.worker(2), c);
        e.joinOk();
        second.joinOk();
        third.joinOk();
        assertThat(m.executions(0)).isEqualTo(1);
        assertThat(m.executedBy(0)).isEqualTo(1);
        assertThat(results.threads.get(0)).isSameAs(e.thread());
        assertThat(results.duplicates).hasValue(0);
        assertThat(group.completed()).isEqualTo(1);
        assertThat(group.waitReport()).doesNotContain("waits for");
    }

    /** Alg. 1 l.25-26 when the member comes first: it signals and waits for e's release. */
    @Test
    void memberArrivingFirstWaitsForTheExecutorsRelease() throws Exception {
        GroupMachine m = machine(1);
        PsmrWorkers group = new PsmrWorkers(2, m, results);
        Command c = command(0, GroupSet.of(0, 1), 3, OK);
        Driver member = Driver.start(group.worker(1), c);
        awaitWaiting(group, 1, "waits for the release by executor 0 #1");
        assertThat(m.executions(0)).isZero();
        Driver e = Driver.start(group.worker(0), c);
        e.joinOk();
        member.joinOk();
        assertThat(m.executedBy(0)).isZero();
        assertThat(m.executions(0)).isEqualTo(1);
    }

    /**
     * Per-pair sequence numbers tell consecutive multi-worker commands apart: a member that is
     * several commands ahead in its stream cannot be released by an earlier command.
     */
    @Test
    void consecutiveSharedCommandsExecuteInDeliveryOrder() throws Exception {
        GroupMachine m = machine(6);
        PsmrWorkers group = new PsmrWorkers(3, m, results);
        Command a = command(0, GroupSet.of(0, 1), 1, OK);
        Command b = command(1, GroupSet.of(1, 2), 2, OK);
        Command c = command(2, GroupSet.of(0, 2), 3, OK);
        Command d = command(3, GroupSet.of(0, 1, 2), 4, OK);
        Command e = command(4, GroupSet.of(1), 5, OK);
        Command f = command(5, GroupSet.of(0, 1), 6, OK);
        // The total order a b c d e f, restricted to each worker.
        Driver w1 = Driver.start(group.worker(1), a, b, d, e, f);
        Driver w2 = Driver.start(group.worker(2), b, c, d);
        Driver w0 = Driver.start(group.worker(0), a, c, d, f);
        w0.joinOk();
        w1.joinOk();
        w2.joinOk();
        for (int i = 0; i < 6; i++) {
            assertThat(m.executions(i)).as("executions of %d", i).isEqualTo(1);
            assertThat(m.order(i)).as("position of %d", i).isEqualTo(i + 1);
        }
        assertThat(m.executedBy(1)).isEqualTo(1);
        assertThat(m.executedBy(2)).isEqualTo(0);
        assertThat(m.executedBy(4)).isEqualTo(1);
    }

    @Test
    void aCommandNotForTheWorkerIsRejectedAndTheWorkerGoesOn() throws Exception {
        GroupMachine m = machine(2);
        PsmrWorkers group = new PsmrWorkers(4, m, results);
        assertThatThrownBy(() -> group.worker(1).deliver(command(0, GroupSet.of(2, 4), 1, OK)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("worker 1");
        assertThat(m.executions(0)).isZero();
        group.worker(1).deliver(command(1, GroupSet.of(5), 1, OK));
        assertThat(m.executions(1)).isEqualTo(1);
    }

    /** A state machine exception in synchronous mode: an error result, and every member goes on. */
    @Test
    void aRejectedMultiWorkerCommandGetsAnErrorResultAndEveryoneGoesOn() throws Exception {
        GroupMachine m = machine(2);
        PsmrWorkers group = new PsmrWorkers(3, m, results);
        Command bad = command(0, GroupSet.of(0, 1, 2), 1, THROW);
        Command next = command(1, GroupSet.of(0, 2), 2, OK);
        Driver w2 = Driver.start(group.worker(2), bad, next);
        Driver w1 = Driver.start(group.worker(1), bad);
        Driver w0 = Driver.start(group.worker(0), bad, next);
        w0.joinOk();
        w1.joinOk();
        w2.joinOk();
        assertThat(results.byIndex.get(0).error()).isEqualTo("IllegalArgumentException: rejected 0");
        assertThat(results.byIndex.get(1).isError()).isFalse();
        assertThat(m.registers()[0]).as("the rejected command left no trace").isEqualTo(2);
        assertThat(results.fatal).isEmpty();
        assertThat(group.completed()).isEqualTo(2);
    }

    /**
     * An {@link Error} is fatal: reported once, the failing executor's deliver throws, and every
     * worker waiting on the protocol (a member for its release, an executor for a signal) is
     * released with {@link IllegalStateException}; later calls throw too.
     */
    @Test
    void anErrorIsFatalOnceAndReleasesEveryWaitingWorker() throws Exception {
        GroupMachine m = machine(2);
        PsmrWorkers group = new PsmrWorkers(4, m, results);
        Command fatal = command(0, GroupSet.of(0, 1), 1, FATAL);
        Command other = command(1, GroupSet.of(2, 3), 1, OK);
        Driver w2 = Driver.start(group.worker(2), other);
        awaitWaiting(group, 2, "waits for the signal of member 3");
        Driver w1 = Driver.start(group.worker(1), fatal);
        awaitWaiting(group, 1, "waits for the release by executor 0");
        Driver w0 = Driver.start(group.worker(0), fatal);
        for (Driver d : new Driver[] {w0, w1, w2}) {
            assertThat(d.join()).isInstanceOf(IllegalStateException.class)
                    .hasRootCauseInstanceOf(AssertionError.class);
        }
        assertThat(results.fatal).hasSize(1);
        assertThat(results.fatal.get(0).getKey()).isEqualTo(fatal);
        assertThat(group.failure()).isInstanceOf(AssertionError.class);
        assertThat(m.executions(1)).isZero();
        assertThatThrownBy(() -> group.worker(3).deliver(other)).isInstanceOf(IllegalStateException.class)
                .hasCauseInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> group.awaitCompleted(1)).isInstanceOf(IllegalStateException.class);
        assertThat(results.fatal).hasSize(1);
    }

    @Test
    void closeReleasesWaitingWorkers() throws Exception {
        PsmrWorkers group = new PsmrWorkers(2, machine(1), results);
        Command c = command(0, GroupSet.of(0, 1), 1, OK);
        Driver e = Driver.start(group.worker(0), c);
        awaitWaiting(group, 0, "waits for the signal of member 1");
        group.close();
        assertThat(e.join()).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> group.worker(1).deliver(c)).isInstanceOf(IllegalStateException.class);
        group.close();
    }

    /** An interrupted wait throws InterruptedException and closes the group: its members cannot meet. */
    @Test
    void anInterruptedWaitClosesTheGroup() throws Exception {
        PsmrWorkers group = new PsmrWorkers(3, machine(2), results);
        Command c = command(0, GroupSet.of(0, 2), 1, OK);
        Driver member = Driver.start(group.worker(2), c);
        awaitWaiting(group, 2, "waits for the release by executor 0");
        member.thread().interrupt();
        assertThat(member.join()).isInstanceOf(InterruptedException.class);
        assertThatThrownBy(() -> group.worker(1).deliver(command(1, GroupSet.of(1), 1, OK)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void awaitCompletedWaitsForTheExecutor() throws Exception {
        GroupMachine m = machine(1);
        PsmrWorkers group = new PsmrWorkers(2, m, results);
        Command c = command(0, GroupSet.of(0, 1), 1, OK);
        Driver member = Driver.start(group.worker(1), c);
        awaitWaiting(group, 1, "waits for the release");
        Thread waiter = new Thread(() -> {
            try {
                group.awaitCompleted(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        Driver e = Driver.start(group.worker(0), c);
        e.joinOk();
        member.joinOk();
        waiter.join(Driver.TIMEOUT_SECONDS * 1000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(group.completed()).isEqualTo(1);
    }

    /** A sink that throws is fatal too: reported once with no command, and the workers stop. */
    @Test
    void aFailingSinkIsFatal() throws Exception {
        java.util.List<Object[]> fatal = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.parallax.core.spi.ResultSink sink = new dev.parallax.core.spi.ResultSink() {
            @Override
            public void onResult(Command command, dev.parallax.core.CommandResult result) {
                throw new IllegalStateException("sink broken");
            }

            @Override
            public void onFatal(Command command, Throwable error) {
                fatal.add(new Object[] {command, error});
            }
        };
        PsmrWorkers group = new PsmrWorkers(2, machine(2), sink);
        assertThatThrownBy(() -> group.worker(1).deliver(command(0, GroupSet.of(1), 1, OK)))
                .isInstanceOf(IllegalStateException.class).hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> group.worker(0).deliver(command(1, GroupSet.of(0), 1, OK)))
                .isInstanceOf(IllegalStateException.class);
        assertThat(fatal).hasSize(1);
        assertThat(fatal.get(0)[0]).isNull();
        assertThat(group.failure()).hasMessage("sink broken");
    }
}
