package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault-injected simulations of Multi-Paxos with clients (issue: "proven in simulation"). Each seed
 * runs a hostile network (delays, 5% loss, 3% duplication, reordering), a nemesis that partitions,
 * crashes and restarts replicas (the leader included), then heals; safety is checked on every
 * decision, and liveness, convergence and linearizability at the end. The seed count comes from
 * {@code -Dsim.seeds} (1000 by default, 100000 with {@code -Pstress}); a failing seed is printed
 * with the {@code -Dsim.seed=S} that replays it.
 */
class MultiPaxosSimulationTest {

    @Test
    void threeReplicas() {
        long started = System.nanoTime();
        long[] decisions = {0};
        int seeds = SimulationSeeds.forEach("multi-paxos n=3", SimulationSeeds.count(1000), seed -> {
            PaxosSimulation.Outcome o = PaxosSimulation.run(seed, PaxosSimulation.Scenario.hostile(3));
            decisions[0] += o.decisions();
        });
        report("n=3", seeds, decisions[0], started);
        assertThat(decisions[0]).isPositive();
    }

    @Test
    void fiveReplicas() {
        long started = System.nanoTime();
        long[] decisions = {0};
        int seeds = SimulationSeeds.forEach("multi-paxos n=5", Math.max(1, SimulationSeeds.count(1000) / 4), seed -> {
            PaxosSimulation.Outcome o = PaxosSimulation.run(seed, PaxosSimulation.Scenario.hostile(5));
            decisions[0] += o.decisions();
        });
        report("n=5", seeds, decisions[0], started);
        assertThat(decisions[0]).isPositive();
    }

    @Test
    void threeReplicasThatSnapshotAndCompactTheirLogs() {
        long started = System.nanoTime();
        long[] decisions = {0};
        long[] installs = {0};
        int seeds = SimulationSeeds.forEach("multi-paxos n=3 with snapshots", Math.max(1, SimulationSeeds.count(1000) / 4), seed -> {
            PaxosSimulation.Outcome o = PaxosSimulation.run(seed, PaxosSimulation.Scenario.hostileWithSnapshots(3));
            decisions[0] += o.decisions();
            installs[0] += o.snapshotInstalls();
        });
        report("n=3 with snapshots (" + installs[0] + " snapshot installs)", seeds, decisions[0], started);
        assertThat(decisions[0]).isPositive();
        if (seeds > 20) {
            assertThat(installs[0]).as("lagging replicas had to install peers' snapshots").isPositive();
        }
    }

    private static void report(String what, int seeds, long decisions, long started) {
        System.out.printf("multi-paxos simulation %s: %d seeds, %d decisions, %.1f s%n",
                what, seeds, decisions, (System.nanoTime() - started) / 1e9);
    }
}
