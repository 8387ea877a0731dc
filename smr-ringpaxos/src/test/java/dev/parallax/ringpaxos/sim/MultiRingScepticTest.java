package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.Simulation;
import dev.parallax.core.testkit.multicast.MulticastDeliveryChecker;
import dev.parallax.ringpaxos.Ring;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sceptic's cases of Multi-Ring Paxos as deterministic simulations (seed 003 (Ring
 * Paxos / Multi-Ring / P-SMR) ch. 5 §5.2, Alg. 1 l.13-20 and l.44, §5.4.6): a learner of {A, B}
 * whose ring B is silent or slow delivers A's messages about Δ after a learner of {A} alone, and
 * never with λ = 0; its buffer stays bounded; a ring whose coordinator crashes stalls only the
 * learners that merge it, which then resume and agree. Latencies are in simulated time, which is
 * deterministic: the assertions have no wall-clock margin.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class MultiRingScepticTest {
    private static final long MS = MultiRingSimulation.MS;
    private static final long LAMBDA = 1000;
    private static final int DELTA_MS = 5;
    /** Process 0's learners: 0 = {A}, 1 = {A, B} (see {@link MultiRingSimulation.Scenario#sceptic}). */
    private static final int ONLY_A = 0;
    private static final int A_AND_B = 1;

    /**
     * What the merge may add to a message's latency when the other ring has nothing to send: its
     * coordinator's next skip (Δ, checked on its tick: + one tick of 5 ms) and that skip's consensus
     * (a ring of f+1 = 2 and the decision back: at most 4 network delays of ≤ 1 ms).
     */
    private static final long MERGE_BOUND = DELTA_MS * MS + 5 * MS + 4 * MS;

    /**
     * A message's latency at a learner of {A, B} with B silent (acceptance to delivery): its own
     * consensus in A and B's next skip's (each a tick of 5 ms and 4 network delays of ≤ 1 ms at
     * most) and Δ. The learner of {A} alone merges the idle global ring too, so it waits for skips as
     * well: the comparison that matters is with this bound, and with λ = 0 (never).
     */
    private static final long LATENCY_BOUND = DELTA_MS * MS + 2 * (5 * MS + 4 * MS);

    private static MulticastDeliveryChecker.Learner learner(MultiRingSimulation.Run run, int process, int index) {
        return run.sim().<MultiRingProcess>node(process).learnerRecords().get(index);
    }

    /** Per message both learners delivered, how much later {@code slow} delivered it than {@code fast}; sorted. */
    private static List<Long> extraLatency(MulticastDeliveryChecker.Learner fast, MulticastDeliveryChecker.Learner slow,
                                           long from, long to) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < fast.order().size(); i++) {
            long id = fast.order().get(i);
            long at = fast.times().get(i);
            int j = slow.order().indexOf(id);
            if (at >= from && at < to && j >= 0) {
                out.add(slow.times().get(j) - at);
            }
        }
        out.sort(null);
        return out;
    }

    /** Latencies (acceptance to delivery) of what {@code l} delivered between {@code from} and {@code to}; sorted. */
    private static List<Long> latencies(MultiRingSimulation.World world, MulticastDeliveryChecker.Learner l, long from,
                                        long to) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < l.order().size(); i++) {
            long at = l.times().get(i);
            if (at >= from && at < to) {
                out.add(at - world.accepted.get(l.order().get(i)).at());
            }
        }
        out.sort(null);
        return out;
    }

    private static long max(List<Long> values) {
        return values.isEmpty() ? 0 : values.get(values.size() - 1);
    }

    @Test
    @DisplayName("Traffic on A only: a learner of {A, B} delivers A's messages within about Δ of a learner of {A} (B's skips, Alg. 1 l.13-20)")
    void silentRingCostsAboutDelta() {
        for (Ring.Kind kind : Ring.Kind.values()) {
            MultiRingSimulation.Run run = MultiRingSimulation.start(1,
                    MultiRingSimulation.Scenario.sceptic(kind, LAMBDA, DELTA_MS, new double[] {200, 0}, 2_000 * MS),
                    (sim, world) -> { });
            run.sim().runUntil(2_000 * MS);
            List<Long> extra = extraLatency(learner(run, 0, ONLY_A), learner(run, 0, A_AND_B), 100 * MS, 2_000 * MS);
            List<Long> abs = latencies(run.world(), learner(run, 0, A_AND_B), 100 * MS, 2_000 * MS);
            List<Long> absA = latencies(run.world(), learner(run, 0, ONLY_A), 100 * MS, 2_000 * MS);
            System.out.printf("multi-ring sceptic %s, B silent: %d messages, extra latency of {A,B} over {A}: median %.1f ms, max %.1f ms (bound %.1f ms); latency {A,B} median %.1f max %.1f; {A} median %.1f max %.1f%n",
                    kind, extra.size(), extra.get(extra.size() / 2) / 1e6, max(extra) / 1e6, MERGE_BOUND / 1e6,
                    abs.get(abs.size() / 2) / 1e6, max(abs) / 1e6, absA.get(absA.size() / 2) / 1e6, max(absA) / 1e6);
            assertThat(extra).hasSizeGreaterThan(200);
            assertThat(max(extra)).isLessThanOrEqualTo(MERGE_BOUND);
            assertThat(max(abs)).as("latency of {A,B}: A's consensus and B's skip").isLessThanOrEqualTo(LATENCY_BOUND);
            run.finish();
        }
    }

    @Test
    @DisplayName("Negative control, λ = 0: a learner of {A, B} never delivers beyond A's first round (M = 1 message) while B is silent, though A decides hundreds")
    void withoutSkipsTheLearnerStalls() {
        MultiRingSimulation.Run run = MultiRingSimulation.start(1,
                MultiRingSimulation.Scenario.sceptic(Ring.Kind.U_RING, 0, DELTA_MS, new double[] {200, 0}, 2_000 * MS),
                (sim, world) -> { });
        run.sim().runUntil(2_000 * MS);
        for (int p = 0; p < 3; p++) {
            assertThat(run.sim().<MultiRingProcess>node(p).fed(0)).as("A's decided instances at %d", p).isGreaterThan(200);
        }
        // (0, A) is the least key of the merge: A's first message (index 0) may go; nothing after it.
        assertThat(learner(run, 0, A_AND_B).order()).hasSizeLessThanOrEqualTo(1);
        assertThat(learner(run, 1, 0).order()).hasSizeLessThanOrEqualTo(1);
        assertThat(learner(run, 2, A_AND_B).order()).hasSizeLessThanOrEqualTo(1);
        assertThat(run.world().skipsFed).isZero();
    }

    @Test
    @DisplayName("B at a tenth of A's rate: A's latency at a learner of {A, B} stays within about Δ of {A}'s, its buffer bounded")
    void slowRingKeepsLatencyAndBufferBounded() {
        MultiRingSimulation.Run run = MultiRingSimulation.start(2,
                MultiRingSimulation.Scenario.sceptic(Ring.Kind.M_RING, LAMBDA, DELTA_MS, new double[] {200, 20}, 3_000 * MS),
                (sim, world) -> { });
        run.sim().runUntil(3_000 * MS);
        List<Long> extra = extraLatency(learner(run, 0, ONLY_A), learner(run, 0, A_AND_B), 100 * MS, 3_000 * MS);
        int buffer = run.world().maxBuffered.get("0." + A_AND_B);
        // Bound: what the rings can decide while a message waits MERGE_BOUND: at most λ per second
        // each (the cap), A's and B's rings and the global one.
        long bufferBound = 3 * LAMBDA * MERGE_BOUND / 1_000_000_000L;
        System.out.printf("multi-ring sceptic, B at a tenth of A: %d messages, extra latency max %.1f ms, learner {A,B} buffer max %d (bound %d)%n",
                extra.size(), max(extra) / 1e6, buffer, bufferBound);
        assertThat(extra).hasSizeGreaterThan(300);
        assertThat(max(extra)).isLessThanOrEqualTo(MERGE_BOUND);
        assertThat(buffer).isLessThanOrEqualTo((int) bufferBound);
        run.finish();
    }

    @Test
    @DisplayName("B's coordinator crashed for 3 s: learners of {A} unaffected, learners of {A, B} stall, resume and deliver identical sequences")
    void crashedCoordinatorStallsOnlyItsSubscribers() {
        long crashAt = 500 * MS;
        long downFor = 3_000 * MS;
        int[] crashed = {-1};
        MultiRingSimulation.Run run = MultiRingSimulation.start(3,
                MultiRingSimulation.Scenario.sceptic(Ring.Kind.U_RING, LAMBDA, DELTA_MS, new double[] {200, 20}, 4_500 * MS),
                (sim, world) -> sim.schedule(crashAt, "crash ring B's coordinator", () -> {
                    crashed[0] = world.coordinatorOf(sim, 1);
                    sim.<MultiRingProcess>node(crashed[0]).crashRing(1);
                    sim.schedule(downFor, "restart ring B", () -> sim.<MultiRingProcess>node(crashed[0]).restartRing(1));
                }));
        run.sim().runUntil(crashAt + downFor);
        assertThat(crashed[0]).isNotNegative();
        Simulation<Object> sim = run.sim();
        // Learners of {A} everywhere: A's latency while B is down as before.
        long baseline = 0;
        long during = 0;
        for (int p : new int[] {0, 2}) {
            MulticastDeliveryChecker.Learner a = learner(run, p, ONLY_A);
            baseline = Math.max(baseline, max(latencies(run.world(), a, 100 * MS, crashAt)));
            during = Math.max(during, max(latencies(run.world(), a, crashAt, crashAt + downFor)));
        }
        // Learners of {A, B}: the longest time without a delivery while B is down.
        List<String> stalls = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            MulticastDeliveryChecker.Learner ab = learner(run, p, p == 1 ? 0 : A_AND_B);
            long longest = longestSilence(ab, crashAt, crashAt + downFor);
            stalls.add(p + (p == crashed[0] ? " (B's coordinator)" : "") + ": " + longest / MS + " ms");
            assertThat(longest).as("learner {A,B} at %d stalls", p).isGreaterThanOrEqualTo(150 * MS);
            if (p != crashed[0]) {
                assertThat(longest).as("learner {A,B} at %d resumes once B re-forms, before its coordinator returns", p)
                        .isLessThan(downFor - 1_000 * MS);
            }
        }
        System.out.printf("multi-ring sceptic, B's coordinator (process %d) down 3 s: {A} latency max %.1f ms before, %.1f ms during; {A,B} longest silence %s%n",
                crashed[0], baseline / 1e6, during / 1e6, stalls);
        assertThat(during).as("{A} unaffected").isLessThanOrEqualTo(Math.max(baseline, 20 * MS));
        // At the end: every learner of {A, B} delivered the same sequence (checked by finish) and all of A's.
        MultiRingSimulation.Outcome o = run.finish();
        assertThat(o.required()).isGreaterThan(500);
    }

    /** The longest interval in [from, to) in which {@code l} delivered nothing. */
    private static long longestSilence(MulticastDeliveryChecker.Learner l, long from, long to) {
        long last = from;
        long longest = 0;
        for (long at : l.times()) {
            if (at < from) {
                continue;
            }
            if (at >= to) {
                break;
            }
            longest = Math.max(longest, at - last);
            last = at;
        }
        return Math.max(longest, to - last);
    }
}
