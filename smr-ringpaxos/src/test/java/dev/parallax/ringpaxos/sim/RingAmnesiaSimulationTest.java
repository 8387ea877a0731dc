package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.core.testkit.smr.AmnesiaPlan;
import dev.parallax.ringpaxos.Ring;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ring Paxos whose members lose synced promises and votes when they crash, as under
 * {@code log.sync=none} with power losses ({@link AmnesiaPlan}: one amnesiac member at a time, the
 * driver crashes nobody while one recovers), over the hostile network with partitions and no
 * nemesis crashes. Recovery (rule C10, {@code RingRecovery}: Multi-Paxos' fence recovery with
 * rounds as fences) keeps every check green: agreement and validity, the ring facts
 * ({@link QuorumWitness} remembers the votes a member lost, so a decision still needs all the ring
 * acceptors' votes), at-most-once, progress, convergence, linearizability; without recovery some seed breaks
 * agreement (seed 4 of U-Ring, 7 of M-Ring when this was written). Seeds: 3/10 of
 * {@code -Dsim.seeds} per variant of n=3 under {@code -Pstress} (30,000), half of that in the
 * default run (150; its 15-minute budget; {@link RingTotals#variantSeeds}), n=4 1/16 per variant; a
 * failure prints {@code -Dsim.seed=S}.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class RingAmnesiaSimulationTest {
    private static final long MS = RingSimulation.MS;

    /** The hostile scenario whose nemesis partitions but does not crash: the amnesia driver crashes. */
    static RingSimulation.Scenario scenario(Ring.Kind kind, int replicas) {
        RingSimulation.Scenario h = RingSimulation.Scenario.hostile(kind, replicas);
        return h.withPlan(h.plan().withNemesis(h.plan().nemesisInterval(), 0, true));
    }

    @Test
    @DisplayName("U-Ring n=3, one amnesiac member at a time: safe and live with fence recovery (rule C10; "
            + "seed 003 (Ring Paxos) §3.3.5)")
    void uRing() {
        check("u-ring amnesia n=3", Ring.Kind.U_RING, 3, RingTotals.variantSeeds(10) * 3);
    }

    @Test
    @DisplayName("M-Ring n=3, one amnesiac member at a time: safe and live with fence recovery (rule C10; "
            + "seed 003 (Ring Paxos) §3.3.5)")
    void mRing() {
        check("m-ring amnesia n=3", Ring.Kind.M_RING, 3, RingTotals.variantSeeds(10) * 3);
    }

    @Test
    @DisplayName("n=4, even: one amnesiac member at a time, recovery needs n − quorum + 1 = 2 fenced answers, U-Ring and "
            + "M-Ring: safe and live (rule C10; seed 003 (Ring Paxos) §3.2 m-quorum, §3.3.5)")
    void evenRings() {
        check("u-ring amnesia n=4", Ring.Kind.U_RING, 4, SimulationSeeds.count(1000) / 16);
        check("m-ring amnesia n=4", Ring.Kind.M_RING, 4, SimulationSeeds.count(1000) / 16);
    }

    @Test
    @DisplayName("Seeds that found engine bugs pass (bug B3: a recovery Trim kept across a later amnesiac crash left the "
            + "learner unable to deliver below it; rule C10)")
    void seedsThatFoundEngineBugs() {
        // B3: member 2 restarted with trimmedBelow = 30 (RingRecovery's Trim(H)) and firstUndecided = 0,
        // refused every decision below 30 and never converged.
        assertThat(RingSimulation.run(1, scenario(Ring.Kind.U_RING, 3), new AmnesiaPlan(true, 100 * MS),
                RingSimulation.Options.NONE).decisions()).isPositive();
        // B3 on M-Ring: member 1 restarted with trimmedBelow = 45 and firstUndecided = 0.
        assertThat(RingSimulation.run(1, scenario(Ring.Kind.M_RING, 3), new AmnesiaPlan(true, 100 * MS),
                RingSimulation.Options.NONE).decisions()).isPositive();
    }

    @Test
    @DisplayName("Mutation: without amnesia recovery some seed breaks agreement, U-Ring and M-Ring (the runs do exercise "
            + "lost votes; rule C10)")
    void withoutRecoverySomeSeedBreaksAgreement() {
        for (Ring.Kind kind : Ring.Kind.values()) {
            String violation = null;
            long seed = 0;
            while (violation == null && seed < 300) {
                seed++;
                try {
                    RingSimulation.run(seed, scenario(kind, 3), new AmnesiaPlan(false, 100 * MS),
                            RingSimulation.Options.NONE.withoutAmnesiaRecovery());
                } catch (Throwable t) {
                    violation = agreementViolation(t);
                }
            }
            assertThat(violation).as("%s: a run without amnesia recovery broke agreement", kind).isNotNull();
            System.out.printf("%s without amnesia recovery: seed %d broke agreement: %s%n", kind, seed, violation);
        }
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

    private static void check(String name, Ring.Kind kind, int replicas, int seeds) {
        long[] crashes = {0};
        RingTotals t = RingTotals.run(name, Math.max(1, seeds), seed -> {
            AmnesiaPlan plan = new AmnesiaPlan(true, 100 * MS);
            RingSimulation.Outcome o = RingSimulation.run(seed, scenario(kind, replicas), plan, RingSimulation.Options.NONE);
            crashes[0] += plan.crashes();
            return o;
        });
        System.out.printf("%s: %d amnesiac crashes%n", name, crashes[0]);
        assertThat(t.decisions).isPositive();
        assertThat(t.witnessed).as("decisions witnessed by a full ring quorum").isPositive();
        assertThat(crashes[0]).as("members crashed and lost synced records").isGreaterThanOrEqualTo(t.seeds);
    }
}
