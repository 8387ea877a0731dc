package dev.parallax.ringpaxos;

import dev.parallax.core.testkit.ScriptedCluster.Envelope;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Predicate;

import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * M-Ring over the whole core ({@link RingPaxosCore} with {@link MulticastPath}) in a
 * {@code ScriptedCluster} whose multicasts are one envelope per other member (R5): rules M1–M8 of
 * the plan, seed 003 (Ring Paxos) §3.3.2, Alg. 2, §3.3.4, §3.3.6, one test each.
 */
class MRingCoreTest {
    static RingConfig mRing(int members) {
        return RingConfig.builder(members, Ring.Kind.M_RING).build();
    }

    /** Delivers everything, losing the first {@code limit} envelopes that match {@code lose}. */
    static int deliverLosing(RingCluster c, Predicate<Envelope<Object>> lose, int limit) {
        int lost = 0;
        for (int i = 0; i < 10_000 && c.pending() > 0; i++) {
            if (lost < limit && lose.test(c.queued().get(0))) {
                c.dropNext();
                lost++;
            } else {
                c.deliverNext();
            }
        }
        return lost;
    }

    @Test
    @DisplayName("smoke: three members, proposals at every member, all deliver the same sequence")
    void smoke() {
        RingCluster c = new RingCluster(mRing(3));
        c.start();
        assertThat(c.core(0).isCoordinator()).isTrue();
        assertThat(c.propose(1, batch("a"))).isTrue();
        c.deliverAll(1000);
        assertThat(c.propose(2, batch("b"))).isTrue();
        c.deliverAll(1000);
        assertThat(c.propose(0, batch("c"))).isTrue();
        c.deliverAll(1000);
        c.settle(50, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a", "b", "c");
        }
    }
}
