package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import dev.parallax.core.testkit.multicast.LogicalMerge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Fault-injected simulations of Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5,
 * Alg. 1, Prop. 4; logical numbering, skips at λ, the cap): k group rings and the global ring in one world,
 * U-Ring or M-Ring each, skips at λ, learners with random subscriptions merging by (⌊l/M⌋, stream),
 * the ring simulations' hostile faults (see {@link MultiRingSimulation}). Checked on every run:
 * exactly-once, integrity, agreement per subscription, ring agreement, an acyclic union of the
 * delivery orders, and after the heal uniform agreement and validity. Over the seeds every fault
 * kind is asserted to have happened; a seed replays to the same trace; and learners with a broken
 * merge are caught on some seed (the checkers can fail).
 *
 * <p>Seeds ({@link SimulationSeeds}; a failure prints the {@code -Dsim.seed=S} that replays it):
 * {@code -Dsim.seeds} (400 by default, about 15 s on a loaded 2-core machine — the same hostile mix
 * runs with membership changes on top for 2,000 seeds in {@code MultiRingMembershipSimulationTest};
 * 100000 under {@code -Pstress}); the partitioned case a sixteenth of {@code -Dsim.seeds} (25 by default).
 */
@dev.parallax.core.testkit.DeterministicSimulation
class MultiRingSimulationTest {

    @Test
    @DisplayName("Multi-Ring, random rings/λ/Δ/M/subscriptions, hostile network: exactly-once, agreement, acyclic order, validity after the heal (seed 003 ch. 5, Alg. 1, Prop. 4)")
    void hostileRuns() {
        long[] t = new long[14];
        long started = System.nanoTime();
        int seeds = SimulationSeeds.forEach("multi-ring", SimulationSeeds.count(400), seed -> {
            MultiRingSimulation.Scenario scenario = MultiRingSimulation.Scenario.hostile(seed);
            MultiRingSimulation.Outcome o = MultiRingSimulation.run(seed, scenario);
            t[0] += o.multicasts();
            t[1] += o.required();
            t[2] += o.delivered();
            t[3] += o.stats().crashes();
            t[4] += o.stats().leaderCrashes() + o.stats().leaderIsolations() + o.stats().leaderPartialCuts();
            t[5] += o.stats().partitionsStarted() + o.stats().oneWayCuts() + o.stats().bridges();
            t[6] += o.stats().dropped() + o.stats().duplicated();
            t[7] += o.stats().datagramsLost() + o.stats().datagramsDuplicated();
            t[8] += o.world().skipsFed;
            t[9] += scenario.roundLength() > 1 ? 1 : 0;
            t[10] += o.world().checker.learners().size();
            t[11] += o.world().refused;
            t[12] += o.stats().pauses();
            t[13] += o.stats().crashAlls();
        });
        System.out.printf("multi-ring: %d seeds in %d ms: %d multicast (%d refused at the origin), %d from live origins, "
                        + "%d deliveries by %d learner incarnations; %d crashes, %d coordinator hits, %d partitions/cuts, "
                        + "%d messages lost or duplicated, %d datagrams lost or duplicated, %d skips fed, %d seeds with M > 1, "
                        + "%d pauses, %d crashes of all%n",
                seeds, (System.nanoTime() - started) / 1_000_000, t[0], t[11], t[1], t[2], t[10], t[3], t[4], t[5], t[6],
                t[7], t[8], t[9], t[12], t[13]);
        assertThat(t[2]).as("deliveries").isGreaterThan(t[1]);
        if (seeds >= 50) {
            assertThat(t[3]).as("crashes").isPositive();
            assertThat(t[4]).as("coordinators hunted").isPositive();
            assertThat(t[5]).as("partitions").isPositive();
            assertThat(t[6]).as("link faults").isPositive();
            assertThat(t[7]).as("datagram faults").isPositive();
            assertThat(t[8]).as("skips").isPositive();
            assertThat(t[9]).as("seeds with M > 1").isPositive();
            assertThat(t[12]).as("pauses").isPositive();
            assertThat(t[13]).as("crashes of every process").isPositive();
        }
    }

    @Test
    @DisplayName("S-SMR's rings: partitions {0,1,2} and {3,4,5} with a ring each, the global ring over all six (even: "
            + "quorum 4), learners subscribing to their own group only, hostile network: exactly-once, agreement, acyclic "
            + "order, validity (seed 004 (S-SMR) §IV; seed 003 ch. 5 §5.2, §3.2 m-quorum)")
    void partitionedRuns() {
        long[] t = new long[8];
        long started = System.nanoTime();
        int seeds = SimulationSeeds.forEach("multi-ring partitioned", SimulationSeeds.count(400) / 16, seed -> {
            MultiRingSimulation.Scenario scenario = MultiRingSimulation.Scenario.partitioned(seed);
            MultiRingSimulation.Outcome o = MultiRingSimulation.run(seed, scenario);
            t[0] += o.multicasts();
            t[1] += o.required();
            t[2] += o.delivered();
            t[3] += o.stats().crashes();
            t[4] += o.stats().leaderCrashes() + o.stats().leaderIsolations() + o.stats().leaderPartialCuts();
            t[5] += o.stats().partitionsStarted() + o.stats().oneWayCuts() + o.stats().bridges();
            t[6] += o.world().skipsFed;
            for (var l : o.world().checker.learners()) {
                assertThat(l.subscription()).as("%s subscribes to one partition's group", l).isIn(1L, 2L);
            }
            t[7] += o.world().checker.learners().size();
        });
        System.out.printf("multi-ring partitioned: %d seeds in %d ms: %d multicast, %d from live origins, %d deliveries "
                + "by %d learner incarnations; %d crashes, %d coordinator hits, %d partitions/cuts, %d skips fed%n",
                seeds, (System.nanoTime() - started) / 1_000_000, t[0], t[1], t[2], t[7], t[3], t[4], t[5], t[6]);
        assertThat(t[2]).as("deliveries").isGreaterThan(t[1]);
        if (seeds >= 50) {
            assertThat(t[3]).as("crashes").isPositive();
            assertThat(t[4]).as("coordinators hunted").isPositive();
            assertThat(t[5]).as("partitions").isPositive();
            assertThat(t[6]).as("skips").isPositive();
        }
    }

    @Test
    @DisplayName("A seed replays: the same seed gives the same trace and the same deliveries")
    void seedsReplay() {
        MultiRingSimulation.Outcome a = MultiRingSimulation.run(7, MultiRingSimulation.Scenario.hostile(7));
        MultiRingSimulation.Outcome b = MultiRingSimulation.run(7, MultiRingSimulation.Scenario.hostile(7));
        assertThat(b.traceHash()).isEqualTo(a.traceHash());
        assertThat(b.delivered()).isEqualTo(a.delivered());
        assertThat(b.world().checker.learners().get(0).order()).isEqualTo(a.world().checker.learners().get(0).order());
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
