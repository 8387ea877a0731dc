package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.ringpaxos.Ring;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Read-index reads of U-Ring and M-Ring Paxos ({@code RingReads}, rules Q1–Q5 of
 * {@code ReadIndexRounds}) under the full fault mix of {@link RingSimulation}'s hostile scenario:
 * clients send every get as a query to a member drawn for each, which asks its core for the read's
 * position (the coordinator confirms its round with a quorum; other members ask the coordinator)
 * and answers from its own state once it delivered every decision below it; puts and appends are
 * ordered. The history, queries and commands together, must be linearizable for every seed:
 * through partitions that leave a coordinator that does not know it was replaced, one-way cuts,
 * crashes, restarts, and membership changes with leadership transfers.
 *
 * <p>Mutation: a coordinator that answers queries from its state at once, without confirming its
 * round (rule Q2), must fail the checker for some seed.
 *
 * <p>Seeds: an eighth of {@code -Dsim.seeds=N} per variant (1000 in the build, 100000 with
 * {@code -Pstress}), a tenth with membership changes. A failing seed is printed with the
 * {@code -Dsim.seed=S} that replays it.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class RingReadIndexSimulationTest {

    /** {@code 1/divisor} of the run's seeds, at least one. */
    private static int share(int divisor) {
        return Math.max(1, SimulationSeeds.count(1000) / divisor);
    }

    private static String name(Ring.Kind kind) {
        return kind == Ring.Kind.U_RING ? "u-ring" : "m-ring";
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    void queriesThroughReadIndexAreLinearizableUnderTheFullFaultMix(Ring.Kind kind) {
        RingSimulation.Scenario scenario = RingSimulation.Scenario.hostile(kind, 3);
        long[] answered = {0};
        long[] retried = {0};
        long[] ops = {0};
        int seeds = SimulationSeeds.forEach(name(kind) + " read-index", share(8), seed -> {
            RingSimulation.Outcome o = RingSimulation.run(seed, scenario, null,
                    RingSimulation.Options.NONE.readingByQueries());
            answered[0] += o.shared().queriesAnswered;
            retried[0] += o.shared().queriesRetried;
            ops[0] += o.operations();
        });
        System.out.printf("%s read-index simulation: %d seeds, %d client ops, %d queries answered, %d told to ask again%n",
                name(kind), seeds, ops[0], answered[0], retried[0]);
        assertThat(answered[0]).as("queries answered").isGreaterThan(ops[0] / 10);
        if (seeds > 20) {
            assertThat(retried[0]).as("queries refused a position (new rounds, a silent coordinator)").isPositive();
        }
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    void queriesStayLinearizableWhileTheMembersChange(Ring.Kind kind) {
        // Q2 (a quorum of every member set in effect or pending) and Q3 (no round while a change is
        // opened and undecided), with voters replaced, added and removed and the coordination handed over.
        RingSimulation.Scenario scenario = RingMembershipSimulationTest.scenario(kind);
        long[] answered = {0};
        int seeds = SimulationSeeds.forEach(name(kind) + " read-index with membership changes", share(10),
                seed -> answered[0] += RingSimulation.run(seed, scenario, null,
                        RingSimulation.Options.NONE.readingByQueries(), RingMembershipSimulationTest.CORRECT)
                        .shared().queriesAnswered);
        System.out.printf("%s read-index with membership changes: %d seeds, %d queries answered%n", name(kind), seeds,
                answered[0]);
        assertThat(answered[0]).isPositive();
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    void theCheckerCatchesACoordinatorThatAnswersQueriesWithoutConfirmingItsRound(Ring.Kind kind) {
        RingSimulation.Scenario scenario = RingSimulation.Scenario.hostile(kind, 3);
        RingSimulation.Options mutant = RingSimulation.Options.NONE.readingByUnconfirmedQueries();
        Throwable failure = null;
        long seed = 0;
        while (failure == null && seed < 2000) {
            long s = ++seed;
            failure = catchThrowable(() -> RingSimulation.run(s, scenario, null, mutant));
        }
        assertThat(failure).as("some seed of 2000 reads stale data from a replaced coordinator").isNotNull();
        assertThat(failure).hasMessageContaining("not linearizable");
        System.out.printf("%s unconfirmed queries: seed %d is not linearizable (replay with -Dsim.seed=%d)%n", name(kind),
                seed, seed);
    }
}
