package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Multi-Paxos simulations whose membership changes while the full fault mix runs (the hostile
 * scenario of {@link MultiPaxosSimulationTest}: loss, duplication, reordering, partitions
 * including one-way cuts and bridges, crashes and restarts, the leader hunted) and four clients
 * keep the group loaded: {@link MembershipNemesis} replaces voters whose disks died by fresh
 * replicas that join as learners, grows the group to five voters and shrinks it again, and
 * transfers leadership. Checked per seed as in every simulation: agreement, validity and in-order
 * delivery on every decision, at-most-once application, bounded progress after the heal,
 * liveness, convergence of the final members, linearizability. Checked over the run: every kind
 * of change happened, with snapshots (a new replica catches up by snapshot where the log was
 * compacted) and without. A mutation test shows that a change taking effect before its effective
 * instance (α = 1 while the replicas assume the window) breaks agreement or linearizability on
 * some seed.
 *
 * <p>Seeds: {@code -Dsim.seeds=N} (1000 per scenario by default, so 2000 with membership changes
 * per run of the suite; 20000 per scenario under {@code -Pstress} with {@code -Dsim.seeds=20000}).
 */
@dev.parallax.core.testkit.DeterministicSimulation
class MembershipSimulationTest {

    @Test
    void threeReplicasChangeMembersUnderTheFullFaultMix() {
        MembershipTotals t = run("n=3", SimulationSeeds.count(1000), PaxosSimulation.Scenario.hostile(3));
        t.assertEveryChangeHappened();
    }

    @Test
    void threeReplicasThatSnapshotChangeMembersAndNewcomersCatchUpBySnapshot() {
        MembershipTotals t = run("n=3 with snapshots", SimulationSeeds.count(1000), PaxosSimulation.Scenario.hostileWithSnapshots(3));
        t.assertEveryChangeHappened();
        if (t.seeds > 20) {
            assertThat(t.snapshotInstalls).as("replicas installed peers' snapshots").isPositive();
        }
    }

    @Test
    void aChangeThatTakesEffectAtItsDecisionInsteadOfItsEffectiveInstanceBreaksSomeSeed() {
        // Mutation of rule R1/R2: changes carry α = 1 while every replica assumes α = its window
        // (4 here), so a leader proposes, and learners count, instances under a membership that a
        // change decided just before them has already replaced.
        PaxosSimulation.MembershipPlan early = new PaxosSimulation.MembershipPlan(60 * PaxosSimulation.MS, 1);
        Throwable failure = null;
        long seed = 0;
        while (!brokeSafety(failure) && seed < 3000) {
            long s = ++seed;
            failure = catchThrowable(() -> PaxosSimulation.run(s, PaxosSimulation.Scenario.hostile(3), null,
                    PaxosSimulation.Wiring.MULTI_PAXOS, early));
        }
        assertThat(brokeSafety(failure)).as("some seed of 3000 breaks agreement or linearizability with changes "
                + "in effect too early; last failure: %s", failure).isTrue();
        System.out.printf("membership α=1 mutation: seed %d fails (replay with -Dsim.seed=%d): %s%n", seed, seed,
                failure.getMessage().lines().findFirst().orElse(""));
    }

    /** Agreement (two decisions for one instance, at two replicas or one) or a non-linearizable history. */
    private static boolean brokeSafety(Throwable failure) {
        if (failure == null) {
            return false;
        }
        String m = String.valueOf(failure.getMessage()) + failure.getCause();
        return m.contains("agreement") || m.contains("not linearizable") || m.contains("SafetyViolation")
                || m.contains("safety alarm");
    }

    private static MembershipTotals run(String what, int count, PaxosSimulation.Scenario scenario) {
        MembershipTotals t = new MembershipTotals();
        long started = System.nanoTime();
        t.seeds = SimulationSeeds.forEach("multi-paxos membership " + what, count, seed -> t.add(PaxosSimulation.run(seed,
                scenario, null, PaxosSimulation.Wiring.MULTI_PAXOS, PaxosSimulation.MembershipPlan.CORRECT)));
        System.out.printf("multi-paxos membership simulation %s: %d seeds, %.1f s: %s%n", what, t.seeds,
                (System.nanoTime() - started) / 1e9, t);
        t.assertFewUndecided();
        return t;
    }
}
