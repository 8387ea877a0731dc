package dev.parallax.scheduler.psmr;

import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PsmrWorkers} on random destination sets over 8 workers, each worker fed by its own
 * delivery thread with the restriction of one random total order (the per-worker subscriptions of
 * seed 003 ch. 6, simulated): every command executes exactly once, every two commands with a common
 * worker execute in the total order, replies and final state equal sequential execution's, and
 * the executing worker of each command is the one the specification names (Alg. 1 l.16, e = min W).
 *
 * <p>{@value #DEFAULT_COMMANDS} commands by default (about 4 s on the 2-core CI machine, 20% of them
 * multi-worker rendezvous); {@code -Dpsmr.commands=<n>} runs another number (e.g. 200000 for a
 * quicker run, 10000000 for a longer one).
 */
class PsmrRandomOrderTest {
    static final int DEFAULT_COMMANDS = 1_000_000;
    static final int WORKERS = 8;

    /** The mutant of the rule: the highest worker of W executes. */
    static final ExecutorChoice MAX_RULE = w -> 63 - Long.numberOfLeadingZeros(w);

    @Test
    void randomDestinationsOverEightWorkersMatchTheTotalOrder() throws Exception {
        int n = Integer.getInteger("psmr.commands", DEFAULT_COMMANDS);
        RandomOrderRun run = new RandomOrderRun(WORKERS, n, 0x5eed16L);
        run.run(PsmrWorkers::executorOf);
        assertExecutedLikeTheTotalOrder(run);
        assertThat(ruleViolations(run)).as("commands not executed by min W").isEmpty();
    }

    /**
     * A replica mutated to pick e = max W is caught by the checker written against the
     * specification, which passes for the real rule. Nothing else catches it: with the mutant every
     * command still executes once, in the total order for every common worker, with sequential
     * replies and state; the choice of e is a convention every member must share, and any
     * deterministic member of W keeps the protocol safe and deadlock-free.
     */
    @Test
    void aReplicaPickingTheHighestWorkerIsCaught() throws Exception {
        RandomOrderRun real = new RandomOrderRun(WORKERS, 20_000, 42);
        real.run(PsmrWorkers::executorOf);
        assertThat(ruleViolations(real)).isEmpty();

        RandomOrderRun mutant = new RandomOrderRun(WORKERS, 20_000, 42);
        mutant.run(MAX_RULE);
        assertThat(ruleViolations(mutant)).as("the checker catches the max-rule mutant").isNotEmpty();
        assertExecutedLikeTheTotalOrder(mutant);
    }

    /**
     * The watchdog fails a run whose workers stop, with what each waits for: here worker 3's stream
     * ends just before a multi-worker command it belongs to (and does not execute), so that
     * command's executor waits for worker 3's signal for ever.
     */
    @Test
    void theWatchdogReportsAStalledRun() {
        RandomOrderRun run = new RandomOrderRun(WORKERS, 5_000, 7);
        int cut = -1;
        int[] stream = run.streams[3];
        for (int p = stream.length / 2; p < stream.length && cut < 0; p++) {
            long w = PsmrWorkers.workersOf(GroupSet.ofBits(run.groupBits[stream[p]]), WORKERS);
            if (Long.bitCount(w) > 1 && PsmrWorkers.executorOf(w) != 3) {
                cut = p;
            }
        }
        assertThat(cut).as("a multi-worker command that worker 3 does not execute").isPositive();
        int executor = PsmrWorkers.executorOf(PsmrWorkers.workersOf(GroupSet.ofBits(run.groupBits[stream[cut]]), WORKERS));
        run.streams[3] = java.util.Arrays.copyOf(stream, cut);
        assertThatThrownBy(() -> run.run(PsmrWorkers::executorOf, 2))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("no progress for 2 s")
                .hasMessageContaining("worker " + executor + ": completed")
                .hasMessageContaining("waits for the signal of member 3")
                .hasMessageContaining("delivery 3: delivered " + cut + "/" + cut);
    }

    /**
     * The checker: every command was executed by the worker the specification names, the lowest
     * {@code g mod k} over γ ({@link PsmrWorkersTest#specExecutor}); the violations, at most 20.
     */
    static List<String> ruleViolations(RandomOrderRun run) {
        List<String> out = new ArrayList<>();
        for (int c = 0; c < run.n && out.size() < 20; c++) {
            GroupSet groups = GroupSet.ofBits(run.groupBits[c]);
            int expected = PsmrWorkersTest.specExecutor(groups, run.k);
            int actual = run.machine.executedBy(c);
            if (actual != expected) {
                out.add("command " + c + " " + groups + " executed by worker " + actual + ", spec " + expected);
            }
        }
        return out;
    }

    static void assertExecutedLikeTheTotalOrder(RandomOrderRun run) {
        assertThat(run.fatal).isEmpty();
        for (int c = 0; c < run.n; c++) {
            if (run.machine.executions(c) != 1 || run.resultCounts.get(c) != 1) {
                assertThat(run.machine.executions(c)).as("executions of command %d", c).isEqualTo(1);
                assertThat(run.resultCounts.get(c)).as("results of command %d", c).isEqualTo(1);
            }
        }
        for (int i = 0; i < run.k; i++) {
            int[] stream = run.streams[i];
            for (int p = 1; p < stream.length; p++) {
                if (run.machine.order(stream[p - 1]) >= run.machine.order(stream[p])) {
                    assertThat(run.machine.order(stream[p]))
                            .as("worker %d: command %d executed before %d, which precedes it", i, stream[p],
                                    stream[p - 1])
                            .isGreaterThan(run.machine.order(stream[p - 1]));
                }
            }
        }
        RandomOrderRun.Sequential expected = run.sequential();
        for (int c = 0; c < run.n; c++) {
            if (run.replies.get(c) != expected.replies()[c]) {
                assertThat(run.replies.get(c)).as("reply of command %d", c).isEqualTo(expected.replies()[c]);
            }
        }
        assertThat(run.machine.registers()).as("final state").isEqualTo(expected.registers());
    }
}
