package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.core.testkit.smr.AmnesiaPlan;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * S-Paxos whose replicas lose synced records when they crash, one amnesiac at a time
 * ({@link AmnesiaPlan}: {@code SyncPolicy.NONE} with power losses; the driver crashes a replica
 * only while none is recovering, ordering or dissemination), over the hostile network with
 * partitions (no nemesis crashes). The ordering layer recovers as Multi-Paxos does before it votes
 * again; dissemination fetches again every body its peers may still count it as a holder of before
 * it counts as recovered (docs/protocols/s-paxos.md "Recovery from amnesia"). Safety — agreement on
 * id lists, validity, bodies, exactly-once execution, at-most-once per command, linearizability —
 * and liveness, progress and convergence hold on every seed.
 *
 * <p>Without dissemination's recovery, a replica that acked a body and lost it still counted as a
 * holder, and a later amnesiac crash of the last real holder lost a decided id everywhere: seeds 53
 * and 54 of n=3 stalled execution forever. Seeds: 3/10 of {@code -Dsim.seeds} for n=3 and 1/10 for
 * n=5 under {@code -Pstress} (30,000 and 10,000), half of that in the default run (150 and 50; its
 * 15-minute budget); a failure prints {@code -Dsim.seed=S}.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class SPaxosAmnesiaSimulationTest {
    private static final long MS = PaxosSimulation.MS;

    @Test
    @DisplayName("n=3, one amnesiac replica at a time: safe and live, dissemination recovers lost bodies (seed 002 (S-Paxos) §IV-B a)")
    void threeReplicas() {
        check("n=3", 3, halvedByDefault(SimulationSeeds.count(1000) * 3 / 10));
    }

    @Test
    @DisplayName("n=5, one amnesiac replica at a time: safe and live, dissemination recovers lost bodies (seed 002 (S-Paxos) §IV-B a)")
    void fiveReplicas() {
        check("n=5", 5, halvedByDefault(SimulationSeeds.count(1000) / 10));
    }

    /** {@code seeds} under {@code -Pstress} ({@code -Dparallax.stress=true}), half of them in the default run; at least 1. */
    private static int halvedByDefault(int seeds) {
        return Math.max(1, Boolean.getBoolean("parallax.stress") ? seeds : seeds / 2);
    }

    private static void check(String what, int n, int count) {
        long[] crashes = {0};
        long[] executions = {0};
        Map<String, Long> events = new HashMap<>();
        int seeds = SimulationSeeds.forEach("s-paxos amnesia " + what, count, seed -> {
            AmnesiaPlan plan = new AmnesiaPlan(true, 100 * MS);
            SPaxosSimulation.Result r = SPaxosSimulation.run(seed, AmnesiaSimulationTest.scenario(n), plan,
                    SPaxosSimulation.Options.NONE);
            executions[0] += r.shared().execution.executions();
            r.shared().events.forEach((k, v) -> events.merge(k, v, Long::sum));
            crashes[0] += plan.crashes();
        });
        long recovered = events.getOrDefault("dissemination.recovered", 0L);
        System.out.printf("s-paxos amnesia %s: %d seeds, %d amnesiac crashes, %d dissemination recoveries,"
                + " %d instance executions%n", what, seeds, crashes[0], recovered, executions[0]);
        assertThat(executions[0]).isPositive();
        assertThat(crashes[0]).as("replicas crashed and lost synced records").isGreaterThanOrEqualTo(seeds);
        assertThat(recovered).as("amnesiac starts completed dissemination's recovery").isPositive();
    }
}
