package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.core.testkit.smr.AmnesiaPlan;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-Paxos whose replicas lose synced promises and votes when they crash, as under
 * {@code SyncPolicy.NONE} with power losses ({@link AmnesiaPlan}), over a hostile network with
 * partitions. With amnesia recovery the safety monitor (agreement, validity, at-most-once, order),
 * liveness, convergence and linearizability hold on every seed; without it, some seed breaks
 * agreement, which shows that these runs do exercise the lost votes. With snapshots on,
 * replicas also compact their logs every few instances, so an amnesiac restart may find
 * its own snapshot (which survives, like a file) above whatever is left of its log, and a lagging
 * replica installs a peer's snapshot.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class AmnesiaSimulationTest {
    private static final long MS = PaxosSimulation.MS;

    static PaxosSimulation.Scenario scenario(int replicas) {
        PaxosSimulation.Scenario h = PaxosSimulation.Scenario.hostile(replicas);
        return h.withPlan(h.plan().withNemesis(h.plan().nemesisInterval(), 0, true));
    }

    @Test
    void threeReplicasWithAmnesiaRecoverAndStaySafe() {
        long[] crashes = {0};
        long[] decisions = {0};
        int seeds = SimulationSeeds.forEach("amnesia n=3", Math.max(1, SimulationSeeds.count(1000) * 3 / 10), seed -> {
            AmnesiaPlan plan = new AmnesiaPlan(true, 100 * MS);
            PaxosSimulation.Outcome o = PaxosSimulation.run(seed, scenario(3), plan);
            crashes[0] += plan.crashes();
            decisions[0] += o.decisions();
        });
        System.out.printf("amnesia simulation n=3: %d seeds, %d amnesiac crashes, %d decisions%n", seeds, crashes[0], decisions[0]);
        assertThat(decisions[0]).isPositive();
        assertThat(crashes[0]).as("replicas crashed and lost synced records").isGreaterThanOrEqualTo(seeds);
    }

    @Test
    void fiveReplicasWithAmnesiaRecoverAndStaySafe() {
        long[] crashes = {0};
        int seeds = SimulationSeeds.forEach("amnesia n=5", Math.max(1, SimulationSeeds.count(1000) / 10), seed -> {
            AmnesiaPlan plan = new AmnesiaPlan(true, 100 * MS);
            PaxosSimulation.run(seed, scenario(5), plan);
            crashes[0] += plan.crashes();
        });
        System.out.printf("amnesia simulation n=5: %d seeds, %d amnesiac crashes%n", seeds, crashes[0]);
        assertThat(crashes[0]).isGreaterThanOrEqualTo(seeds);
    }

    @Test
    void threeReplicasWithAmnesiaAndSnapshotsRecoverAndStaySafe() {
        long[] totals = new long[3];
        int seeds = SimulationSeeds.forEach("amnesia with snapshots n=3", Math.max(1, SimulationSeeds.count(1000) * 3 / 10),
                seed -> {
                    AmnesiaPlan plan = new AmnesiaPlan(true, 100 * MS);
                    PaxosSimulation.Outcome o = PaxosSimulation.run(seed,
                            scenario(3).withSnapshotEvery(PaxosSimulation.SNAPSHOT_EVERY), plan);
                    totals[0] += plan.crashes();
                    totals[1] += o.decisions();
                    totals[2] += o.snapshotInstalls();
                });
        System.out.printf("amnesia simulation with snapshots n=3: %d seeds, %d amnesiac crashes, %d decisions, %d snapshot"
                + " installs%n", seeds, totals[0], totals[1], totals[2]);
        assertThat(totals[1]).isPositive();
        assertThat(totals[0]).as("replicas crashed and lost synced records").isGreaterThanOrEqualTo(seeds);
        if (seeds > 20) {
            assertThat(totals[2]).as("replicas installed peers' snapshots").isPositive();
        }
    }

    @Test
    void withoutRecoverySomeSeedBreaksAgreement() {
        String violation = null;
        long seed = 1;
        for (; seed <= 300 && violation == null; seed++) {
            try {
                PaxosSimulation.run(seed, scenario(3), new AmnesiaPlan(false, 100 * MS));
            } catch (Throwable t) {
                violation = agreementViolation(t);
            }
        }
        assertThat(violation).as("a run without amnesia recovery broke agreement").isNotNull()
                .contains("agreement: replica");
        System.out.printf("without amnesia recovery, seed %d broke agreement: %s%n", seed - 1, violation);
    }

    /** The safety monitor's agreement message in {@code t}'s cause chain, or null. */
    private static String agreementViolation(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (m != null && m.contains("agreement: replica")) {
                return m.substring(m.indexOf("agreement: replica")).lines().findFirst().orElse(m);
            }
        }
        return null;
    }
}
