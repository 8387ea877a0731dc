package dev.parallax.paxos.spaxos;

import dev.parallax.core.testkit.GoldenFiles;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.parallax.paxos.spaxos.DissemCluster.MS;
import static dev.parallax.paxos.spaxos.DissemCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scripted dissemination scenarios whose full effect trace (persist with sync flag, send, stable
 * report as {@code decide}, snapshot request, timer request) is compared with a checked-in file
 * under src/test/resources/golden/spaxos. To accept a deliberate change, rerun with
 * {@code -Dgolden.update=true} and review the diff.
 */
class DisseminationGoldenTraceTest {
    private static final SPaxosConfig CONFIG = SPaxosConfig.builder(3).ackInterval(Duration.ofMillis(1))
            .ackRefresh(Duration.ofMillis(100)).resendDelay(Duration.ofMillis(50)).build();

    @Test
    @DisplayName("dissem-normal: 3 replicas, 2 origins, piggy-backed acks, stability at f+1 (seed 002 (S-Paxos) §IV-A, Alg. 1 l.9-15; §IV-C)")
    void normal() {
        DissemCluster c = new DissemCluster(CONFIG, now -> 0);
        c.propose(0, batch("a"));
        c.propose(1, batch("b"));
        c.deliverAll(100);
        c.propose(0, batch("c"));
        c.deliverAll(100);
        c.tick(2 * MS);
        c.deliverAll(100);
        for (int i = 0; i < 3; i++) {
            assertThat(c.delivered(i)).as("replica %s", i).hasSize(3);
        }
        GoldenFiles.assertMatches("spaxos/dissem-normal.txt", c.trace());
    }

    @Test
    @DisplayName("dissem-lost-forward: a FORWARD lost, fetched by RESENDFORWARD after Δ from an acker (seed 002 (S-Paxos) Alg. 1 l.26-31)")
    void lostForward() {
        DissemCluster c = new DissemCluster(CONFIG, now -> 0);
        c.propose(0, batch("a"));
        c.deliverNext();          // 0 -> 1
        c.dropNext();             // 0 -> 2 lost
        c.deliverAll(100);        // 1's acks reach 0 and 2
        c.tick(2 * MS);
        c.deliverAll(100);
        c.tick(50 * MS);          // Δ after 2 saw the gap
        c.deliverAll(100);
        assertThat(c.core(2).body(new BatchId(0, 0, 1))).isNotNull();
        assertThat(c.delivered(2)).extracting(Batch::id).containsExactly(new BatchId(0, 0, 1));
        GoldenFiles.assertMatches("spaxos/dissem-lost-forward.txt", c.trace());
    }

    @Test
    @DisplayName("dissem-origin-restart: a new incarnation, the undecided old body re-forwarded")
    void originRestart() {
        DissemCluster c = new DissemCluster(CONFIG);
        c.tick(MS);
        c.propose(0, batch("old"));
        c.dropAll();              // every FORWARD lost
        c.crashAndRestart(0);
        c.tick(MS);               // re-forward of 0:0:1 by incarnation 1000000
        c.propose(0, batch("new"));
        c.deliverAll(100);
        c.tick(2 * MS);
        c.deliverAll(100);
        assertThat(c.core(0).incarnation()).as("the floor (virtual time) is above the recovered 0 + 1").isEqualTo(MS);
        assertThat(c.delivered(1)).extracting(Batch::id).containsExactly(new BatchId(0, 0, 1), new BatchId(0, MS, 1));
        GoldenFiles.assertMatches("spaxos/dissem-origin-restart.txt", c.trace());
    }

    @Test
    @DisplayName("dissem-back-pressure: the span bound B refuses, a decision releases it; the receiver window refuses beyond 2B")
    void backPressure() {
        SPaxosConfig b2 = SPaxosConfig.builder(3).maxUndecidedPerOrigin(2).eagerBelow(1).build();
        DissemCluster c = new DissemCluster(b2, now -> 0);
        c.propose(0, batch("1"));
        c.propose(0, batch("2"));
        c.propose(0, batch("3"));   // refused
        c.deliverAll(100);
        c.core(0).decided(new BatchId(0, 0, 1));
        c.note("0 decided 0:0:1");
        c.propose(0, batch("3"));
        c.deliverAll(100);
        c.tick(2 * MS);
        c.deliverAll(100);
        assertThat(c.delivered(1)).hasSize(3);
        // The origin and replica 1 learn decisions that replica 2 has not learned yet: 2's window
        // (lowest undecided 1 + 2B = 5) refuses sn 5 unacked; once it learns sn 1 decided, it
        // fetches sn 5 after Δ.
        for (long sn = 2; sn <= 3; sn++) {
            c.core(0).decided(new BatchId(0, 0, sn));
            c.core(1).decided(new BatchId(0, 0, sn));
        }
        c.core(1).decided(new BatchId(0, 0, 1));
        c.note("0 and 1 decided 0:0:1..3");
        c.propose(0, batch("4"));
        c.propose(0, batch("5"));
        c.deliverAll(100);
        assertThat(c.core(2).body(new BatchId(0, 0, 5))).as("beyond the receiver window").isNull();
        c.core(2).decided(new BatchId(0, 0, 1));
        c.note("2 decided 0:0:1");
        c.tick(2 * MS);
        c.deliverAll(100);
        c.tick(50 * MS);
        c.deliverAll(100);
        assertThat(c.core(2).body(new BatchId(0, 0, 5))).isNotNull();
        GoldenFiles.assertMatches("spaxos/dissem-back-pressure.txt", c.trace());
    }

    @Test
    @DisplayName("dissem-amnesia-recovery: a holder loses its bodies in a power loss and recovers once both peers' vectors "
            + "were heard and the ids fetched again (seed 002 (S-Paxos) §IV-B a)")
    void amnesiaRecovery() {
        DissemCluster c = new DissemCluster(CONFIG, now -> now);
        c.propose(0, batch("a"));
        c.propose(0, batch("b"));
        c.deliverAll(100);
        c.tick(2 * MS);
        c.deliverAll(100);
        assertThat(c.core(1).body(new BatchId(0, 0, 2))).isNotNull();
        c.powerLoss(1);
        assertThat(c.core(1).recovering()).isTrue();
        assertThat(c.core(1).body(new BatchId(0, 0, 2))).isNull();
        c.tick(100 * MS);         // the peers' ack refresh: both vectors heard, target 0:0<=2
        c.deliverAll(100);
        c.note("1 recovering=" + c.core(1).recovering());
        assertThat(c.core(1).recovering()).as("target fixed, bodies missing").isTrue();
        c.tick(50 * MS);          // Δ after the gap: RESENDFORWARD, the holder answers
        c.deliverAll(100);
        c.note("1 recovering=" + c.core(1).recovering());
        assertThat(c.core(1).recovering()).isFalse();
        assertThat(c.core(1).body(new BatchId(0, 0, 1))).isNotNull();
        assertThat(c.core(1).body(new BatchId(0, 0, 2))).isNotNull();
        GoldenFiles.assertMatches("spaxos/dissem-amnesia-recovery.txt", c.trace());
    }
}
