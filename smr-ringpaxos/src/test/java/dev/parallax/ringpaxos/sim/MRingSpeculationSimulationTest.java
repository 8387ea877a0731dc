package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.ringpaxos.Ring;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Speculative execution on M-Ring under the full fault mix (seed 003 (Marandi thesis) §4.2.1;
 * {@code mring.speculation=on}): {@link RingSimulation}'s hostile scenario (lossy, duplicating and
 * reordering links and datagram channel, partitions, crashes, a nemesis that hunts the coordinator)
 * with every member executing on the Phase 2A, answering on the decision, and undoing what ran past
 * the first undecided instance when the round changes. Checked as in every ring simulation (agreement,
 * at-most-once application, convergence, every command answered, linearizability); over the seeds,
 * rounds changed while members were speculating, and speculative commands were rolled back.
 *
 * <p>The mutation {@link RingSimulation.Options#answeringEarly()} (answer as soon as a command ran
 * speculatively, before its decision) must make some seed fail.
 *
 * <p>Seeds: a twentieth of {@code -Dsim.seeds} for n=3 and half that for n=3 with snapshots and for
 * n=5 (50, 25 and 25 in the default run, a few seconds; {@code -Dsim.seeds=N} in smr-ringpaxos/sim for more), at
 * least 4 and 2; {@code -Dsim.seed=S} replays one.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class MRingSpeculationSimulationTest {

    static RingSimulation.Scenario scenario(int replicas) {
        return RingSimulation.Scenario.hostile(RingSimulation.Scenario.config(Ring.Kind.M_RING, replicas)
                .speculation(true).build());
    }

    static int seeds() {
        return Math.max(4, SimulationSeeds.count(1000) / 20);
    }

    @Test
    @DisplayName("M-Ring n=3 speculating: coordinator changes mid-speculation roll back, the histories stay linearizable (seed 003 §4.2.1)")
    void speculationUnderTheFaultMix() {
        RingTotals t = RingTotals.run("m-ring n=3 speculation", seeds(), scenario(3));
        t.assertTheFaultsBit();
        t.assertDatagramFaultsBit();
        assertThat(t.events.getOrDefault("speculation.executed", 0L)).as("positions executed speculatively").isPositive();
        assertThat(t.events.getOrDefault("speculation.confirmed", 0L)).as("positions confirmed").isPositive();
        assertThat(t.events.getOrDefault("mring.tentatives.revoked", 0L)).as("round changes that revoked tentatives")
                .isPositive();
        assertThat(t.events.getOrDefault("speculation.rolledback", 0L)).as("speculated positions rolled back").isPositive();
    }

    @Test
    @DisplayName("M-Ring n=3 speculating with snapshots every 5 instances: snapshots hold decided state only, installs drop the speculation")
    void speculationWithSnapshots() {
        RingTotals t = RingTotals.run("m-ring n=3 speculation with snapshots", Math.max(2, seeds() / 2),
                scenario(3).withSnapshotEvery(RingSimulation.SNAPSHOT_EVERY));
        t.assertTheFaultsBit();
        t.assertSnapshotsInstalled();
        assertThat(t.events.getOrDefault("speculation.executed", 0L)).isPositive();
    }

    @Test
    @DisplayName("M-Ring n=5 speculating, gets as read-index queries: queries see decided state only")
    void speculationWithQueries() {
        long[] answered = {0};
        RingTotals t = RingTotals.run("m-ring n=5 speculation, queries", Math.max(2, seeds() / 2),
                seed -> {
                    RingSimulation.Outcome o = RingSimulation.run(seed, scenario(5), null,
                            RingSimulation.Options.NONE.readingByQueries());
                    answered[0] += o.shared().queriesAnswered;
                    return o;
                });
        t.assertTheFaultsBit();
        assertThat(answered[0]).as("queries answered").isPositive();
        assertThat(t.events.getOrDefault("speculation.executed", 0L)).isPositive();
    }

    @Test
    @DisplayName("mutation: answering before the decision makes some seed fail (the checks bite)")
    void answeringBeforeTheDecisionIsCaught() {
        RingSimulation.Options mutant = RingSimulation.Options.NONE.answeringEarly();
        Throwable failure = null;
        long seed = 0;
        while (failure == null && seed < 200) {
            long s = ++seed;
            failure = catchThrowable(() -> RingSimulation.run(s, scenario(3), null, mutant));
        }
        assertThat(failure).as("some seed of 200 answers a command whose speculative order was not decided").isNotNull();
        assertThat(failure).hasMessageContaining("not linearizable");
        System.out.printf("m-ring speculation answering early: seed %d fails (replay with -Dsim.seed=%d): %s%n", seed, seed,
                failure.getMessage().lines().findFirst().orElse(""));
    }
}
