package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * S-Paxos simulations whose membership changes while the full fault mix runs (seed 002 (S-Paxos)
 * §IV over the ordering layer's membership changes): the hostile scenario of
 * {@link SPaxosSimulationTest} over {@link SPaxosSimReplica}s, and the {@link MembershipNemesis} of
 * {@link MembershipSimulationTest} — voters whose disks died replaced by fresh replicas that join as
 * learners (ids from 3 up), the group grown to five voters and shrunk again, leadership
 * transferred. Dissemination follows the ordering layer's membership ({@code DisseminationCore}
 * rules M1–M5): a learner receives and fetches bodies and executes, stability counts the voters
 * in effect, a removed replica is neither counted nor waited for. Checked per seed as in every
 * S-Paxos simulation: agreement on the ordered id lists, validity (only stable ids are proposed),
 * bodies executed are their origin's bytes, no id executes twice and every replica executes a
 * prefix of one sequence, at-most-once per command; after the heal, bounded progress, every
 * command answered, convergence of the final members, linearizability. Over the run: every kind
 * of change happened, with snapshots (a newcomer installs one, its delivery state carrying the
 * executed ids and the membership history) and without.
 *
 * <p>Seeds: {@code SimulationSeeds.count(1000)} per test (2000 per run of the suite by
 * default; 20000 under {@code -Pstress} with {@code -Dsim.seeds=20000}).
 */
@dev.parallax.core.testkit.DeterministicSimulation
class SPaxosMembershipSimulationTest {

    @Test
    @DisplayName("n=3 changing members under the full fault mix: safe and live, every kind of change happens")
    void threeReplicasChangeMembers() {
        MembershipTotals t = run("n=3", SimulationSeeds.count(1000), PaxosSimulation.Scenario.hostile(3));
        t.assertEveryChangeHappened();
    }

    @Test
    @DisplayName("n=3 with snapshots changing members: newcomers install snapshots carrying the membership history")
    void threeReplicasThatSnapshotChangeMembers() {
        MembershipTotals t = run("n=3 with snapshots", SimulationSeeds.count(1000),
                PaxosSimulation.Scenario.hostileWithSnapshots(3));
        t.assertEveryChangeHappened();
        if (t.seeds > 20) {
            assertThat(t.snapshotInstalls).as("replicas installed peers' snapshots").isPositive();
        }
    }

    private static MembershipTotals run(String what, int count, PaxosSimulation.Scenario scenario) {
        MembershipTotals t = new MembershipTotals();
        long[] executions = new long[1];
        long[] resends = new long[1];
        long started = System.nanoTime();
        t.seeds = SimulationSeeds.forEach("s-paxos membership " + what, Math.max(1, count), seed -> {
            SPaxosSimulation.Result r = SPaxosSimulation.run(seed, scenario, null, SPaxosSimulation.Options.NONE,
                    PaxosSimulation.MembershipPlan.CORRECT);
            t.add(r.outcome());
            executions[0] += r.shared().execution.executions();
            resends[0] += r.shared().event("resends.sent");
        });
        System.out.printf("s-paxos membership simulation %s: %d seeds, %.1f s: %s; %d instance executions, %d RESENDFORWARDs%n",
                what, t.seeds, (System.nanoTime() - started) / 1e9, t, executions[0], resends[0]);
        t.assertFewUndecided();
        assertThat(executions[0]).as("instances executed").isPositive();
        return t;
    }
}
