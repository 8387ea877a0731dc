package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Read-index reads of Multi-Paxos ({@code ReadRounds}, rules Q1–Q5) under the full fault mix of
 * {@link MultiPaxosSimulationTest}: the clients send every get as a query to a replica drawn for
 * each, followers included, which asks its core for the read's position and answers from its own
 * state once it delivered every decision below it; puts and appends are ordered. The history,
 * queries and commands together, must be linearizable for every seed: through partitions that
 * leave a deposed leader that does not know it yet, one-way cuts, crashes, restarts and pauses.
 *
 * <p>S-Paxos reads through its ordering layer's read-index, answered once execution passed the
 * confirmed ordering instance ({@code ExecutedReads}).
 *
 * <p>Mutation: a leader that answers queries from its state at once, without the confirmation
 * round (rule Q2), must fail the checker for some seed.
 *
 * <p>Seeds: a share of {@code -Dsim.seeds=N} (1000 in the build, 100000 with {@code -Pstress}): a
 * quarter for each ordering, a fifth (Multi-Paxos) and a tenth (S-Paxos) with membership changes.
 * A failing seed is printed with the {@code -Dsim.seed=S} that replays it.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class ReadIndexSimulationTest {

    /** {@code 1/divisor} of the run's seeds, at least one. */
    private static int share(int divisor) {
        return Math.max(1, SimulationSeeds.count(1000) / divisor);
    }

    @Test
    void queriesThroughReadIndexAreLinearizableUnderTheFullFaultMix() {
        PaxosSimulation.Scenario scenario = PaxosSimulation.Scenario.hostile(3);
        long[] answered = {0};
        long[] retried = {0};
        long[] ops = {0};
        int seeds = SimulationSeeds.forEach("multi-paxos read-index", share(4), seed -> {
            PaxosSimulation.Outcome o = PaxosSimulation.run(seed, scenario, null,
                    PaxosSimulation.Wiring.MULTI_PAXOS.readingByQueries());
            assertThat(o.linearizability().isLinearizable() || o.linearizability().verdict()
                    == dev.parallax.core.check.Verdict.UNKNOWN).as("seed %d: %s", seed, o.linearizability()).isTrue();
            answered[0] += o.clients().queriesAnswered();
            retried[0] += o.clients().queriesRetried();
            ops[0] += o.operations();
        });
        System.out.printf("multi-paxos read-index simulation: %d seeds, %d client ops, %d queries answered, %d told to"
                + " ask again%n", seeds, ops[0], answered[0], retried[0]);
        assertThat(answered[0]).as("queries answered").isGreaterThan(ops[0] / 10);
        if (seeds > 20) {
            assertThat(retried[0]).as("queries refused a position (elections, a silent leader)").isPositive();
        }
    }

    @Test
    void sPaxosQueriesAreLinearizableUnderTheFullFaultMix() {
        PaxosSimulation.Scenario scenario = PaxosSimulation.Scenario.hostile(3);
        long[] answered = {0};
        long[] ops = {0};
        int seeds = SimulationSeeds.forEach("s-paxos read-index", share(4), seed -> {
            PaxosSimulation.Outcome o = SPaxosSimulation.run(seed, scenario, null,
                    SPaxosSimulation.Options.NONE.readingByQueries()).outcome();
            answered[0] += o.clients().queriesAnswered();
            ops[0] += o.operations();
        });
        System.out.printf("s-paxos read-index simulation: %d seeds, %d client ops, %d queries answered%n", seeds, ops[0],
                answered[0]);
        assertThat(answered[0]).as("queries answered").isGreaterThan(ops[0] / 10);
    }

    @Test
    void queriesStayLinearizableWhileTheMembershipChanges() {
        // Rules Q2 (a quorum of every membership in effect or pending) and Q3 (no round while a change
        // is in flight), with voters replaced, added and removed and leadership transferred
        // (MembershipNemesis) among the full fault mix.
        PaxosSimulation.Scenario scenario = PaxosSimulation.Scenario.hostile(3);
        long[] answered = {0};
        int seeds = SimulationSeeds.forEach("multi-paxos read-index with membership changes", share(5),
                seed -> answered[0] += PaxosSimulation.run(seed, scenario, null,
                        PaxosSimulation.Wiring.MULTI_PAXOS.readingByQueries(), PaxosSimulation.MembershipPlan.CORRECT)
                        .clients().queriesAnswered());
        long[] sPaxos = {0};
        int sSeeds = SimulationSeeds.forEach("s-paxos read-index with membership changes", share(10),
                seed -> sPaxos[0] += SPaxosSimulation.run(seed, scenario, null, SPaxosSimulation.Options.NONE.readingByQueries(),
                        PaxosSimulation.MembershipPlan.CORRECT).outcome().clients().queriesAnswered());
        System.out.printf("read-index with membership changes: multi-paxos %d seeds, %d queries answered; s-paxos %d seeds,"
                + " %d queries answered%n", seeds, answered[0], sSeeds, sPaxos[0]);
        assertThat(answered[0]).isPositive();
        assertThat(sPaxos[0]).isPositive();
    }

    @Test
    void theCheckerCatchesALeaderThatAnswersQueriesWithoutConfirmingItLeads() {
        PaxosSimulation.Scenario mutant = PaxosSimulation.Scenario.hostile(3)
                .withSwitches(new SimReplica.Switches(true, true, false, true));
        PaxosSimulation.Wiring wiring = PaxosSimulation.Wiring.MULTI_PAXOS.readingByQueries();
        Throwable failure = null;
        long seed = 0;
        while (failure == null && seed < 2000) {
            long s = ++seed;
            failure = catchThrowable(() -> PaxosSimulation.run(s, mutant, null, wiring));
        }
        assertThat(failure).as("some seed of 2000 reads stale data from a deposed leader").isNotNull();
        assertThat(failure).hasMessageContaining("not linearizable");
        System.out.printf("unconfirmed queries: seed %d is not linearizable (replay with -Dsim.seed=%d)%n", seed, seed);
    }
}
