package dev.parallax.scheduler.ssmr;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.Verdict;
import dev.parallax.core.testkit.DeterministicSimulation;
import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The S-SMR simulation with caching on over {@code -Dsim.seeds} seeds (1000 by default; -Pstress
 * 100000), in the simulations execution ({@code mvn surefire:test@simulations -pl smr-scheduler}).
 * See {@link SsmrCacheSimulationTest} for the default run's seeds.
 */
@DeterministicSimulation
class SsmrCacheSimulationsTest {
    @Test
    void withCachingEverySeedIsLinearizableAndAgreesWithinPartitions() {
        int seeds = SimulationSeeds.count(1000);
        long[] totals = new long[7];
        SimulationSeeds.forEach("s-smr with caching", seeds, seed -> {
            CheckResult result = SsmrCacheSimulation.run(seed, SsmrCacheConfig.ON, totals);
            assertThat(result.verdict()).as(result.report()).isEqualTo(Verdict.LINEARIZABLE);
        });
        System.out.println("SsmrCacheSimulationsTest: " + seeds + " seeds, " + SsmrCacheSimulation.describe(totals));
    }
}
