package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.parallax.ringpaxos.MRingCoreTest.lines;
import static dev.parallax.ringpaxos.MRingCoreTest.mRing;
import static dev.parallax.ringpaxos.MRingCoreTest.started;
import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an M-Ring member reports for speculative execution ({@link RingTentatives}, rules T1–T2;
 * seed 003 (Marandi thesis) §4.2.1): every member reports the Phase 2A's position before its
 * decision, nothing with {@code mring.speculation=off}, and a member whose round changes revokes
 * its tentative positions from the first undecided instance before reporting the new round's.
 */
class MRingSpeculationCoreTest {

    @Test
    @DisplayName("T1: the coordinator on opening, every other member on the 2A, report the position before it is decided")
    void tentativeBeforeDecision() {
        RingCluster c = started(mRing(3).speculation(true).build());
        c.propose(0, batch("a"));
        c.deliverAll(1000);
        for (int m = 0; m < 3; m++) {
            String pattern = "\\d+ " + m + " (tentative|decide) .*";
            List<String> mine = c.trace().stream().filter(l -> l.matches(pattern)).toList();
            assertThat(mine).as("member " + m).hasSize(2);
            assertThat(mine.get(0)).contains(" tentative 0 Chosen");
            assertThat(mine.get(1)).contains(" decide 0 ");
        }
        assertThat(MRingCoreTest.events(c.core(1))).containsEntry("mring.tentatives", 1L);
    }

    @Test
    @DisplayName("off (the default): no tentative position, no event")
    void offReportsNothing() {
        RingCluster c = started(mRing(3).build());
        c.propose(0, batch("a"));
        c.deliverAll(1000);
        assertThat(lines(c, "tentative")).isEmpty();
        assertThat(MRingCoreTest.events(c.core(1))).doesNotContainKey("mring.tentatives");
    }

    @Test
    @DisplayName("T2: a new coordinator's round revokes the tentative positions from the first undecided instance, before any of its own")
    void newRoundRevokes() {
        RingCluster c = started(mRing(3).speculation(true).build());
        c.propose(0, batch("a"));
        c.deliverAll(1000);
        c.propose(0, batch("b"));
        // The 2A of instance 1 reaches 1 and 2; its decision never leaves the isolated coordinator.
        for (int i = 0; i < 10 && c.pending() > 0; i++) {
            if (c.queued().get(0).datagram()) {
                c.deliverNext();
            } else {
                c.dropNext();
            }
        }
        assertThat(lines(c, "1 tentative 1 ")).hasSize(1);
        c.isolate(0);
        for (int t = 0; t < 40; t++) {
            c.tick(50 * MS);
            c.deliverAll(1000);
        }
        assertThat(c.core(1).round()).isGreaterThan(0);
        List<String> one = c.trace().stream().filter(l -> l.matches("\\d+ 1 (tentative|revoke-tentatives) .*")).toList();
        int revoke = -1;
        for (int i = 0; i < one.size(); i++) {
            if (one.get(i).contains("revoke-tentatives from 1")) {
                revoke = i;
                break;
            }
        }
        assertThat(revoke).as("member 1 revoked from its first undecided instance: " + one).isPositive();
        assertThat(one.subList(0, revoke)).allMatch(l -> l.contains(" tentative 0 ") || l.contains(" tentative 1 "));
    }
}
