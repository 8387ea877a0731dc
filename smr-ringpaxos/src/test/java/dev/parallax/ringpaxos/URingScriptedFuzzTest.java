package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random scripts over the scripted cluster (a quick net before the ring simulations of
 * smr-ringpaxos' sim package): lost messages, isolations, one-way link cuts, crashes with restarts, time jumps. Safety
 * (seed 003 (Ring Paxos) Appendix, Prop. 1 uniform agreement): every two members deliver the same
 * value at every position they both reached. Liveness after the heal (Prop. 2): the members
 * converge and decide new proposals. The seeds are fixed: a failure replays exactly.
 */
class URingScriptedFuzzTest {

    @ParameterizedTest(name = "n={0}, seeds {1}..{2}, runtime detector {3}")
    @CsvSource({"3, 0, 150, false", "5, 1000, 1100, false", "3, 2000, 2100, true", "5, 3000, 3060, true"})
    @DisplayName("Prop. 1 and 2 under seeded loss, isolation, crashes and restarts (ticks or the runtime's member detector)")
    void agreementAndProgress(int n, int firstSeed, int lastSeed, boolean external) {
        for (int seed = firstSeed; seed < lastSeed; seed++) {
            run(n, seed, external);
        }
    }

    private static List<ValueId> vids(RingCluster c, int id) {
        List<ValueId> out = new ArrayList<>();
        for (RingValue v : c.delivered(id)) {
            out.add(((RingValue.Chosen) v).vid());
        }
        return out;
    }

    /**
     * What the runtime's {@code MemberDetector} does with {@link RingSuspicion}: suspect each
     * watched member silent past its time-out. Silence is approximated from the script's point of
     * view by the last time a member was not isolated (the scripted cluster keeps no arrival stamps).
     */
    private static void detect(RingCluster c, int n, long[] lastReachable, java.util.Set<Integer> isolated) {
        for (int m = 0; m < n; m++) {
            if (!isolated.contains(m)) {
                lastReachable[m] = c.now();
            }
        }
        for (int id = 0; id < n; id++) {
            if (isolated.contains(id)) {
                continue;
            }
            RingPaxosCore core = c.core(id);
            RingSuspicion rule = new RingSuspicion(core.config(), id);
            long mask = core.watchedMask();
            for (int m = 0; m < n; m++) {
                if ((mask & (1L << m)) != 0 && rule.suspects(core.watchedEpoch(), m, lastReachable[m], c.now())) {
                    c.suspectMember(id, m, core.watchedEpoch());
                }
            }
        }
    }

    private static void run(int n, int seed, boolean external) {
        Random random = new Random(seed);
        RingCluster c = new RingCluster(RingConfig.builder(n, Ring.Kind.U_RING).window(4).maxPending(8).build());
        if (external) {
            for (int i = 0; i < n; i++) {
                c.core(i).detectFailuresExternally();
            }
        }
        long[] lastReachable = new long[n];
        java.util.Set<Integer> isolated = new java.util.HashSet<>();
        c.start();
        int proposals = 0;
        for (int step = 0; step < 400; step++) {
            int r = random.nextInt(100);
            if (r < 20) {
                if (c.propose(random.nextInt(n), batch("s" + seed + "-" + proposals))) {
                    proposals++;
                }
            } else if (r < 60) {
                if (c.pending() > 0) {
                    c.deliverNext();
                }
            } else if (r < 66) {
                if (c.pending() > 0) {
                    c.dropNext();
                }
            } else if (r < 85) {
                c.tick((10 + random.nextInt(110)) * MS);
                if (external) {
                    detect(c, n, lastReachable, isolated);
                }
            } else if (r < 87) {
                int m = random.nextInt(n);
                c.isolate(m);
                isolated.add(m);
            } else if (r < 88) {
                int from = random.nextInt(n);
                int to = random.nextInt(n);
                if (from != to) {
                    c.cutLink(from, to);
                }
            } else if (r < 92) {
                c.heal();
                isolated.clear();
            } else if (r < 94) {
                c.crashAndRestart(random.nextInt(n));
            } else {
                c.deliverAll(50);
            }
            assertAgreement(c, n, seed);
        }
        c.heal();
        isolated.clear();
        c.settle(100, 60);
        for (int i = 0; i < n; i++) {
            assertThat(c.propose(i, batch("final-" + i))).as("seed %d: member %d takes a proposal", seed, i).isTrue();
            c.settle(50, 10);
        }
        c.settle(100, 60);
        assertAgreement(c, n, seed);
        for (int i = 0; i < n; i++) {
            assertThat(vids(c, i)).as("seed %d: member %d converged with member 0", seed, i).isEqualTo(vids(c, 0));
            for (int j = 0; j < n; j++) {
                assertThat(c.texts(i)).as("seed %d: member %d has member %d's final proposal", seed, i, j)
                        .contains("final-" + j);
            }
        }
    }

    private static void assertAgreement(RingCluster c, int n, int seed) {
        for (int i = 0; i < n; i++) {
            List<ValueId> a = vids(c, i);
            for (int j = i + 1; j < n; j++) {
                List<ValueId> b = vids(c, j);
                int common = Math.min(a.size(), b.size());
                assertThat(a.subList(0, common)).as("seed %d: members %d and %d agree", seed, i, j)
                        .isEqualTo(b.subList(0, common));
            }
        }
    }
}
