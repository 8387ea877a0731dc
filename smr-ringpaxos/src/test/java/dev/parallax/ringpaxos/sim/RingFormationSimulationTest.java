package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.ringpaxos.Ring;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rings that always form ({@link RingFormationSimulation}; rule C8; seed 003 (Ring Paxos) §3.3.5
 * and Appendix Prop. 2): members that detect failures as replicas do (the runtime's
 * {@code MemberDetector} over arrival stamps), started one after another over a lossy network, or
 * without member 0 at all, form a ring and decide every client command; safety is checked on every
 * event.
 *
 * <p>Seeds ({@link SimulationSeeds}; a failure prints the {@code -Dsim.seed=S} that replays it): the
 * staggered starts of four members run {@link #seeds()} seeds per variant (1,000 by default,
 * 20,000 under {@code -Pstress}, where {@code -Dsim.seeds} is 100,000), those of six members
 * {@link #sixMemberSeeds()} (250 by default, 20,000 under {@code -Pstress} as four members: each of
 * its seeds costs about four of four members', and the default run's 15-minute budget is tight), the cold starts
 * without member 0 a quarter of {@link #seeds()}.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class RingFormationSimulationTest {

    /** {@code max(1000, sim.seeds / 5)}: 1,000 by default, 20,000 under {@code -Pstress}. */
    static int seeds() {
        return Math.max(1_000, SimulationSeeds.count(1000) / 5);
    }

    /** {@code max(250, sim.seeds / 5)}: 250 by default, 20,000 under {@code -Pstress} (as {@link #seeds()}). */
    static int sixMemberSeeds() {
        return Math.max(250, SimulationSeeds.count(1000) / 5);
    }

    private static Totals run(String name, int count, RingFormationSimulation.Scenario scenario) {
        Totals t = new Totals();
        long started = System.nanoTime();
        int ran = SimulationSeeds.forEach(name, count, seed -> t.add(RingFormationSimulation.run(seed, scenario)));
        System.out.printf("%s: %d seeds in %.1f s, %d decisions, %d rounds other than 0 led, %d re-formations, "
                        + "%d step-downs, slowest first decision at %d ms, 0 violations%n", name, ran,
                (System.nanoTime() - started) / 1e9, t.decisions, t.roundChanges, t.reformations, t.stepDowns,
                t.slowestFormation / RingFormationSimulation.MS);
        assertThat(t.decisions).isPositive();
        return t;
    }

    /** Sums over a test's seeds. */
    static final class Totals {
        long decisions;
        long roundChanges;
        long reformations;
        long stepDowns;
        long slowestFormation;

        void add(RingFormationSimulation.Outcome o) {
            decisions += o.decisions();
            roundChanges += o.roundChanges();
            reformations += o.shared().reformations;
            stepDowns += o.shared().stepDowns;
            slowestFormation = Math.max(slowestFormation, o.formedAt());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Ring.Kind.class)
    @DisplayName("n=4, members started up to 1 s apart, the runtime's member detector: a ring forms and decides every command")
    void fourMembersStaggered(Ring.Kind kind) {
        Totals t = run(kind + " n=4 staggered", seeds(), RingFormationSimulation.Scenario.staggered(kind, 4, 1_000));
        assertThat(t.roundChanges).as("rounds other than 0 were led (member 0 is not always first)").isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Ring.Kind.class)
    @DisplayName("n=6, members started up to 1 s apart, the runtime's member detector: a ring forms and decides every command")
    void sixMembersStaggered(Ring.Kind kind) {
        Totals t = run(kind + " n=6 staggered", sixMemberSeeds(), RingFormationSimulation.Scenario.staggered(kind, 6, 1_000));
        assertThat(t.roundChanges).isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Ring.Kind.class)
    @DisplayName("cold start with member 0 never started, n=3 and n=6, the runtime's member detector: another member forms a ring and decides")
    void coldStartWithoutMemberZero(Ring.Kind kind) {
        Totals three = run(kind + " n=3 without member 0", seeds() / 4,
                RingFormationSimulation.Scenario.withoutMemberZero(kind, 3, 500));
        Totals six = run(kind + " n=6 without member 0", seeds() / 4,
                RingFormationSimulation.Scenario.withoutMemberZero(kind, 6, 500));
        assertThat(three.roundChanges).isPositive();
        assertThat(six.roundChanges).isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Ring.Kind.class)
    @DisplayName("n=3, the coordinator crashes while the others are cut apart for 1 s: each one's suspicion and Phase 1 come to nothing, yet once the cut ends they form a ring without it (the runtime's detector suspects a silent coordinator again)")
    void coordinatorCrashDuringSplit(Ring.Kind kind) {
        Totals t = run(kind + " n=3 coordinator crash during a split", seeds() / 8,
                RingFormationSimulation.Scenario.coordinatorCrashDuringSplit(kind, 3));
        assertThat(t.roundChanges).isPositive();
    }
}
