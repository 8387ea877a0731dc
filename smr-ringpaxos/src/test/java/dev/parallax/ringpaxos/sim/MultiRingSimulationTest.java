package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import dev.parallax.core.testkit.multicast.LogicalMerge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Fault-injected simulations of Multi-Ring Paxos (issue 15 item 5; seed 003 (Ring Paxos / Multi-Ring
 * / P-SMR) ch. 5, Alg. 1, Prop. 4; plan rules 1-3): see {@link MultiRingSimulation}.
 *
 * <p>Seeds ({@link SimulationSeeds}; a failure prints the {@code -Dsim.seed=S} that replays it):
 * {@code -Dsim.seeds} (1000 by default, more under {@code -Pstress}).
 */
class MultiRingSimulationTest {

    @Test
    @DisplayName("Multi-Ring, random rings/λ/Δ/M/subscriptions, hostile network: exactly-once, agreement, acyclic order, validity after the heal (seed 003 ch. 5, Alg. 1, Prop. 4)")
    void hostileRuns() {
        long[] totals = new long[6];
        long started = System.nanoTime();
        int seeds = SimulationSeeds.forEach("multi-ring", SimulationSeeds.count(1000), seed -> {
            MultiRingSimulation.Outcome o = MultiRingSimulation.run(seed, MultiRingSimulation.Scenario.hostile(seed));
            totals[0] += o.multicasts();
            totals[1] += o.delivered();
            totals[2] += o.stats().crashes();
            totals[3] += o.stats().datagramsLost();
            totals[4] += o.world().skipsFed;
            totals[5] += o.required();
        });
        System.out.printf("multi-ring: %d seeds in %d ms: %d multicast, %d required, %d deliveries, %d crashes, "
                        + "%d datagrams lost, %d skips fed%n", seeds, (System.nanoTime() - started) / 1_000_000,
                totals[0], totals[5], totals[1], totals[2], totals[3], totals[4]);
        assertThat(totals[1]).isPositive();
    }

    /** The first seed of 200 on which learners of process 0 merging with {@code flaw} fail a check, and the failure. */
    private static Throwable caught(LogicalMerge.Flaw flaw, int roundLength) {
        for (long seed = 1; seed <= 200; seed++) {
            MultiRingSimulation.Scenario s = MultiRingSimulation.Scenario.hostile(seed).withFlaw(flaw, 0);
            if (roundLength > 0) {
                s = s.withRoundLength(roundLength);
            }
            MultiRingSimulation.Scenario scenario = s;
            long at = seed;
            Throwable t = catchThrowable(() -> MultiRingSimulation.run(at, scenario));
            if (t != null) {
                System.out.printf("multi-ring %s: caught at seed %d: %s%n", flaw, seed, t.getMessage().lines().findFirst().orElse(""));
                return t;
            }
        }
        return null;
    }

    @Test
    @DisplayName("Mutation: learners ordering by (l, stream) instead of (⌊l/M⌋, stream) with M = 3 break the acyclic order")
    void rawOrderIsCaught() {
        assertThat(caught(LogicalMerge.Flaw.RAW_ORDER, 3)).isNotNull().hasMessageFindingMatch("agreement|order");
    }

    @Test
    @DisplayName("Mutation: learners that ignore skips are caught")
    void ignoringSkipsIsCaught() {
        assertThat(caught(LogicalMerge.Flaw.IGNORE_SKIPS, 0)).isNotNull();
    }

    @Test
    @DisplayName("Mutation: learners that deliver a message decided twice again fail exactly-once")
    void noDedupeIsCaught() {
        assertThat(caught(LogicalMerge.Flaw.NO_DEDUPE, 0)).isNotNull().hasMessageContaining("exactly-once");
    }

    @Test
    @DisplayName("Mutation: learners that do not wait for a stream with nothing decided are caught")
    void noWaitIsCaught() {
        assertThat(caught(LogicalMerge.Flaw.NO_WAIT, 0)).isNotNull();
    }
}
