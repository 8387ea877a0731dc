package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * S-Paxos whose replicas lose synced records when they crash, one amnesiac at a time
 * ({@link AmnesiaPlan}: {@code SyncPolicy.NONE} with power losses), over the hostile network with
 * partitions (no nemesis crashes). The ordering layer recovers as Multi-Paxos does before it votes
 * again. Safety — agreement on id lists, validity, bodies, exactly-once execution, at-most-once per
 * command, linearizability — holds on every seed.
 *
 * <p>Liveness does not, and this test says how often: dissemination has no amnesia recovery. A
 * replica that acked a body and then lost it in an amnesiac crash still counts as a holder at its
 * peers (they keep the highest watermark it ever acked, plan §1.2 rule 7), so an id can be stable
 * and decided while a later amnesiac crash of its last real holder loses it everywhere; execution
 * then waits for it forever (seed 53 of n=3 at the time of writing: every replica asks replica 0
 * for {@code 0:548582956:6}, which none holds). Such runs fail only the progress, liveness or
 * convergence checks; they are counted and printed, and must stay rare. Seeds: 3/10 of
 * {@code -Dsim.seeds} for n=3 and 1/10 for n=5 (a failure prints {@code -Dsim.seed=S}).
 */
class SPaxosAmnesiaSimulationTest {
    private static final long MS = PaxosSimulation.MS;

    @Test
    @DisplayName("n=3, one amnesiac replica at a time: always safe; bodies lost everywhere only rarely stall execution (seed 002 (S-Paxos) §IV-B a)")
    void threeReplicas() {
        check("n=3", 3, Math.max(1, SimulationSeeds.count(1000) * 3 / 10));
    }

    @Test
    @DisplayName("n=5, one amnesiac replica at a time: always safe; bodies lost everywhere only rarely stall execution")
    void fiveReplicas() {
        check("n=5", 5, Math.max(1, SimulationSeeds.count(1000) / 10));
    }

    private static void check(String what, int n, int count) {
        long[] crashes = {0};
        long[] executions = {0};
        List<Long> stalled = new ArrayList<>();
        int seeds = SimulationSeeds.forEach("s-paxos amnesia " + what, count, seed -> {
            AmnesiaPlan plan = new AmnesiaPlan(true, 100 * MS);
            try {
                SPaxosSimulation.Result r = SPaxosSimulation.run(seed, AmnesiaSimulationTest.scenario(n), plan,
                        SPaxosSimulation.Options.NONE);
                executions[0] += r.shared().execution.executions();
            } catch (AssertionError failure) {
                if (!livenessOnly(failure)) {
                    throw failure;
                }
                stalled.add(seed);
            }
            crashes[0] += plan.crashes();
        });
        System.out.printf("s-paxos amnesia %s: %d seeds, %d amnesiac crashes, %d instance executions; execution"
                + " stalled (a body lost everywhere) in seeds %s%n", what, seeds, crashes[0], executions[0], stalled);
        assertThat(executions[0]).isPositive();
        assertThat(crashes[0]).as("replicas crashed and lost synced records").isGreaterThanOrEqualTo(seeds);
        assertThat(stalled.size()).as("runs that lost liveness: %s", stalled).isLessThanOrEqualTo(Math.max(1, seeds / 50));
    }

    /** Whether {@code failure} is a progress, liveness or convergence failure and nothing else. */
    private static boolean livenessOnly(Throwable failure) {
        String first = null;
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c.getMessage() != null && (c.getMessage().contains("progress: command")
                    || c.getMessage().contains("liveness: client commands")
                    || c.getMessage().contains("did not converge"))) {
                first = c.getMessage();
            }
        }
        return first != null && !first.contains("not linearizable");
    }
}
