package dev.parallax.ringpaxos;

import dev.parallax.core.testkit.GoldenFiles;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static dev.parallax.ringpaxos.MRingCoreTest.bytes;
import static dev.parallax.ringpaxos.MRingCoreTest.decision;
import static dev.parallax.ringpaxos.MRingCoreTest.deliverLosing;
import static dev.parallax.ringpaxos.MRingCoreTest.mRing;
import static dev.parallax.ringpaxos.MRingCoreTest.twoA;
import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scripted M-Ring scenarios (seed 003 (Ring Paxos) §3.3.2, Alg. 2, §3.3.4, §3.3.6) whose full
 * effect trace — every persist with its sync flag, send, multicast ({@code mcast}), decision and
 * timer — is compared with a checked-in file under {@code golden/ringpaxos/}. n = 3, round 0:
 * ring {@code [1, 0]} (acceptor 1, coordinator 0), spare 2. To accept a deliberate change, rerun
 * with {@code -Dgolden.update=true} and review the diff ({@link GoldenFiles}).
 */
class MRingGoldenTraceTest {

    @Test
    @DisplayName("M1–M4 (Alg. 2 Tasks 1–5): proposals from every member, one datagram per 2A, the 2B chain, decisions by multicast")
    void normal() {
        RingCluster c = new RingCluster(mRing(3).build());
        c.start();
        c.propose(1, batch("a"));
        c.deliverAll(1000);
        c.propose(2, batch("b"));
        c.deliverAll(1000);
        c.propose(0, batch("c"));
        c.deliverAll(1000);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a", "b", "c");
        }
        GoldenFiles.assertMatches("ringpaxos/mring-normal.txt", c.trace());
    }

    @Test
    @DisplayName("M5 (§3.3.4 ¶2): the 2A is lost to every member; the coordinator multicasts it again after mring.retransmit")
    void lost2A() {
        RingCluster c = new RingCluster(mRing(3).build());
        c.start();
        c.propose(0, batch("a"));
        c.note("both copies of the 2A are lost");
        deliverLosing(c, twoA(1).or(twoA(2)), 2);
        c.tick(25 * MS);
        c.deliverAll(1000);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a");
        }
        GoldenFiles.assertMatches("ringpaxos/mring-lost-2a.txt", c.trace());
    }

    @Test
    @DisplayName("§3.3.4 (a), M8: the spare misses the decision and learns it from its preferential acceptor")
    void lostDecision() {
        RingCluster c = new RingCluster(mRing(3).build());
        c.start();
        c.propose(0, batch("a"));
        c.note("the decision is lost to the spare");
        deliverLosing(c, decision(2), 1);
        assertThat(c.texts(2)).isEmpty();
        c.settle(50, 4);            // C6 (B7): it asks once the gap persisted one ring.catchup
        assertThat(c.texts(2)).containsExactly("a");
        GoldenFiles.assertMatches("ringpaxos/mring-lost-decision.txt", c.trace());
    }

    @Test
    @DisplayName("M6 (§3.3.6): a slow learner's backlog halves the window and holds it; it regrows once the learner reports it caught up")
    void flowControl() {
        RingCluster c = new RingCluster(mRing(3).window(8).mringFcThreshold(2).build());
        c.start();
        for (String s : new String[] {"a", "b", "c"}) {
            c.propose(0, batch(s));
        }
        c.deliverAll(1000);
        c.delivered(1, 3);
        c.note("the spare has executed nothing: backlog 3");
        c.delivered(2, 0);
        c.deliverAll(1000);
        c.note("window " + c.core(0).window());
        assertThat(c.core(0).window()).isEqualTo(4);
        c.delivered(2, 3);
        c.tick(30 * MS);
        c.deliverAll(1000);
        c.note("window " + c.core(0).window() + ": the spare's high report holds it until its next Alive");
        assertThat(c.core(0).window()).isEqualTo(4);
        c.settle(30, 2);
        c.note("window " + c.core(0).window());
        assertThat(c.core(0).window()).isEqualTo(8);
        GoldenFiles.assertMatches("ringpaxos/mring-flow-control.txt", c.trace());
    }

    @Test
    @DisplayName("M7 (§3.3.2, spares): the ring acceptor is cut off and suspected; the spare takes its place in the next round")
    void spare() {
        RingCluster c = new RingCluster(mRing(3).build());
        c.start();
        c.isolate(1);
        c.propose(0, batch("a"));
        c.deliverAll(1000);
        c.suspectMember(0, 1, c.core(0).watchedEpoch());
        c.deliverAll(1000);
        c.note("ring " + c.core(0).ring());
        assertThat(c.core(0).ring().order()).containsExactly(2, 0);
        assertThat(c.texts(2)).containsExactly("a");
        GoldenFiles.assertMatches("ringpaxos/mring-spare.txt", c.trace());
    }

    @Test
    @DisplayName("M1: a value larger than a datagram goes as Phase2AUnicast to the ring acceptor; the spare fetches it "
            + "by catch-up")
    void oversized() {
        RingCluster c = new RingCluster(mRing(3).mringPacketBytes(512).build());
        c.start();
        c.propose(0, bytes(600, 'x'));
        c.deliverAll(1000);
        c.settle(50, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(c.delivered(i)).hasSize(1);
        }
        GoldenFiles.assertMatches("ringpaxos/mring-oversized.txt", c.trace());
    }
}
