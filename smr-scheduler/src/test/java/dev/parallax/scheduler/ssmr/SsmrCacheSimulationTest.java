package dev.parallax.scheduler.ssmr;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.Verdict;
import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The S-SMR deterministic simulation with caching on (seed 004 (S-SMR) §IV-C, {@link CachedExchange})
 * in the default run: a few seeds ({@value #SEEDS}; the simulations execution runs
 * {@code -Dsim.seeds} of them, {@link SsmrCacheSimulationsTest}), and the mutation test: with owners
 * that always answer ⊥ ({@link SsmrCacheConfig#unsafeAlwaysCurrent}) some seed must not be
 * linearizable. A failure prints the {@code -Dsim.seed=S} that replays it.
 */
class SsmrCacheSimulationTest {
    private static final int SEEDS = 12;

    @Test
    void withCachingAFewSeedsAreLinearizableAndAgreeWithinPartitions() {
        long[] totals = new long[7];
        SimulationSeeds.forEach("s-smr with caching", SEEDS, seed -> {
            CheckResult result = SsmrCacheSimulation.run(seed, SsmrCacheConfig.ON, totals);
            assertThat(result.verdict()).as(result.report()).isEqualTo(Verdict.LINEARIZABLE);
        });
        System.out.println("SsmrCacheSimulationTest: " + SEEDS + " seeds, " + SsmrCacheSimulation.describe(totals));
        if (System.getProperty("sim.seed") == null) {
            assertThat(totals[1]).as("variables answered with ⊥").isPositive();
            assertThat(totals[0]).as("variables answered with their value").isPositive();
        }
    }

    @Test
    void readersThatLoseTheirCacheAskForEveryValueAndStayLinearizable() {
        // CachedExchange rule 5: a replica restarted from a snapshot without its caching state gets
        // ⊥ it cannot resolve, drops them, and asks for every value (FullRequest).
        long[] totals = new long[7];
        SimulationSeeds.forEach("s-smr with caches lost on restore", SEEDS, seed -> {
            CheckResult result = SsmrCacheSimulation.run(seed, SsmrCacheConfig.ON, true, totals);
            assertThat(result.verdict()).as(result.report()).isEqualTo(Verdict.LINEARIZABLE);
        });
        System.out.println("SsmrCacheSimulationTest: caches lost on restore, " + SsmrCacheSimulation.describe(totals));
        if (System.getProperty("sim.seed") == null) {
            assertThat(totals[2]).as("unresolvable ⊥ (misses)").isPositive();
            assertThat(totals[4]).as("full requests answered").isPositive();
        }
    }

    @Test
    void ownersThatAlwaysAnswerCurrentMakeSomeSeedNotLinearizable() {
        // The mutation: ⊥ for every variable, whatever was written since the reader's copy. Readers
        // that hold an old copy read it; the linearizability check must catch it.
        SsmrCacheConfig mutated = SsmrCacheConfig.ON.withUnsafeAlwaysCurrent(true);
        long[] totals = new long[7];
        long found = -1;
        for (long seed = 1; seed <= 200 && found < 0; seed++) {
            if (SsmrCacheSimulation.run(seed, mutated, totals).verdict() == Verdict.NOT_LINEARIZABLE) {
                found = seed;
            }
        }
        System.out.println("SsmrCacheSimulationTest: ⊥ always, first non-linearizable seed " + found);
        assertThat(found).as("a non-linearizable seed with owners that always answer ⊥").isPositive();
    }
}
