package dev.parallax.paxos;

import static dev.parallax.paxos.CoreFixtures.MS;
import static dev.parallax.paxos.CoreFixtures.v;

import dev.parallax.core.testkit.GoldenFiles;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scripted scenarios whose full effect trace (every persist, send, decision, snapshot request and
 * timer request) is compared with a checked-in expectation under src/test/resources/golden. A
 * protocol change that alters behaviour, timers included, shows up as a readable diff. Driven by
 * the testkit's generic scripted cluster and compared by its {@link GoldenFiles}: to accept a
 * deliberate change, run with {@code -Dgolden.update=true} and review the diff of the golden files.
 */
class GoldenTraceTest {
    private static final PaxosConfig CONFIG = PaxosConfig.builder(3).window(2)
            .heartbeat(Duration.ofMillis(50)).suspect(Duration.ofMillis(500))
            .retransmit(Duration.ofMillis(200)).catchUp(Duration.ofMillis(100)).build();

    @Test
    void proposeFailOverAndCatchUp() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);                 // replica 0 starts view 0
        c.deliverAll(100);
        c.propose(0, v("a"));
        c.propose(0, v("b"));
        c.deliverAll(100);
        c.isolate(0);               // the leader is cut off ...
        c.propose(0, v("lost"));    // ... and its last proposal never leaves
        c.deliverAll(100);
        c.tick(600 * MS);           // replica 1 suspects 0 and starts view 1
        c.deliverAll(100);
        c.propose(1, v("c"));
        c.deliverAll(100);
        c.crashAndRestart(0);       // the old leader restarts from its log
        c.heal();
        c.tick(60 * MS);            // heartbeat from 1; 0 learns it is behind
        c.deliverAll(100);
        c.tick(150 * MS);           // 0 catches up
        c.deliverAll(100);
        assertThat(c.delivered(0)).containsExactly(v("a"), v("b"), v("c"));
        GoldenFiles.assertMatches("propose-failover-catchup.txt", c.trace());
    }

    @Test
    void readIndexAtTheLeaderAndAFollowerAndThroughAFailOver() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);                 // replica 0 starts view 0
        c.deliverAll(100);
        c.propose(0, v("a"));
        c.deliverAll(100);
        c.act(0, "read 1", (core, now, out) -> core.onReadIndex(1, now, out));   // Q1, Q2 at the leader
        c.act(2, "read 2", (core, now, out) -> core.onReadIndex(2, now, out));   // a follower asks the leader
        c.deliverAll(100);          // Q4: both answered at position 1
        c.isolate(0);
        c.act(1, "read 3", (core, now, out) -> core.onReadIndex(3, now, out));   // the leader never answers
        c.deliverAll(100);
        c.tick(600 * MS);           // Q5: read 3 fails; replica 1 suspects 0 and starts view 1
        c.deliverAll(100);
        c.act(2, "read 4", (core, now, out) -> core.onReadIndex(4, now, out));   // the new leader confirms it
        c.deliverAll(100);
        GoldenFiles.assertMatches("read-index.txt", c.trace());
    }

    @Test
    void aLearnerJoinsReplacesAVoterAndTakesLeadershipByTransfer() {
        ScriptedCluster c = new ScriptedCluster(CONFIG, 4);
        c.tick(MS);                 // replica 0 starts view 0
        c.deliverAll(100);
        c.propose(0, v("a"));
        c.deliverAll(100);
        int alpha = CONFIG.window();
        c.act(0, "add learner 3", (core, now, out) -> assertThat(core.proposeMembership(
                dev.parallax.core.membership.MembershipChange.addLearner(3, "h:3", alpha), now, out)).isNull());
        c.deliverAll(200);          // decided, then no-ops up to its effective instance
        for (int i = 0; i < 4; i++) {
            c.tick(60 * MS);        // heartbeats reach 3, which catches up and acknowledges
            c.deliverAll(200);
        }
        c.act(0, "replace 2 by 3", (core, now, out) -> assertThat(core.proposeMembership(
                dev.parallax.core.membership.MembershipChange.replace(2, 3, "", alpha), now, out)).isNull());
        c.deliverAll(200);
        c.tick(60 * MS);
        c.deliverAll(200);
        c.act(0, "transfer to 3", (core, now, out) -> assertThat(core.transferLeadership(3, now, out)).isNull());
        c.deliverAll(200);
        c.tick(60 * MS);            // 3 acknowledges the heartbeat: TimeoutNow, view 3
        c.deliverAll(200);
        c.propose(3, v("b"));
        c.deliverAll(200);
        assertThat(c.core(3).isLeader()).isTrue();
        assertThat(c.core(0).membership().describe()).isEqualTo("voters=[0,1,3] learners=[] added={3=h:3}");
        assertThat(c.delivered(1).stream().filter(x -> !x.isNoop() && !x.isMembership())).containsExactly(v("a"), v("b"));
        GoldenFiles.assertMatches("learner-replace-transfer.txt", c.trace());
    }

    @Test
    void restartedLeaderTakesANewViewAndReproposes() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);
        c.deliverAll(100);
        c.propose(0, v("x"));
        c.deliverNext();            // Propose reaches 0 itself only
        c.deliverNext();            // and replica 1
        c.dropAll();                // everything else is lost
        c.crashAndRestart(0);
        c.tick(MS);                 // 0 recovers its promise of view 0 and waits, as a follower
        c.deliverAll(200);
        c.tick(600 * MS);           // nobody leads: replica 1 suspects first and starts view 1
        c.deliverAll(200);
        c.tick(250 * MS);
        c.deliverAll(200);
        assertThat(c.core(1).view()).isEqualTo(1);
        assertThat(c.core(0).view()).isEqualTo(1);
        assertThat(c.delivered(2)).containsExactly(v("x"));
        GoldenFiles.assertMatches("restarted-leader.txt", c.trace());
    }

    @Test
    void viewChangeWithPagedPhase1AndWindowSizedReproposal() {
        ScriptedCluster c = new ScriptedCluster(PaxosConfig.builder(3).window(2).catchUpMaxInstances(2)
                .heartbeat(Duration.ofMillis(50)).suspect(Duration.ofMillis(500))
                .retransmit(Duration.ofMillis(200)).catchUp(Duration.ofMillis(100)).build());
        c.tick(MS);
        c.deliverAll(100);
        c.isolate(1);               // replica 1 misses instances 0..4; replica 2 votes for them but
        for (String s : new String[]{"a", "b", "c", "d", "e"}) {
            c.propose(0, v(s));     // loses every Accept, so it learns no decision: it is no further
            while (c.pending() > 0) { // than 1 and grants 1's pre-vote
                if (c.queued().get(0).to() == 2 && c.queued().get(0).message() instanceof PaxosMessage.Accept) {
                    c.dropNext();
                } else {
                    c.deliverNext();
                }
            }
        }
        c.heal();
        c.isolate(0);               // ... and then takes over from the cut-off leader:
        c.tick(600 * MS);           // Phase 1 pages through replica 2's votes two at a time,
        c.deliverAll(300);          // then re-proposes them two at a time (WND 2)
        assertThat(c.delivered(1)).containsExactly(v("a"), v("b"), v("c"), v("d"), v("e"));
        GoldenFiles.assertMatches("paged-view-change.txt", c.trace());
    }

    @Test
    void aLeaderThatCannotHearStepsDownAndTheNextInLineTakesOver() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);                 // replica 0 starts view 0
        c.deliverAll(100);
        c.propose(0, v("a"));
        c.deliverAll(100);
        c.cutLink(1, 0);            // 0 still reaches 1 and 2, but hears neither
        c.cutLink(2, 0);
        for (int i = 0; i < 10; i++) {
            c.tick(50 * MS);        // heartbeats reach the followers; their acks are lost
            c.deliverAll(100);
        }                           // at 501 ms 0 has heard no quorum for 500 ms: it steps down and says so
        c.tick(50 * MS);            // 1 (next in line) asks for a pre-vote on its next tick, 2 grants: view 1
        c.deliverAll(100);
        c.propose(1, v("b"));
        c.deliverAll(100);
        assertThat(c.core(0).isLeader()).isFalse();
        assertThat(c.core(1).isLeader()).isTrue();
        assertThat(c.delivered(2)).containsExactly(v("a"), v("b"));
        GoldenFiles.assertMatches("deaf-leader-steps-down.txt", c.trace());
    }
}
