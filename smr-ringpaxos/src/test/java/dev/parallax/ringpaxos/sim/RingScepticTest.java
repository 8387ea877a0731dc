package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.Simulation;
import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.core.testkit.smr.WireBytes;
import dev.parallax.ringpaxos.DecisionEntry;
import dev.parallax.ringpaxos.Phase2Entry;
import dev.parallax.ringpaxos.ProposalEntry;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingCodec;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingMessage;
import dev.parallax.ringpaxos.RingPaxosCore;
import dev.parallax.ringpaxos.RingUnicast;
import dev.parallax.ringpaxos.UPacket;
import dev.parallax.ringpaxos.ValueId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The sceptic's cases for Ring Paxos, (a)–(f), each positive case with a negative
 * control where one makes sense, showing that the check can fail: (a) a learner whose every
 * datagram is lost for a second recovers by catch-up (seed 003 (Ring Paxos) §3.3.4); (b) a slow
 * learner shrinks the coordinator's window and its backlog stays bounded (§3.3.6); (c) bytes the
 * busiest sender sends per delivered byte: M-Ring's coordinator about one whatever n, U-Ring's
 * members under one (§3.1 ¶2, Table 3.2); (d) U-Ring: each value crosses exactly n−1 links
 * (§3.3.3, Alg. 3 l.33–41); (e) U-Ring latency grows with the ring (Table 3.1: 5f steps); (f) a
 * crash of each role under load — coordinator, ring acceptor, learner-only member (U-Ring), spare
 * (M-Ring) — and every live proposer's commands are decided after the heal (§3.3.5; ring re-formation).
 * Seeds: a tenth of {@code -Dsim.seeds}, 50 in the default run (CI budget), for the seeded cases (for (f), six runs of
 * five members, half of that in the default run: 50 per role; 10,000 under {@code -Pstress} as the
 * others; fewer for the slow negative controls); a failure prints {@code -Dsim.seed=S}.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class RingScepticTest {
    private static final long MS = RingSimulation.MS;
    private static final int SEEDS = Math.max(50, SimulationSeeds.count(500) / 10);
    /** Seeds per role of (f): a tenth of {@code -Dsim.seeds} under {@code -Pstress} (10,000), a twentieth in the default run, at least 50. */
    private static final int CRASH_SEEDS = Math.max(50, RingTotals.variantSeeds(10));

    // ---------------------------------------------------------------------------------------- (a)

    /** Member off the M-Ring of the current coordinator (a spare and learner), or -1. */
    private static int offRingMember(Simulation<Object> sim, int replicas) {
        for (int r = 0; r < replicas; r++) {
            if (sim.isUp(r)) {
                RingPaxosCore core = sim.<RingSimReplica>node(r).core();
                if (core.isCoordinator() && core.ring() != null) {
                    for (int m = 0; m < replicas; m++) {
                        if (!core.ring().contains(m)) {
                            return m;
                        }
                    }
                }
            }
        }
        return -1;
    }

    /**
     * From 300 ms to 1.3 s every datagram to the member off the ring is lost; with {@code cutCatchUp}
     * for good, and its catch-up replies and Phase 1B answers too.
     */
    private static RingSimulation.Options datagramsToALearnerLost(int[] learner, boolean cutCatchUp) {
        return RingSimulation.Options.NONE.with((sim, shared) -> {
            int n = shared.scenario.replicas();
            sim.schedule(300 * MS, "cut datagrams to a learner", () -> {
                learner[0] = offRingMember(sim, n);
                for (int m = 0; m < n; m++) {
                    if (m != learner[0] && learner[0] >= 0) {
                        sim.dropDatagramsMatching(m, learner[0], msg -> true);
                        if (cutCatchUp) {
                            // Phase 1B too: a learner that runs Phase 1 hears every undecided instance's
                            // votes and decides them again itself (C1), another way to learn.
                            sim.dropMatching(m, learner[0], msg -> msg instanceof RingMessage.CatchUpReply
                                    || msg instanceof RingMessage.Phase1B);
                        }
                    }
                }
            });
            if (!cutCatchUp) {
                sim.schedule(1_300 * MS, "restore datagrams to the learner", sim::stopDropping);
            }
        });
    }

    @Test
    @DisplayName("(a) M-Ring: every datagram to a learner lost for 1 s: it catches up and executes the same sequence (seed 003 (Ring Paxos) §3.3.4 cases (a)-(c))")
    void aLearnerThatMissesEveryDatagramForASecondCatchesUp() {
        long[] dropped = {0};
        long[] cut = {0};
        RingTotals t = RingTotals.run("ring sceptic (a)", SEEDS, seed -> {
            int[] learner = {-1};
            List<Simulation<Object>> sims = new ArrayList<>();
            RingSimulation.Outcome o = RingSimulation.run(seed, RingSimulation.Scenario.hostile(Ring.Kind.M_RING, 3).calm(),
                    null, datagramsToALearnerLost(learner, false).with((sim, shared) -> sims.add(sim)));
            dropped[0] += sims.get(0).stats().droppedByRule();
            if (learner[0] >= 0) {
                cut[0]++;
            }
            return o;
        });
        System.out.printf("ring sceptic (a): learner cut off in %d of %d seeds, %d datagrams dropped%n", cut[0], t.seeds,
                dropped[0]);
        assertThat(cut[0]).as("runs with a learner off the ring at 300 ms").isEqualTo(t.seeds);
        assertThat(dropped[0]).as("datagrams dropped by the rule").isPositive();
        assertThat(t.eventsContaining("catch")).as("catch-ups: " + t.events).isPositive();
    }

    @Test
    @DisplayName("(a) negative control: the learner's datagrams, catch-up replies and Phase 1B answers lost for good: the liveness check fires")
    void withItsCatchUpCutTooTheLivenessCheckFires() {
        for (long seed = 1; seed <= 3; seed++) {
            long s = seed;
            Throwable failure = catchThrowable(() -> RingSimulation.run(s,
                    RingSimulation.Scenario.hostile(Ring.Kind.M_RING, 3).calm(), null,
                    datagramsToALearnerLost(new int[] {-1}, true)));
            assertThat(failure).as("seed %d", s).isNotNull();
            assertThat(failure.toString() + stack(failure)).as("seed %d", s).containsAnyOf("liveness", "converge");
        }
    }

    // ---------------------------------------------------------------------------------------- (b)

    /** The slow member executes one decided instance per 5 ms tick; six clients keep the cluster busier than that. */
    private static final int SLOW_MEMBER = 2;
    /**
     * Decided-but-unexecuted instances the slow member may hold: 8× the flow-control threshold of 16
     * (the threshold, a window of 4, and the instances decided while a report travels, with room to
     * spare). Without effective flow control the slow member holds 320–390 in these runs.
     */
    private static final long UNDELIVERED_BOUND = 128;

    private static RingSimulation.Scenario slowLearnerScenario(RingConfig config) {
        return RingSimulation.Scenario.hostile(config).calm().withClients(6);
    }

    private static RingSimulation.Options slowLearner() {
        return RingSimulation.Options.NONE.slowExecution(SLOW_MEMBER, 1)
                .with((sim, shared) -> shared.undeliveredBound = UNDELIVERED_BOUND);
    }

    @Test
    @DisplayName("(b) M-Ring: a slow learner's backlog reports shrink the window; its backlog stays bounded, nothing is "
            + "lost (seed 003 (Ring Paxos) §3.3.6, rule M6)")
    void aSlowLearnerShrinksTheWindow() {
        RingConfig config = RingSimulation.Scenario.config(Ring.Kind.M_RING, 3).build();
        long[] minWindow = {Long.MAX_VALUE};
        long[] maxUndelivered = {0};
        RingTotals t = RingTotals.run("ring sceptic (b)", SEEDS / 2, seed -> {
            RingSimulation.Outcome o = RingSimulation.run(seed, slowLearnerScenario(config), null, slowLearner());
            minWindow[0] = Math.min(minWindow[0], o.shared().bounds.minWindow());
            maxUndelivered[0] = Math.max(maxUndelivered[0], o.shared().maxUndelivered);
            return o;
        });
        System.out.printf("ring sceptic (b): %d seeds, smallest window %d (max %d), most undelivered at the slow"
                + " learner %d (bound %d)%n", t.seeds, minWindow[0], config.window(), maxUndelivered[0], UNDELIVERED_BOUND);
        assertThat(minWindow[0]).as("the coordinator's window shrank").isLessThan(config.window());
        assertThat(t.eventsContaining("fc.decrease")).as("flow-control decreases: " + t.events).isPositive();
        assertThat(maxUndelivered[0]).as("the slow learner fell behind").isPositive()
                .isLessThanOrEqualTo(UNDELIVERED_BOUND);
    }

    @Test
    @DisplayName("(b) negative control: the window pinned at its maximum (mring.window.min = ring.window): the slow learner's backlog exceeds the bound")
    void withTheWindowPinnedTheBacklogOutgrowsTheBound() {
        RingConfig base = RingSimulation.Scenario.config(Ring.Kind.M_RING, 3).build();
        RingConfig pinned = RingSimulation.Scenario.config(Ring.Kind.M_RING, 3).mringWindowMin(base.window()).build();
        for (long seed = 1; seed <= 3; seed++) {
            long s = seed;
            Throwable failure = catchThrowable(() -> RingSimulation.run(s, slowLearnerScenario(pinned), null,
                    slowLearner()));
            assertThat(failure).as("seed %d", s).isNotNull();
            assertThat(stack(failure)).as("seed %d", s).contains("decided instances not yet executed");
        }
    }

    // ---------------------------------------------------------------------------------------- (c)

    /** Sender bytes per delivered byte in a calm run with 1 KiB puts and 4000-byte batches. */
    private record Efficiency(double[] perMember, int coordinator, java.util.Map<String, Long> events) {
        double coordinatorRatio() {
            return perMember[coordinator];
        }

        double max() {
            double m = 0;
            for (double v : perMember) {
                m = Math.max(m, v);
            }
            return m;
        }
    }

    /** Batches of up to 4000 bytes, waiting up to 10 ms to fill, eager only with nothing open (the benchmark's setting). */
    private static RingConfig.Builder bulk(Ring.Kind kind, int n) {
        return RingSimulation.Scenario.config(kind, n).batchBytes(4000).batchTimeout(Duration.ofMillis(10)).eagerBelow(1);
    }

    private static Efficiency efficiency(long seed, RingConfig config) {
        int n = config.members();
        RingCodec codec = new RingCodec(n);
        WireBytes unicast = new WireBytes(n, m -> WireBytes.codecSize(codec, (RingUnicast) m));
        long[] multicast = new long[n];
        int[] coordinator = {-1};
        RingSimulation.Outcome o = RingSimulation.run(seed, RingSimulation.Scenario.hostile(config).calm().withClients(12),
                null, RingSimulation.Options.NONE.spreadingClients().withPutBytes(1024).with((sim, shared) -> {
                    sim.observeSends(unicast);
                    sim.observeDatagrams((from, group, m) -> multicast[from] += RingSimReplica.datagramBytes(m));
                    sim.addInvariant(() -> {
                        for (int r = 0; r < n && coordinator[0] < 0; r++) {
                            if (sim.isUp(r) && sim.<RingSimReplica>node(r).core().isCoordinator()) {
                                coordinator[0] = r;
                            }
                        }
                    });
                }));
        long delivered = 0;
        for (long b : o.shared().deliveredBytes) {
            delivered += b;
        }
        double mean = (double) delivered / n;
        double[] ratio = new double[n];
        for (int r = 0; r < n; r++) {
            ratio[r] = (unicast.protocolBytes(r) + multicast[r]) / mean;
        }
        assertThat(o.roundChanges()).as("seed %d: one coordinator for the whole calm run", seed).isZero();
        return new Efficiency(ratio, coordinator[0], o.shared().events);
    }

    @Test
    @DisplayName("(c) calm, 1 KiB puts: M-Ring's coordinator sends <= 1.7 B per delivered B at n=3 and n=5 (Multi-Paxos' leader: n-1), n=5 within 1.25x of n=3; U-Ring every member <= 1.3 at n=3, <= 1.7 at n=5 (seed 003 (Ring Paxos) §3.1 ¶2, Table 3.2)")
    void senderBytesPerDeliveredByte() {
        double[] mRing = new double[6];
        double[] uRing = new double[6];
        for (long seed = 1; seed <= 3; seed++) {
            for (int k = 0; k < 2; k++) {
                int n = k == 0 ? 3 : 5;
                Efficiency m = efficiency(seed, bulk(Ring.Kind.M_RING, n).build());
                Efficiency u = efficiency(seed, bulk(Ring.Kind.U_RING, n).build());
                System.out.printf("seed %d n=%d: m-ring coordinator %.2f B/B (members %s); u-ring busiest member %.2f"
                        + " (members %s)%n  m-ring events %s%n  u-ring events %s%n", seed, n, m.coordinatorRatio(),
                        java.util.Arrays.toString(m.perMember()), u.max(), java.util.Arrays.toString(u.perMember()),
                        m.events(), u.events());
                mRing[(int) (seed - 1) * 2 + k] = m.coordinatorRatio();
                uRing[(int) (seed - 1) * 2 + k] = u.max();
            }
        }
        // Measured (seeds 1-3): m-ring coordinator 1.34-1.45 at n=3, 1.54-1.63 at n=5; u-ring busiest
        // member 1.17-1.18 at n=3, 1.50-1.56 at n=5. Above the paper's ~1 and (n-1)/n: the workload's
        // instances carry ~600 B (gets and appends of a few bytes next to the 1 KiB puts), so per-packet
        // headers, id-only decisions and catch-ups in calm runs (bug B7) weigh 35-60%.
        for (int seed = 0; seed < 3; seed++) {
            assertThat(mRing[seed * 2]).as("m-ring coordinator n=3, seed %d", seed + 1).isLessThanOrEqualTo(1.7);
            assertThat(mRing[seed * 2 + 1]).as("m-ring coordinator n=5, seed %d", seed + 1).isLessThanOrEqualTo(1.7)
                    .isLessThanOrEqualTo(mRing[seed * 2] * 1.25);
            assertThat(uRing[seed * 2]).as("u-ring busiest member n=3, seed %d", seed + 1).isLessThanOrEqualTo(1.3);
            assertThat(uRing[seed * 2 + 1]).as("u-ring busiest member n=5, seed %d", seed + 1).isLessThanOrEqualTo(1.7);
        }
    }

    @Test
    @DisplayName("(c) negative control: mring.packet.bytes below the batch size (every 2A unicast to the ring acceptors): the coordinator sends >= 1.8 B per delivered B at n=5")
    void withEveryTwoAUnicastTheCoordinatorSendsFarMore() {
        for (long seed = 1; seed <= 3; seed++) {
            Efficiency m = efficiency(seed, bulk(Ring.Kind.M_RING, 5).mringPacketBytes(RingConfig.MIN_PACKET_BYTES).build());
            System.out.printf("seed %d n=5, 2A unicast: m-ring coordinator %.2f B/B (members %s)%n", seed,
                    m.coordinatorRatio(), java.util.Arrays.toString(m.perMember()));
            assertThat(m.coordinatorRatio()).as("seed %d", seed).isGreaterThanOrEqualTo(1.8);
        }
    }

    // ---------------------------------------------------------------------------------------- (d)

    /** Per value id: the links its body crossed (UPacket entries and Proposal messages that carry it), and its ring. */
    private static final class Crossings {
        final Map<ValueId, Integer> links = new HashMap<>();
        final Map<ValueId, Ring> ringOf = new HashMap<>();

        void observe(Simulation<Object> sim) {
            sim.observeSends((from, to, m) -> {
                if (from == to) {
                    return;
                }
                if (m instanceof UPacket p) {
                    for (Phase2Entry e : p.phase2()) {
                        links.merge(e.vid(), 1, Integer::sum);
                        ringOf.putIfAbsent(e.vid(), p.ring());
                    }
                    for (DecisionEntry e : p.decisions()) {
                        if (e.value() != null) {
                            links.merge(e.vid(), 1, Integer::sum);
                        }
                    }
                    for (ProposalEntry e : p.proposals()) {
                        links.merge(e.vid(), 1, Integer::sum);
                    }
                } else if (m instanceof RingMessage.Proposal p) {
                    for (ProposalEntry e : p.proposals()) {
                        links.merge(e.vid(), 1, Integer::sum);
                    }
                }
            });
        }

        /**
         * The links a value of proposer {@code origin} crosses in a calm run on {@code ring} (n members,
         * f+1 acceptors): n−1 when the proposer is the coordinator or a learner (position > f) — the
         * proposal travels to the coordinator, 2A/2B carries the value to the last acceptor, the
         * decision carries it on until the proposer's predecessor (Alg. 3 l.3–8, l.21–32, l.38); a
         * proposer at acceptor position p in [1, f] sends the proposal n−p links to the coordinator,
         * and 2A/2B carries the value over all f acceptor links again (l.21/l.32 always carry c-val),
         * while every learner already forwarded the proposal: n − p + f.
         */
        static int expected(Ring ring, int origin) {
            int n = ring.size();
            int f = ring.acceptors() - 1;
            int p = ring.position(origin);
            return p >= 1 && p <= f ? n - p + f : n - 1;
        }
    }

    @Test
    @DisplayName("(d) U-Ring, calm: each value crosses n-1 links (n-p+f when its proposer is the acceptor at position p), at n=3 and n=5 (seed 003 (Ring Paxos) §3.3.3 last ¶, Alg. 3 l.3-8, l.21-41)")
    void eachValueCrossesExactlyNMinusOneLinks() {
        for (int n : new int[] {3, 5}) {
            long[] values = {0};
            long[] nMinusOne = {0};
            int count = n;
            SimulationSeeds.forEach("ring sceptic (d) n=" + n, 5, seed -> {
                Crossings crossings = new Crossings();
                RingSimulation.Outcome o = RingSimulation.run(seed, RingSimulation.Scenario.hostile(Ring.Kind.U_RING, count)
                        .calm(), null, RingSimulation.Options.NONE.spreadingClients()
                        .with((sim, shared) -> crossings.observe(sim)));
                assertThat(o.roundChanges()).as("seed %d: one round for the whole calm run", seed).isZero();
                // Values proposed after the ring formed (the first ones may go straight to a ringless coordinator).
                for (Map.Entry<ValueId, Long> e : o.shared().committedAt.entrySet()) {
                    Long proposed = o.shared().proposedAt.get(e.getKey());
                    Ring ring = crossings.ringOf.get(e.getKey());
                    if (proposed != null && proposed >= 100 * MS && ring != null) {
                        values[0]++;
                        int expected = Crossings.expected(ring, e.getKey().origin());
                        if (expected == count - 1) {
                            nMinusOne[0]++;
                        }
                        assertThat(ring.size()).as("ring of %s holds every member", e.getKey()).isEqualTo(count);
                        assertThat(crossings.links.getOrDefault(e.getKey(), 0))
                                .as("links crossed by %s on %s (events %s)", e.getKey(), ring, o.shared().events)
                                .isEqualTo(expected);
                    }
                }
            });
            System.out.printf("ring sceptic (d) n=%d: %d values crossed exactly the links of their proposer's position,"
                    + " %d of them n-1 = %d%n", n, values[0], nMinusOne[0], n - 1);
            assertThat(nMinusOne[0]).as("values of the coordinator or learners, n-1 links, at n=%d", n).isPositive();
        }
    }

    // ---------------------------------------------------------------------------------------- (e)

    private static long medianCommitLatency(int n) {
        List<Long> all = new ArrayList<>();
        for (long seed = 1; seed <= 5; seed++) {
            RingSimulation.Outcome o = RingSimulation.run(seed, RingSimulation.Scenario.hostile(Ring.Kind.U_RING, n)
                    .calm(), null, RingSimulation.Options.NONE.spreadingClients());
            all.addAll(o.shared().commitLatencies(100 * MS));
        }
        all.sort(null);
        assertThat(all).as("commit latencies at n=%d", n).isNotEmpty();
        return all.get(all.size() / 2);
    }

    @Test
    @DisplayName("(e) U-Ring, calm: the median commit latency (virtual) at n=5 exceeds n=3's (seed 003 (Ring Paxos) Table 3.1: 5f steps)")
    void uRingLatencyGrowsWithTheRing() {
        long three = medianCommitLatency(3);
        long five = medianCommitLatency(5);
        System.out.printf("ring sceptic (e): u-ring median commit latency n=3 %.2f ms, n=5 %.2f ms%n", three / 1e6,
                five / 1e6);
        assertThat(five).isGreaterThan(three);
    }

    // ---------------------------------------------------------------------------------------- (f)

    /** A role on the current coordinator's ring. */
    enum Role {
        COORDINATOR, RING_ACCEPTOR, LEARNER_ONLY, SPARE;

        /** The member in this role on {@code ring}, or -1 if the ring has none. */
        int memberOf(Ring ring, int replicas) {
            return switch (this) {
                case COORDINATOR -> ring.coordinator();
                case RING_ACCEPTOR -> {
                    for (int m = 0; m < replicas; m++) {
                        if (ring.isAcceptor(m) && m != ring.coordinator()) {
                            yield m;
                        }
                    }
                    yield -1;
                }
                case LEARNER_ONLY -> {
                    for (int m = 0; m < replicas; m++) {
                        if (ring.contains(m) && !ring.isAcceptor(m)) {
                            yield m;
                        }
                    }
                    yield -1;
                }
                case SPARE -> {
                    for (int m = 0; m < replicas; m++) {
                        if (!ring.contains(m)) {
                            yield m;
                        }
                    }
                    yield -1;
                }
            };
        }
    }

    private static void crashUnderLoad(Ring.Kind kind, Role role) {
        long[] crashed = {0};
        RingTotals t = RingTotals.run("ring sceptic (f) " + kind + " " + role, CRASH_SEEDS, seed -> {
            RingSimulation.Scenario h = RingSimulation.Scenario.hostile(kind, 5);
            // No nemesis, a lossy network, 3 s of faults: the victim stays down until the heal.
            RingSimulation.Scenario s = h.withPlan(h.plan().withNemesis(0, 0, false)).withFaultyFor(3_000 * MS);
            return RingSimulation.run(seed, s, null, RingSimulation.Options.NONE.with((sim, shared) ->
                    crashWhenFound(sim, shared, role, s.progressBound(), 400 * MS, crashed)));
        });
        System.out.printf("ring sceptic (f) %s %s: crashed in %d of %d seeds%n", kind, role, crashed[0], t.seeds);
        assertThat(crashed[0]).as("runs where the %s was found and crashed under load", role).isEqualTo(t.seeds);
        assertThat(t.decisions).isPositive();
        if (role != Role.SPARE) {
            // A spare is off the ring: its crash needs no new ring (seed 003 (Ring Paxos) §3.3.2, rule M7).
            assertThat(t.roundChanges).as("new rounds (a new coordinator or a re-formed ring) around the crashed member")
                    .isPositive();
        }
    }

    /**
     * At {@code at} (and every 20 ms after, until the coordinator's ring has a member in {@code role})
     * crashes that member and arms the progress monitor: from the crash on, every command must be
     * decided within the bound (retried at a live member if it was the victim's), so the live
     * proposers progress while the victim is down, not only after the heal.
     */
    private static void crashWhenFound(Simulation<Object> sim, RingSimulation.Shared shared, Role role, long bound,
                                       long at, long[] crashed) {
        sim.schedule(at, "crash the " + role, () -> {
            for (int r = 0; r < 5; r++) {
                RingPaxosCore core = sim.isUp(r) ? sim.<RingSimReplica>node(r).core() : null;
                if (core != null && core.isCoordinator() && core.ring() != null) {
                    int victim = role.memberOf(core.ring(), 5);
                    if (victim >= 0) {
                        sim.crash(victim);
                        crashed[0]++;
                        shared.progress.arm(sim.now(), bound);
                        return;
                    }
                }
            }
            if (sim.now() < 1_500 * MS) {
                crashWhenFound(sim, shared, role, bound, 20 * MS, crashed);
            }
        });
    }

    @Test
    @DisplayName("(f) U-Ring n=5: the coordinator, a ring acceptor, a learner-only member crash under load: every live "
            + "proposer's commands are decided (seed 003 (Ring Paxos) §3.3.5; ring re-formation)")
    void uRingCrashOfEachRole() {
        crashUnderLoad(Ring.Kind.U_RING, Role.COORDINATOR);
        crashUnderLoad(Ring.Kind.U_RING, Role.RING_ACCEPTOR);
        crashUnderLoad(Ring.Kind.U_RING, Role.LEARNER_ONLY);
    }

    @Test
    @DisplayName("(f) M-Ring n=5: the coordinator, a ring acceptor, a spare crash under load: every live proposer's "
            + "commands are decided (seed 003 (Ring Paxos) §3.3.2 spares, §3.3.5; rule M7)")
    void mRingCrashOfEachRole() {
        crashUnderLoad(Ring.Kind.M_RING, Role.COORDINATOR);
        crashUnderLoad(Ring.Kind.M_RING, Role.RING_ACCEPTOR);
        crashUnderLoad(Ring.Kind.M_RING, Role.SPARE);
    }

    private static String stack(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c).append('\n');
        }
        return sb.toString();
    }
}
