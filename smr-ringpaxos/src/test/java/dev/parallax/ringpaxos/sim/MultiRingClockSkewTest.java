package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.Simulation;
import dev.parallax.core.testkit.multicast.MulticastDeliveryChecker;
import dev.parallax.ringpaxos.Ring;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Skip pacing with a coordinator whose clock runs 60 s ahead, as deterministic simulations
 * (Multi-Ring Paxos: seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20, the skips
 * that keep every ring's logical sequence moving so that a learner merging rings round-robin never
 * waits on one). The skip target is a function of the coordinator's clock, so a ring led by a
 * process whose clock is 60 s fast is 60 s·λ ahead of the others in logical numbers: a learner of
 * {A, B} then waits for B to get there — unless the pacing makes the other rings follow. Checked, in
 * simulated time (the learners and the checker keep the simulated time; only the skewed process'
 * ring cores read its fast clock): the merge latency (acceptance to delivery) of every message of A
 * or B at every learner of {A, B} is back within a few Δ well under a second after the skew appears
 * — from the start, as a step in the middle of the run, and when the fast coordinator's ring moves
 * to a member with a correct clock (whose target is then 60 s·λ behind what the ring decided: the
 * ring must neither go back nor stand still) — and every run ends with the simulation's agreement,
 * exactly-once and acyclic-order checks.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class MultiRingClockSkewTest {
    private static final long MS = MultiRingSimulation.MS;
    private static final long LAMBDA = 1000;
    private static final int DELTA_MS = 5;
    private static final long SKEW = 60_000 * MS;
    /** Ring A (group 0), whose first coordinator is process 0 (member 0 of ring 0). */
    private static final int A = 0;
    private static final int FAST = 0;
    /** A seed whose ring A moves to process 0 when its coordinator's ring core crashes. */
    private static final long SEED_MID_RUN = 12;

    /**
     * The latency a message may have at a learner of {A, B} once the rings keep level: its own
     * consensus, the other ring's next skip (Δ, checked on a tick of 5 ms) and its consensus, and
     * the age of the skip target the other ring followed when it was decided (one more consensus) —
     * each consensus a tick of 5 ms and 4 network delays of ≤ 1 ms — plus one Δ of slack: 46 ms,
     * against the 60 s the skew is worth.
     */
    private static final long LATENCY_BOUND = 2 * DELTA_MS * MS + 4 * (5 * MS + 4 * MS);

    /** The latencies of the messages of A and B accepted in [from, to) at every learner of {A, B}; undelivered: MAX_VALUE. */
    private static List<Long> mergeLatencies(MultiRingSimulation.Run run, long from, long to) {
        return mergeLatencies(run, from, to, -1);
    }

    /** As {@link #mergeLatencies(MultiRingSimulation.Run, long, long)}, without the learners of process {@code except}. */
    private static List<Long> mergeLatencies(MultiRingSimulation.Run run, long from, long to, int except) {
        List<Long> out = new ArrayList<>();
        Simulation<Object> sim = run.sim();
        for (int p = 0; p < 3; p++) {
            if (!sim.isUp(p) || p == except) {
                continue;
            }
            for (MulticastDeliveryChecker.Learner l : sim.<MultiRingProcess>node(p).learnerRecords()) {
                if (l.subscription() != 3L) {
                    continue;
                }
                Map<Long, Long> at = new HashMap<>();
                for (int i = 0; i < l.order().size(); i++) {
                    at.put(l.order().get(i), l.times().get(i));
                }
                run.world().accepted.forEach((id, a) -> {
                    if (a.ring() <= 1 && a.at() >= from && a.at() < to) {
                        Long delivered = at.get(id);
                        out.add(delivered == null ? Long.MAX_VALUE : delivered - a.at());
                    }
                });
            }
        }
        out.sort(null);
        return out;
    }

    private static String summary(List<Long> latencies) {
        long max = latencies.get(latencies.size() - 1);
        return latencies.size() + " deliveries, median " + latencies.get(latencies.size() / 2) / 1e6 + " ms, max "
                + (max == Long.MAX_VALUE ? "never delivered" : max / 1e6 + " ms");
    }

    /** Both rings loaded (A 200/s, B 50/s), no faults; the scenario of {@link MultiRingScepticTest}. */
    private static MultiRingSimulation.Scenario scenario(Ring.Kind kind, long loadFor) {
        return MultiRingSimulation.Scenario.sceptic(kind, LAMBDA, DELTA_MS, new double[] {200, 50}, loadFor);
    }

    private static long[] fastFromStart() {
        long[] offsets = new long[3];
        offsets[FAST] = SKEW;
        return offsets;
    }

    @Test
    @DisplayName("Ring A's coordinator's clock 60 s ahead from the start: learners of {A, B} deliver within a few Δ (the other rings follow the fast clock)")
    void fastCoordinatorFromTheStart() {
        for (Ring.Kind kind : Ring.Kind.values()) {
            MultiRingSimulation.Run run = MultiRingSimulation.start(11, scenario(kind, 3_000 * MS), fastFromStart(),
                    (sim, world) -> { });
            run.sim().runUntil(500 * MS);
            assertThat(run.world().coordinatorOf(run.sim(), A)).as("A's coordinator is the fast process").isEqualTo(FAST);
            run.sim().runUntil(3_000 * MS);
            long aNext = run.sim().<MultiRingProcess>node(1).core(A).logicalNext();
            assertThat(aNext).as("A's logical next follows the fast clock").isGreaterThan(60 * LAMBDA);
            List<Long> latency = mergeLatencies(run, 500 * MS, 2_900 * MS);
            System.out.printf("multi-ring clock skew %s, A's coordinator +60 s from the start: {A,B} latency in [0.5 s, 2.9 s): %s (bound %.1f ms)%n",
                    kind, summary(latency), LATENCY_BOUND / 1e6);
            assertThat(latency).hasSizeGreaterThan(500);
            assertThat(latency.get(latency.size() - 1)).as("merge latency with a fast coordinator")
                    .isLessThanOrEqualTo(LATENCY_BOUND);
            run.finish();
        }
    }

    @Test
    @DisplayName("A process restarts with its clock 60 s ahead and ring A moves to it mid-run: merge latency is back within a few Δ in under 0.5 s")
    void fastCoordinatorMidRun() {
        long crashAt = 1_000 * MS;
        long[] movedAt = {-1};
        int[] correct = {-1};
        MultiRingSimulation.Run run = MultiRingSimulation.start(SEED_MID_RUN, scenario(Ring.Kind.U_RING, 5_000 * MS),
                (sim, world) -> {
                    // The epoch clock is read once per process start: a clock set wrong shows with a restart.
                    sim.schedule(crashAt, "crash process 0; it restarts with its clock 60 s ahead", () -> {
                        sim.crash(FAST);
                        world.skewClock(FAST, SKEW);
                        sim.schedule(200 * MS, "restart process 0", () -> sim.restart(FAST));
                    });
                    // Then ring A's coordinator's ring core crashes (and comes back 400 ms later) until A is led by process 0.
                    for (long t = 1_500 * MS; t < 3_000 * MS; t += 600 * MS) {
                        sim.schedule(t, "move ring A's coordinator", () -> {
                            int c = world.coordinatorOf(sim, A);
                            if (movedAt[0] >= 0 || c < 0) {
                                return;
                            }
                            if (c == FAST) {
                                movedAt[0] = sim.now();
                                return;
                            }
                            correct[0] = c;
                            sim.<MultiRingProcess>node(c).crashRing(A);
                            sim.schedule(400 * MS, "restart that ring A member", () -> sim.<MultiRingProcess>node(c).restartRing(A));
                        });
                    }
                });
        run.sim().runUntil(5_000 * MS);
        assertThat(movedAt[0]).as("A moved to the fast process").isPositive();
        assertThat(correct[0]).as("a correct-clock coordinator led A after the restart").isIn(1, 2);
        long aNext = run.sim().<MultiRingProcess>node(correct[0]).core(A).logicalNext();
        assertThat(aNext).as("A's logical next follows the fast clock").isGreaterThan(60 * LAMBDA);
        // Before: not at process 0, whose learners now are its restarted incarnation's (they merge from the start).
        List<Long> before = mergeLatencies(run, 200 * MS, crashAt, FAST);
        List<Long> after = mergeLatencies(run, movedAt[0] + 500 * MS, 4_900 * MS);
        System.out.printf("multi-ring clock skew, A led by process 0 (restarted 60 s fast) from %.1f s: {A,B} latency before %s; from 0.5 s later %s (bound %.1f ms)%n",
                movedAt[0] / 1e9, summary(before), summary(after), LATENCY_BOUND / 1e6);
        assertThat(before.get(before.size() - 1)).isLessThanOrEqualTo(LATENCY_BOUND);
        assertThat(after).hasSizeGreaterThan(500);
        assertThat(after.get(after.size() - 1)).as("merge latency 0.5 s after the move").isLessThanOrEqualTo(LATENCY_BOUND);
        run.finish();
    }

    @Test
    @DisplayName("The fast coordinator's ring moves to a member with a correct clock: the ring neither goes back nor stalls, merge latency recovers")
    void fastCoordinatorFailsOverToCorrectClock() {
        long crashAt = 1_000 * MS;
        long end = 4_000 * MS;
        long[] nextBefore = {-1};
        List<long[]> samples = new ArrayList<>();
        MultiRingSimulation.Run run = MultiRingSimulation.start(13, scenario(Ring.Kind.M_RING, end), fastFromStart(),
                (sim, world) -> {
                    sim.schedule(crashAt, "crash ring A at its fast coordinator", () -> {
                        assertThat(world.coordinatorOf(sim, A)).as("A's coordinator is the fast process").isEqualTo(FAST);
                        nextBefore[0] = sim.<MultiRingProcess>node(1).core(A).logicalNext();
                        sim.<MultiRingProcess>node(FAST).crashRing(A);
                        sim.schedule(500 * MS, "restart ring A at the fast process, a member now",
                                () -> sim.<MultiRingProcess>node(FAST).restartRing(A));
                    });
                    for (long t = crashAt; t < end; t += 10 * MS) {
                        sim.schedule(t, "sample A's logical next", () -> samples.add(new long[] {sim.now(),
                                sim.<MultiRingProcess>node(1).core(A).logicalNext(),
                                sim.<MultiRingProcess>node(2).core(A).logicalNext()}));
                    }
                });
        run.sim().runUntil(end);
        int coordinator = run.world().coordinatorOf(run.sim(), A);
        assertThat(coordinator).as("A re-formed under a process with a correct clock").isIn(1, 2);
        assertThat(nextBefore[0]).as("A ran 60 s ahead before").isGreaterThan(60 * LAMBDA);
        long[] previous = {0, 0, 0};
        for (long[] s : samples) {
            assertThat(s[1]).as("A's logical next at 1 never goes back").isGreaterThanOrEqualTo(previous[1]);
            assertThat(s[2]).as("A's logical next at 2 never goes back").isGreaterThanOrEqualTo(previous[2]);
            previous = s;
        }
        // From 1 s after the crash on, A keeps its pace: λ per second (skips), not stuck for 60 s.
        long[] from = samples.stream().filter(s -> s[0] >= crashAt + 1_000 * MS).findFirst().orElseThrow();
        long[] last = samples.get(samples.size() - 1);
        long expected = LAMBDA * (last[0] - from[0]) / 1_000_000_000L;
        System.out.printf("multi-ring clock skew, fast coordinator's ring A failed over to process %d: A's logical next %d before, +%d over the last %.1f s (λ·t = %d)%n",
                coordinator, nextBefore[0], last[1] - from[1], (last[0] - from[0]) / 1e9, expected);
        assertThat(last[1] - from[1]).as("A's pace after the failover").isGreaterThanOrEqualTo(expected * 9 / 10);
        List<Long> latency = mergeLatencies(run, crashAt + 1_000 * MS, end - 100 * MS);
        System.out.printf("multi-ring clock skew, after the failover: {A,B} latency from 2 s: %s (bound %.1f ms)%n",
                summary(latency), LATENCY_BOUND / 1e6);
        assertThat(latency).hasSizeGreaterThan(500);
        assertThat(latency.get(latency.size() - 1)).as("merge latency after the failover").isLessThanOrEqualTo(LATENCY_BOUND);
        run.finish();
    }

    /**
     * Skips on demand ({@code ring.skip.demand}), in simulated time: ring A loaded (100/s), ring B
     * idle, Δ = 20 ms. With paced skips only, a message of A whose logical index B's last paced skip
     * did not pass waits at a learner of {A, B} until B's next one, up to Δ; with skips on demand B
     * skips as soon as A's coordinator opened the value, so no message waits for a paced skip: the
     * slowest merge latency falls below Δ/4 (it is a consensus or two) and the 90th percentile below
     * the paced run's. Both runs end with the simulation's agreement, exactly-once and order checks.
     */
    @Test
    @DisplayName("skips on demand: with ring B idle, no message of A waits for B's paced skip at learners of {A, B} "
            + "(slowest merge latency under Δ/4; 90th percentile below the paced-only run's)")
    void skipsOnDemandShortenTheMergeWait() {
        int deltaMs = 20;
        for (Ring.Kind kind : Ring.Kind.values()) {
            long[] p90 = new long[2];
            long[] max = new long[2];
            for (int demand = 0; demand < 2; demand++) {
                MultiRingSimulation.Scenario scenario = MultiRingSimulation.Scenario
                        .sceptic(kind, LAMBDA, deltaMs, new double[] {100, 0}, 3_000 * MS).withSkipDemand(demand == 1);
                MultiRingSimulation.Run run = MultiRingSimulation.start(11, scenario, new long[3], (sim, world) -> { });
                run.sim().runUntil(3_000 * MS);
                List<Long> latency = mergeLatencies(run, 500 * MS, 2_900 * MS);
                assertThat(latency).hasSizeGreaterThan(200);
                p90[demand] = latency.get(latency.size() * 9 / 10);
                max[demand] = latency.get(latency.size() - 1);
                System.out.printf("multi-ring %s, ring B idle, Δ = %d ms, skips on demand %s: {A,B} latency %s, p90 %.3f ms%n",
                        kind, deltaMs, demand == 1 ? "on" : "off", summary(latency), p90[demand] / 1e6);
                run.finish();
            }
            assertThat(max[1]).as("%s: slowest merge latency with skips on demand", kind).isLessThan(deltaMs * MS / 4);
            assertThat(p90[1]).as("%s: p90 with skips on demand against paced only", kind).isLessThan(p90[0]);
        }
    }
}
