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
 * smr-ringpaxos' sim package): lost messages, isolations, crashes with restarts, time jumps. Safety
 * (seed 003 (Ring Paxos) Appendix, Prop. 1 uniform agreement): every two members deliver the same
 * value at every position they both reached. Liveness after the heal (Prop. 2): the members
 * converge and decide new proposals. The seeds are fixed: a failure replays exactly.
 */
class URingScriptedFuzzTest {

    @ParameterizedTest(name = "n={0}, seeds {1}..{2}")
    @CsvSource({"3, 0, 40", "5, 100, 130"})
    @DisplayName("Prop. 1 and 2 under seeded loss, isolation, crashes and restarts")
    void agreementAndProgress(int n, int firstSeed, int lastSeed) {
        for (int seed = firstSeed; seed < lastSeed; seed++) {
            run(n, seed);
        }
    }

    private static List<ValueId> vids(RingCluster c, int id) {
        List<ValueId> out = new ArrayList<>();
        for (RingValue v : c.delivered(id)) {
            out.add(((RingValue.Chosen) v).vid());
        }
        return out;
    }

    private static void run(int n, int seed) {
        Random random = new Random(seed);
        RingCluster c = new RingCluster(RingConfig.builder(n, Ring.Kind.U_RING).window(4).maxPending(8).build());
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
            } else if (r < 88) {
                c.isolate(random.nextInt(n));
            } else if (r < 92) {
                c.heal();
            } else if (r < 94) {
                c.crashAndRestart(random.nextInt(n));
            } else {
                c.deliverAll(50);
            }
            assertAgreement(c, n, seed);
        }
        c.heal();
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
