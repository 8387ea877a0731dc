package dev.parallax.ringpaxos;

import dev.parallax.core.testkit.GoldenFiles;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * U-Ring scenarios whose full effect trace (every persist with its sync flag, send, decision,
 * snapshot request and timer request) is compared with a checked-in file under
 * src/test/resources/golden/ringpaxos, as smr-paxos' {@code GoldenTraceTest}: a behaviour change,
 * timers included, shows as a readable diff. To accept a deliberate change, run with
 * {@code -Dgolden.update=true} and review the diff of the golden files.
 */
class URingGoldenTraceTest {
    private static final RingConfig N3 = RingConfig.builder(3, Ring.Kind.U_RING).window(4)
            .rejoinBackoff(Duration.ofMillis(600)).build();

    @Test
    @DisplayName("golden uring-normal: Phase 1 of round 0, proposals from every member (Alg. 3; U1-U4)")
    void normal() {
        RingCluster c = new RingCluster(N3);
        c.start();
        c.propose(0, batch("a"));
        c.deliverAll(100);
        c.propose(1, batch("b"));
        c.deliverAll(100);
        c.propose(2, batch("c"));
        c.deliverAll(100);
        c.tick(50 * MS);
        c.deliverAll(100);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a", "b", "c");
        }
        GoldenFiles.assertMatches("ringpaxos/uring-normal.txt", c.trace());
    }

    @Test
    @DisplayName("golden uring-read-index: the coordinator confirms its round for its own read and a member's (RingReads Q1-Q4)")
    void readIndex() {
        RingCluster c = new RingCluster(N3);
        c.start();
        c.propose(1, batch("a"));
        c.deliverAll(100);
        c.act(0, "read 1", (core, now, out) -> core.onReadIndex(1, now, out));
        c.act(2, "read 2", (core, now, out) -> core.onReadIndex(2, now, out));
        c.deliverAll(100);
        c.propose(2, batch("b"));
        c.act(1, "read 3", (core, now, out) -> core.onReadIndex(3, now, out));   // with "b" in flight
        c.deliverAll(100);
        GoldenFiles.assertMatches("ringpaxos/uring-read-index.txt", c.trace());
    }

    @Test
    @DisplayName("golden uring-n5: f = 2, learners at positions 3 and 4; the value crosses n−1 links (U4)")
    void fiveMembers() {
        RingCluster c = new RingCluster(RingConfig.builder(5, Ring.Kind.U_RING).build());
        c.start();
        c.propose(3, batch("p3"));
        c.deliverAll(100);
        c.propose(0, batch("p0"));
        c.deliverAll(100);
        for (int i = 0; i < 5; i++) {
            assertThat(c.texts(i)).containsExactly("p3", "p0");
        }
        GoldenFiles.assertMatches("ringpaxos/uring-n5.txt", c.trace());
    }

    @Test
    @DisplayName("golden uring-member-crash: a ring member is suspected, excluded, the ring re-formed (re-formation trigger 1)")
    void memberCrash() {
        RingCluster c = new RingCluster(N3);
        c.start();
        c.propose(1, batch("a"));
        c.deliverAll(100);
        c.isolate(2);
        c.settle(100, 7);
        c.propose(1, batch("b"));
        c.deliverAll(100);
        assertThat(c.core(0).ring().order()).containsExactly(0, 1);
        assertThat(c.texts(1)).containsExactly("a", "b");
        GoldenFiles.assertMatches("ringpaxos/uring-member-crash.txt", c.trace());
    }

    @Test
    @DisplayName("golden uring-coordinator-crash: the next member suspects first, re-proposes the voted value (C1, C8)")
    void coordinatorCrash() {
        RingCluster c = new RingCluster(N3);
        c.start();
        c.propose(2, batch("x"));
        c.deliverNext();            // 2 -> 0 proposal
        c.deliverNext();            // 0 -> 1 2A: 1 votes and decides; its decision is lost
        c.dropAll();
        c.isolate(0);
        c.settle(100, 7);
        c.propose(2, batch("y"));
        c.deliverAll(100);
        c.settle(100, 1);           // C6 (B7): 2 asks for the lost decision once the gap persisted ring.catchup
        assertThat(c.core(1).isCoordinator()).isTrue();
        assertThat(c.texts(2)).containsExactly("x", "y");
        GoldenFiles.assertMatches("ringpaxos/uring-coordinator-crash.txt", c.trace());
    }

    @Test
    @DisplayName("golden uring-rejoin: an excluded member catches up off the ring and rejoins after its back-off "
            + "(re-formation trigger 3)")
    void rejoin() {
        RingCluster c = new RingCluster(N3);
        c.start();
        c.isolate(2);
        c.settle(100, 7);
        c.propose(0, batch("a"));
        c.deliverAll(100);
        c.heal();
        c.settle(100, 8);
        c.propose(2, batch("b"));
        c.deliverAll(100);
        assertThat(c.core(0).ring().order()).containsExactly(0, 1, 2);
        assertThat(c.texts(2)).containsExactly("a", "b");
        GoldenFiles.assertMatches("ringpaxos/uring-rejoin.txt", c.trace());
    }

    @Test
    @DisplayName("golden uring-lost-packet: a lost 2A is retransmitted, a lost decision is caught up (U6, C6)")
    void lostPacket() {
        RingCluster c = new RingCluster(N3);
        c.start();
        c.propose(0, batch("a"));
        c.dropNext();               // the 2A to 1 is lost
        c.tick(110 * MS);           // retransmitted
        c.deliverNext();            // 0 -> 1 2A again: 1 decides
        c.dropNext();               // its decision to 2 is lost
        c.tick(50 * MS);            // heartbeats/Alive: 2 learns it is behind
        c.deliverAll(100);
        c.tick(110 * MS);           // retransmission and catch-up
        c.deliverAll(100);
        c.tick(110 * MS);
        c.deliverAll(100);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).as("member %d", i).isEqualTo(List.of("a"));
        }
        GoldenFiles.assertMatches("ringpaxos/uring-lost-packet.txt", c.trace());
    }
}
