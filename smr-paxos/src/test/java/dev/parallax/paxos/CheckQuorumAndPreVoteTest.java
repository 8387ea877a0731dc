package dev.parallax.paxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.parallax.paxos.CoreFixtures.CONFIG;
import static dev.parallax.paxos.CoreFixtures.MS;
import static dev.parallax.paxos.CoreFixtures.v;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Check-quorum and pre-vote, one rule per test (Raft thesis §6.2 and §9.6, adapted
 * to Multi-Paxos' rotating views). Three replicas, suspect timeout 500 ms, heartbeat 50 ms,
 * retransmit 200 ms, window 3 ({@link CoreFixtures#CONFIG}).
 */
class CheckQuorumAndPreVoteTest {
    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();

    private static MultiPaxosCore fresh(int id) {
        return CoreFixtures.fresh(id);
    }

    private MultiPaxosCore leaderOfView0() {
        return CoreFixtures.leaderOfView0(out);
    }

    private List<PaxosMessage> sent() {
        return out.sends().stream().map(EffectBuffer.Outgoing::message).toList();
    }

    @Test
    @DisplayName("Raft §6.2 check-quorum: a leader that hears from no quorum within the suspect timeout steps down and says so")
    void aLeaderThatHearsNoQuorumStepsDownAndSaysSo() {
        MultiPaxosCore leader = leaderOfView0();
        for (long t = 50; t <= 500; t += 50) {
            leader.onTick(t * MS, out); // it heartbeats; no acknowledgement comes back
            assertThat(leader.isLeader()).as("at %d ms", t).isTrue();
        }
        out.clear();
        leader.onTick(501 * MS, out);
        assertThat(leader.isLeader()).isFalse();
        assertThat(leader.isFollowing()).isTrue();
        assertThat(leader.view()).as("it stays in its view, as a follower").isZero();
        assertThat(out.sends()).containsExactlyInAnyOrder(new EffectBuffer.Outgoing<>(1, new PaxosMessage.StepDown(0)),
                new EffectBuffer.Outgoing<>(2, new PaxosMessage.StepDown(0)));
        assertThat(leader.canPropose()).isFalse();
        assertThat(leader.onProposal(v("late"), 502 * MS, out)).as("client work is refused as by any non-leader").isFalse();
        out.clear();
        leader.onTick(560 * MS, out);
        assertThat(sent()).as("no more heartbeats").noneMatch(m -> m instanceof PaxosMessage.Heartbeat);
        assertThat(leader.stepDowns()).isEqualTo(1);
    }

    @Test
    @DisplayName("Raft §6.2: acknowledged heartbeats from one follower (a quorum with the leader) keep an idle leader leading")
    void acknowledgedHeartbeatsKeepAnIdleLeaderLeading() {
        MultiPaxosCore leader = leaderOfView0();
        for (long t = 50; t <= 3_000; t += 50) {
            leader.onTick(t * MS + 1, out);
            assertThat(sent()).contains(new PaxosMessage.Heartbeat(0, 0));
            out.clear();
            leader.onMessage(2, new PaxosMessage.HeartbeatAck(0, 0), t * MS + 1, out);
        }
        assertThat(leader.isLeader()).isTrue();
        assertThat(leader.stepDowns()).isZero();
    }

    @Test
    @DisplayName("Raft §6.2: votes for the leader's proposals count as hearing from the follower; catch-up traffic does not")
    void votesCountCatchUpTrafficDoesNot() {
        MultiPaxosCore leader = leaderOfView0();
        leader.onProposal(v("a"), 10 * MS, out);
        leader.onMessage(1, new PaxosMessage.Accept(0, 0), 400 * MS, out);
        leader.onTick(600 * MS, out);
        assertThat(leader.isLeader()).as("1's Accept at 400 ms is within 500 ms").isTrue();
        leader.onMessage(2, new PaxosMessage.HeartbeatAck(7, 0), 700 * MS, out); // a higher view deposes it anyway
        assertThat(leader.view()).isEqualTo(7);
        MultiPaxosCore other = leaderOfView0();
        other.onMessage(1, new PaxosMessage.Accept(0, 5), 300 * MS, out);
        other.onMessage(2, new PaxosMessage.CatchUpQuery(0, 0, 1), 700 * MS, out); // says nothing about hearing the leader
        other.onTick(900 * MS, out);
        assertThat(other.isLeader()).isFalse();
    }

    @Test
    @DisplayName("Raft §6.2: a replica whose Phase 1 hears no quorum gives up too, instead of retransmitting Prepares forever")
    void aReplicaStartingAViewThatHearsNoQuorumStepsDown() {
        MultiPaxosCore starter = fresh(0);
        starter.onTick(1, out);
        // A peer is up (it asks for decisions), but it does not answer the Prepare.
        starter.onMessage(2, new PaxosMessage.CatchUpQuery(0, 0, 1), 1, out);
        for (long t = 50; t <= 500; t += 50) {
            starter.onTick(t * MS, out);
        }
        assertThat(starter.isFollowing()).isFalse();
        out.clear();
        starter.onTick(501 * MS, out);
        assertThat(starter.isFollowing()).isTrue();
        assertThat(sent()).contains(new PaxosMessage.StepDown(0)).noneMatch(m -> m instanceof PaxosMessage.Prepare);
    }

    @Test
    @DisplayName("seed 000 Phase 1: a replica that learned decisions by catch-up while preparing proposes above them, never at a decided instance")
    void aNewLeaderProposesAboveWhatItLearnedWhilePreparing() {
        // Once pinned by simulation seeds 5565, 14448 and 19715 (Proposer.lead started at the
        // Phase 1 start, not at the learner's first undecided instance); the nemesis' draws have
        // changed since, so the rule is pinned here, in the core.
        MultiPaxosCore starter = fresh(0);
        starter.onTick(1, out); // Prepare(0, from 0)
        starter.onMessage(1, new PaxosMessage.CatchUpReply(0, 0, List.of(
                new PaxosMessage.Decided(0, v("x")), new PaxosMessage.Decided(1, v("y")))), 2, out);
        starter.onMessage(0, new PaxosMessage.PrepareOk(0, 0, List.of()), 3, out);
        starter.onMessage(1, new PaxosMessage.PrepareOk(0, 0, List.of()), 3, out);
        assertThat(starter.isLeader()).isTrue();
        out.clear();
        starter.onProposal(v("a"), 4, out);
        assertThat(sent()).filteredOn(m -> m instanceof PaxosMessage.Propose)
                .isNotEmpty()
                .allSatisfy(m -> assertThat(((PaxosMessage.Propose) m).instance()).isGreaterThanOrEqualTo(2));
    }

    @Test
    @DisplayName("check-quorum at a cold start: the first leader waits for peers that start later (up to the restart hold) instead of stepping down")
    void theFirstLeaderOfAFreshClusterWaitsForItsPeersToStart() {
        // Processes of a new cluster start one by one; replica 0 starts view 0 at once. Before this
        // rule it stepped down 500 ms later if its peers were not up yet, and every cold start of
        // ./parallax demo and bench began with a step-down warning and two view changes.
        MultiPaxosCore first = fresh(0);
        first.onTick(1, out);
        for (long t = 50; t < 2_000; t += 50) {
            first.onTick(t * MS, out);
        }
        assertThat(first.stepDowns()).as("no peer heard yet, within the restart hold").isZero();
        assertThat(first.isFollowing()).isFalse();
        // Peer 1 starts at 1.9 s and answers the Prepare it receives: the view starts normally.
        first.onMessage(0, new PaxosMessage.PrepareOk(0, 0, List.of()), 1_900 * MS, out);
        first.onMessage(1, new PaxosMessage.PrepareOk(0, 0, List.of()), 1_900 * MS, out);
        assertThat(first.isLeader()).isTrue();
        for (long t = 1_950; t <= 3_000; t += 50) {
            first.onTick(t * MS, out);
            first.onMessage(1, new PaxosMessage.HeartbeatAck(0, 0), t * MS, out);
        }
        assertThat(first.isLeader()).isTrue();
        assertThat(first.stepDowns()).isZero();
    }

    @Test
    @DisplayName("check-quorum at a cold start: a first leader that hears no peer at all steps down once the restart hold ends")
    void aFirstLeaderThatNeverHearsAPeerStepsDownAfterTheRestartHold() {
        MultiPaxosCore deaf = fresh(0);
        deaf.onTick(1, out);
        for (long t = 50; t < 2_000; t += 50) {
            deaf.onTick(t * MS, out);
        }
        assertThat(deaf.isFollowing()).isFalse();
        deaf.onTick(2_000 * MS + 1, out);
        assertThat(deaf.isFollowing()).as("after the restart hold (%d ms)", CONFIG.restartHoldNanos() / MS).isTrue();
        assertThat(deaf.stepDowns()).isOne();
    }

    @Test
    @DisplayName("check-quorum: a follower acknowledges its leader's heartbeats, not other replicas' and not while recovering")
    void followersAcknowledgeTheirLeadersHeartbeats() {
        MultiPaxosCore follower = fresh(1);
        follower.onTick(1, out);
        follower.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 10 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(0, new PaxosMessage.HeartbeatAck(0, 0)));
        out.clear();
        follower.onMessage(2, new PaxosMessage.Heartbeat(0, 0), 20 * MS, out);
        assertThat(out.sends()).as("2 does not lead view 0").isEmpty();
        MultiPaxosCore amnesiac = new MultiPaxosCore(CONFIG, 1, List.of(new PaxosRecord.Promise(0)), true, 0);
        amnesiac.onTick(1, out);
        out.clear();
        amnesiac.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 10 * MS, out);
        assertThat(sent()).noneMatch(m -> m instanceof PaxosMessage.HeartbeatAck);
    }

    @Test
    @DisplayName("check-quorum: a leader learns from an ack how far decisions go at the follower")
    void anAckTellsTheLeaderWhatTheFollowerDecided() {
        MultiPaxosCore leader = leaderOfView0();
        leader.onMessage(1, new PaxosMessage.HeartbeatAck(0, 2), 10 * MS, out);
        out.clear();
        leader.onTick(200 * MS, out);
        assertThat(sent()).as("it knows instances 0 and 1 are decided and asks for them")
                .contains(new PaxosMessage.CatchUpQuery(0, 0, 2));
    }

    @Test
    @DisplayName("StepDown: the next in line suspects at once, the others half a suspect timeout apart, even with an external detector")
    void aStepDownMakesFollowersSuspectAtOnceByRank() {
        MultiPaxosCore one = fresh(1);
        MultiPaxosCore two = fresh(2);
        for (MultiPaxosCore f : List.of(one, two)) {
            f.detectFailuresExternally();
            f.onTick(1, out);
            f.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 100 * MS, out);
            f.onMessage(0, new PaxosMessage.StepDown(0), 110 * MS, out);
            f.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 111 * MS, out); // sent before the step-down, arriving late
        }
        out.clear();
        one.onTick(112 * MS, out);
        assertThat(sent()).containsOnly(new PaxosMessage.PreVote(0, 0));
        out.clear();
        two.onTick(112 * MS, out);
        assertThat(out.sends()).isEmpty();
        two.onTick(360 * MS, out);
        assertThat(sent()).containsOnly(new PaxosMessage.PreVote(0, 0));
        out.clear();
        MultiPaxosCore notFromTheLeader = fresh(1);
        notFromTheLeader.onTick(1, out);
        notFromTheLeader.onMessage(2, new PaxosMessage.StepDown(0), 10 * MS, out);
        notFromTheLeader.onTick(20 * MS, out);
        assertThat(sent()).as("only the leader of the view can step down from it").isEmpty();
    }

    @Test
    @DisplayName("pre-vote: the leader of my view asking to replace itself does not lead: I suspect it at once, even with an external detector, and grant")
    void aPreVoteFromTheLeaderOfMyViewIsAStepDown() {
        MultiPaxosCore one = fresh(1);
        one.detectFailuresExternally();
        one.onTick(1, out);
        one.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 100 * MS, out);
        out.clear();
        // Replica 0 stepped down (or restarted) and suspects its own view; its StepDown, if any, was lost.
        one.onMessage(0, new PaxosMessage.PreVote(0, 0), 150 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(0, new PaxosMessage.PreVoteReply(0, 0, true)));
        out.clear();
        one.onTick(151 * MS, out);
        assertThat(sent()).as("the next in line asks at once").containsOnly(new PaxosMessage.PreVote(0, 0));
    }

    @Test
    @DisplayName("Raft §9.6 pre-vote: a replica that heard from its leader within the suspect timeout refuses; later it grants")
    void aReplicaThatHearsAWorkingLeaderRefusesAPreVote() {
        MultiPaxosCore two = fresh(2);
        two.onTick(1, out);
        two.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 100 * MS, out);
        out.clear();
        two.onMessage(1, new PaxosMessage.PreVote(0, 0), 300 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(1, new PaxosMessage.PreVoteReply(0, 0, false)));
        out.clear();
        two.onMessage(1, new PaxosMessage.PreVote(0, 0), 600 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(1, new PaxosMessage.PreVoteReply(0, 0, true)));
        assertThat(two.view()).as("granting changes nothing").isZero();
        assertThat(out.records()).isEmpty();
        assertThat(two.preVotesGranted()).isEqualTo(1);
        assertThat(two.preVotesRefused()).isEqualTo(1);
    }

    @Test
    @DisplayName("Raft §9.6 + §6.2: a working leader refuses pre-votes")
    void aLeaderRefusesPreVotes() {
        MultiPaxosCore leader = leaderOfView0();
        leader.onMessage(1, new PaxosMessage.PreVote(0, 0), 900 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(1, new PaxosMessage.PreVoteReply(0, 0, false)));
    }

    @Test
    @DisplayName("pre-vote, up-to-date check: a candidate behind the granter's decided prefix by more than WND is refused")
    void aCandidateFarBehindIsRefused() {
        MultiPaxosCore two = fresh(2);
        two.onTick(1, out);
        for (long i = 0; i < 5; i++) {
            two.onMessage(0, new PaxosMessage.Propose(0, i, v("x" + i)), 2, out);
            two.onMessage(0, new PaxosMessage.Accept(0, i), 2, out);
            two.onMessage(1, new PaxosMessage.Accept(0, i), 2, out);
        }
        assertThat(two.firstUndecided()).isEqualTo(5);
        out.clear();
        two.onMessage(1, new PaxosMessage.PreVote(0, 1), 600 * MS, out);
        two.onMessage(1, new PaxosMessage.PreVote(0, 2), 600 * MS, out);
        assertThat(sent()).containsExactly(new PaxosMessage.PreVoteReply(0, 0, false),
                new PaxosMessage.PreVoteReply(0, 0, true)); // 1 + WND 3 < 5; 2 + 3 >= 5
    }

    @Test
    @DisplayName("pre-vote: a pre-vote moves nobody to the candidate's view; a candidate in an older view is refused and learns the newer one")
    void viewsAndPreVotes() {
        MultiPaxosCore two = fresh(2);
        two.onTick(1, out);
        two.onMessage(1, new PaxosMessage.PreVote(4, 0), 600 * MS, out);
        assertThat(two.view()).as("a pre-vote asks; it does not move anyone").isZero();
        out.clear();
        two.onMessage(0, new PaxosMessage.Heartbeat(32, 0), 700 * MS, out); // view 32 is led by 0
        out.clear();
        two.onMessage(1, new PaxosMessage.PreVote(1, 0), 1_300 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(1, new PaxosMessage.PreVoteReply(32, 1, false)));
        MultiPaxosCore candidate = fresh(1);
        candidate.onTick(1, out);
        candidate.onMessage(2, new PaxosMessage.PreVoteReply(32, 1, false), 1_300 * MS, out);
        assertThat(candidate.view()).isEqualTo(32);
        assertThat(candidate.leaderHint()).isZero();
    }

    @Test
    @DisplayName("pre-vote: a replica recovering from amnesia refuses (it could not answer the Phase 1)")
    void aRecoveringReplicaRefuses() {
        MultiPaxosCore amnesiac = new MultiPaxosCore(CONFIG, 2, List.of(new PaxosRecord.Promise(0)), true, 0);
        amnesiac.onTick(1, out);
        out.clear();
        amnesiac.onMessage(1, new PaxosMessage.PreVote(0, 0), 900 * MS, out);
        assertThat(sent()).contains(new PaxosMessage.PreVoteReply(0, 0, false));
    }

    @Test
    @DisplayName("pre-vote: a refused candidate asks again every retransmit period while its leader stays silent, not once it hears it")
    void aRefusedCandidateAsksAgainWhileItsLeaderIsSilent() {
        MultiPaxosCore one = fresh(1);
        one.onTick(1, out);
        one.onTick(600 * MS, out);
        assertThat(sent()).containsOnly(new PaxosMessage.PreVote(0, 0));
        one.onMessage(2, new PaxosMessage.PreVoteReply(0, 0, false), 601 * MS, out);
        out.clear();
        one.onTick(700 * MS, out);
        assertThat(out.sends()).isEmpty();
        one.onTick(801 * MS, out);
        assertThat(sent()).containsOnly(new PaxosMessage.PreVote(0, 0));
        out.clear();
        one.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 850 * MS, out);
        out.clear();
        one.onTick(1_100 * MS, out);
        assertThat(out.sends()).as("the leader is back").isEmpty();
        one.onMessage(2, new PaxosMessage.PreVoteReply(0, 0, true), 1_101 * MS, out);
        assertThat(one.view()).as("a late grant does not depose a leader it hears").isZero();
    }

    @Test
    @DisplayName("pre-vote: only grants for the candidate's own round and view count, and its own answer never does")
    void onlyMatchingGrantsCount() {
        MultiPaxosCore one = fresh(1);
        one.onTick(1, out);
        one.onMessage(2, new PaxosMessage.PreVoteReply(0, 0, true), 10 * MS, out); // no round yet
        one.onTick(600 * MS, out);
        one.onMessage(1, new PaxosMessage.PreVoteReply(0, 0, true), 601 * MS, out); // from itself
        one.onMessage(2, new PaxosMessage.PreVoteReply(0, 5, true), 601 * MS, out); // another view's round
        assertThat(one.view()).isZero();
        one.onMessage(0, new PaxosMessage.PreVoteReply(0, 0, true), 602 * MS, out);
        assertThat(one.view()).isEqualTo(1);
    }

    @Test
    @DisplayName("metrics: step-downs and pre-vote answers are reported as protocol events")
    void eventsAreReported() {
        MultiPaxosCore leader = leaderOfView0();
        leader.onMessage(1, new PaxosMessage.PreVote(0, 0), 10 * MS, out);
        leader.onTick(600 * MS, out);
        Map<String, Long> events = new HashMap<>();
        leader.reportEvents(events::put);
        assertThat(events).containsEntry("stepdowns", 1L).containsEntry("prevotes.refused", 1L)
                .containsEntry("prevotes.granted", 0L).containsEntry("prevote.rounds", 0L);
    }

    @Test
    @DisplayName("bridge: a follower cut from the leader alone asks again and again, the bridge refuses, nobody moves")
    void aBridgeLeavesTheLeaderInPlace() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);
        c.deliverAll(1000);
        c.propose(0, v("a"));
        c.deliverAll(1000);
        c.cutLink(0, 1);
        c.cutLink(1, 0);
        for (int i = 0; i < 60; i++) { // 3 s
            c.tick(50 * MS);
            c.deliverAll(1000);
        }
        for (int r = 0; r < 3; r++) {
            assertThat(c.core(r).view()).as("replica %d's view", r).isZero();
        }
        assertThat(c.core(0).isLeader()).isTrue();
        assertThat(c.core(2).preVotesRefused()).as("the bridge refused replica 1 again and again").isGreaterThan(5);
        assertThat(c.core(2).preVotesGranted()).isZero();
        c.propose(0, v("b"));
        c.deliverAll(1000);
        assertThat(c.delivered(2)).containsExactly(v("a"), v("b"));
        c.heal();
        c.tick(50 * MS);
        c.deliverAll(1000);
        c.tick(150 * MS);
        c.deliverAll(1000);
        assertThat(c.delivered(1)).as("the cut-off follower catches up after the heal").containsExactly(v("a"), v("b"));
    }
}
