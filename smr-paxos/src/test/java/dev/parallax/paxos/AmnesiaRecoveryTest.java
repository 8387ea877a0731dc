package dev.parallax.paxos;

import static dev.parallax.paxos.CoreFixtures.MS;
import static dev.parallax.paxos.CoreFixtures.CONFIG;
import static dev.parallax.paxos.CoreFixtures.v;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The amnesia recovery rules ({@link AmnesiaRecovery} inside {@link MultiPaxosCore}), one test per
 * rule: the recovering replica neither votes, promises nor leads; it needs fenced answers from
 * {@code n - quorum + 1} other replicas; {@code H} and the view come from those answers; it votes
 * again only once every instance below {@code H} is decided; and the peers' side of the fence.
 */
class AmnesiaRecoveryTest {
    private static final PaxosConfig FIVE = PaxosConfig.builder(5).window(3)
            .heartbeat(Duration.ofMillis(50)).suspect(Duration.ofMillis(500))
            .retransmit(Duration.ofMillis(200)).catchUp(Duration.ofMillis(100)).build();

    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();


    private static MultiPaxosCore amnesiac(PaxosConfig config, int id) {
        return new MultiPaxosCore(config, id, List.of(), true, 0);
    }

    private List<PaxosMessage> sentTo(int to) {
        List<PaxosMessage> m = new ArrayList<>();
        for (EffectBuffer.Outgoing<PaxosMessage> o : out.sends()) {
            if (o.to() == to) {
                m.add(o.message());
            }
        }
        return m;
    }

    @Test
    void neededAnswersMeetEveryQuorumMinusTheAsker() {
        assertThat(AmnesiaRecovery.neededAnswers(3, 2)).as("n=3: both peers").isEqualTo(2);
        assertThat(AmnesiaRecovery.neededAnswers(5, 3)).as("n=5: three of four").isEqualTo(3);
        assertThat(AmnesiaRecovery.neededAnswers(7, 4)).isEqualTo(4);
    }

    @Test
    void aRecoveringReplicaAnswersNoPrepareNoProposeAndNeverLeads() {
        MultiPaxosCore c = amnesiac(CONFIG, 0); // leader of view 0 on paper
        c.onTick(MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsOnly(new PaxosMessage.RecoveryQuery(0)).hasSize(2);
        assertThat(sentTo(0)).as("asks only other replicas").isEmpty();
        out.clear();
        c.onMessage(1, new PaxosMessage.Prepare(4, 0), 2 * MS, out);
        c.onMessage(1, new PaxosMessage.Propose(4, 0, v("x")), 2 * MS, out);
        c.onMessage(2, new PaxosMessage.RecoveryQuery(4), 2 * MS, out);
        assertThat(out.records()).as("no promise, no vote").isEmpty();
        assertThat(out.sends()).as("no PrepareOk, no Accept, no recovery answer").isEmpty();
        c.onTick(10_000 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .as("long past the suspect timeout: still no Prepare of its own")
                .allMatch(m -> m instanceof PaxosMessage.RecoveryQuery || m instanceof PaxosMessage.CatchUpQuery);
        assertThat(c.recovering()).isTrue();
        assertThat(c.isLeader()).isFalse();
    }

    @Test
    void theQueryIsResentOnTickToPeersThatHaveNotAnswered() {
        MultiPaxosCore c = amnesiac(CONFIG, 0);
        c.onTick(MS, out);
        c.onMessage(1, new PaxosMessage.RecoveryReply(1, 0, true, -1), 2 * MS, out);
        out.clear();
        c.onTick(100 * MS, out);
        assertThat(out.sends()).as("before the retransmit period").isEmpty();
        c.onTick(MS + CONFIG.retransmitNanos(), out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::to).containsExactly(2);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsExactly(new PaxosMessage.RecoveryQuery(0));
    }

    @Test
    void threeReplicasNeedBothPeersToAnswer() {
        MultiPaxosCore c = amnesiac(CONFIG, 0);
        c.onTick(MS, out);
        c.onMessage(1, new PaxosMessage.RecoveryReply(1, 0, true, 3), 2 * MS, out);
        c.onMessage(1, new PaxosMessage.RecoveryReply(1, 0, true, 3), 2 * MS, out); // a duplicate counts once
        c.onTick(3 * MS, out);
        assertThat(c.recovering()).isTrue();
        out.clear();
        c.onTick(MS + CONFIG.retransmitNanos(), out);
        assertThat(sentTo(2)).containsExactly(new PaxosMessage.RecoveryQuery(0));
        c.onMessage(2, new PaxosMessage.RecoveryReply(1, 0, true, -1), 4 * MS, out);
        out.clear();
        c.onTick(MS + 2 * CONFIG.retransmitNanos(), out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .as("answered: no more queries, catch-up of the instances below H instead")
                .noneMatch(m -> m instanceof PaxosMessage.RecoveryQuery)
                .contains(new PaxosMessage.CatchUpQuery(1, 0, 4));
    }

    @Test
    void fiveReplicasNeedThreeFencedAnswers() {
        MultiPaxosCore c = amnesiac(FIVE, 4);
        c.onTick(MS, out);
        assertThat(out.sends()).hasSize(4);
        c.onMessage(0, new PaxosMessage.RecoveryReply(1, 0, true, -1), 2 * MS, out);
        c.onMessage(1, new PaxosMessage.RecoveryReply(1, 0, true, -1), 2 * MS, out);
        out.clear();
        c.onTick(MS + FIVE.retransmitNanos(), out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::to).containsExactlyInAnyOrder(2, 3);
        c.onMessage(3, new PaxosMessage.RecoveryReply(1, 0, true, -1), 3 * MS, out);
        assertThat(c.recovering()).as("nothing to catch up: recovered").isFalse();
    }

    @Test
    void anUnfencedAnswerStartsANewRoundAboveThePeersPromise() {
        MultiPaxosCore c = amnesiac(CONFIG, 0);
        c.onTick(MS, out);
        out.clear();
        c.onMessage(1, new PaxosMessage.RecoveryReply(6, 0, false, 9), 2 * MS, out);
        assertThat(c.view()).isEqualTo(6);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsOnly(new PaxosMessage.RecoveryQuery(6)).hasSize(2);
        c.onMessage(2, new PaxosMessage.RecoveryReply(1, 0, true, 2), 3 * MS, out); // answers the old round
        c.onMessage(1, new PaxosMessage.RecoveryReply(7, 6, true, 9), 3 * MS, out);
        c.onTick(4 * MS, out);
        assertThat(c.recovering()).isTrue();
        out.clear();
        c.onTick(MS + CONFIG.retransmitNanos() + 2 * MS, out);
        assertThat(sentTo(2)).as("the old round's answer does not count").contains(new PaxosMessage.RecoveryQuery(6));
    }

    @Test
    void hAndTheViewComeFromTheAnswersAndVotingResumesOnceEverythingBelowHIsDecided() {
        MultiPaxosCore c = amnesiac(CONFIG, 0);
        c.onTick(MS, out);
        c.onMessage(1, new PaxosMessage.RecoveryReply(1, 0, true, 4), 2 * MS, out);
        c.onMessage(2, new PaxosMessage.RecoveryReply(1, 0, true, 7), 2 * MS, out);
        assertThat(c.view()).as("V: the fence's next view, which the peers promised").isEqualTo(1);
        List<PaxosMessage.Decided> below = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            below.add(new PaxosMessage.Decided(i, v("d" + i)));
        }
        c.onMessage(1, new PaxosMessage.CatchUpReply(1, 0, below), 3 * MS, out);
        out.clear();
        c.onTick(4 * MS, out);
        assertThat(c.recovering()).as("H = 8: instance 7 is not decided yet").isTrue();
        assertThat(out.records()).isEmpty();
        out.clear();
        c.onMessage(2, new PaxosMessage.CatchUpReply(1, 0, List.of(new PaxosMessage.Decided(7, v("d7")))), 5 * MS, out);
        assertThat(c.recovering()).as("ends in the step that decided the last instance below H").isFalse();
        assertThat(c.firstUndecided()).isEqualTo(8);
        assertThat(out.records()).as("persisted, synced, before any vote")
                .containsSubsequence(new PaxosRecord.Trim(8), new PaxosRecord.Promise(1))
                .noneMatch(r -> r instanceof PaxosRecord.Vote);
        assertThat(out.decisions()).as("in the same step as the decision of instance 7").isNotEmpty();
        assertThat(out.syncRequested()).isTrue();
        out.clear();
        c.onMessage(1, new PaxosMessage.Prepare(4, 2), 7 * MS, out);
        assertThat(sentTo(1)).as("instances below H are reported decided, not re-proposable")
                .containsExactly(new PaxosMessage.PrepareOk(4, 8, List.of(), PaxosMessage.PrepareOk.COMPLETE));
        out.clear();
        c.onMessage(1, new PaxosMessage.Propose(4, 8, v("x")), 8 * MS, out);
        assertThat(out.records()).containsExactly(new PaxosRecord.Vote(8, 4, v("x")));
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).contains(new PaxosMessage.Accept(4, 8));
    }

    @Test
    void aPeerWhosePromiseIsAtMostTheFencePromisesTheNextViewDurablyBeforeAnswering() {
        MultiPaxosCore peer = new MultiPaxosCore(CONFIG, 2, List.of(), 0);
        peer.onMessage(0, new PaxosMessage.Propose(0, 5, v("x")), MS, out);
        out.clear();
        peer.onMessage(0, new PaxosMessage.RecoveryQuery(3), 2 * MS, out);
        // The first view above the fence that a voter other than the asker leads: 33, led by 1.
        assertThat(out.records()).containsExactly(new PaxosRecord.Promise(33));
        assertThat(out.syncRequested()).isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsExactly(new PaxosMessage.RecoveryReply(33, 3, true, 5));
        out.clear();
        peer.onMessage(0, new PaxosMessage.Propose(3, 6, v("y")), 3 * MS, out);
        assertThat(out.records()).as("never votes up to the fence again").isEmpty();
        assertThat(out.sends()).isEmpty();
        peer.onMessage(0, new PaxosMessage.RecoveryQuery(3), 4 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .as("the same fence asked again is answered fenced again")
                .containsExactly(new PaxosMessage.RecoveryReply(33, 3, true, 5));
    }

    @Test
    void theFencedViewIsNeverOneTheRecoveringReplicaLeads() {
        MultiPaxosCore peer = new MultiPaxosCore(FIVE, 0, List.of(), 0);
        peer.onMessage(1, new PaxosMessage.RecoveryQuery(0), MS, out);
        // View 1 is led by replica 1, which is recovering: following it would leave nobody to lead.
        assertThat(out.records()).containsExactly(new PaxosRecord.Promise(2));
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsExactly(new PaxosMessage.RecoveryReply(2, 0, true, -1));
        assertThat(peer.leaderHint()).isEqualTo(2);
        out.clear();
        peer.onMessage(1, new PaxosMessage.RecoveryQuery(0), 2 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .as("asked again: still fenced").containsExactly(new PaxosMessage.RecoveryReply(2, 0, true, -1));
    }

    @Test
    void aPeerWithAHigherPromiseAnswersUnfencedAndKeepsItsPromise() {
        MultiPaxosCore peer = new MultiPaxosCore(CONFIG, 2, List.of(), 0);
        peer.onMessage(1, new PaxosMessage.Prepare(4, 0), MS, out);
        out.clear();
        peer.onMessage(0, new PaxosMessage.RecoveryQuery(2), 2 * MS, out);
        assertThat(out.records()).isEmpty();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsExactly(new PaxosMessage.RecoveryReply(4, 2, false, -1));
        assertThat(peer.view()).isEqualTo(4);
    }

    @Test
    void aPeerReportsWhatItKnowsDecidedAsWellAsItsVotes() {
        MultiPaxosCore peer = new MultiPaxosCore(CONFIG, 2, List.of(), 0);
        peer.onMessage(0, new PaxosMessage.Heartbeat(0, 12), MS, out);
        out.clear();
        peer.onMessage(0, new PaxosMessage.RecoveryQuery(0), 2 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsExactly(new PaxosMessage.RecoveryReply(1, 0, true, 11));
    }

    @Test
    void aSingleReplicaHasNobodyToAskAndDoesNotRecover() {
        MultiPaxosCore c = amnesiac(PaxosConfig.builder(1).build(), 0);
        assertThat(c.recovering()).isFalse();
    }

    @Test
    void aReplicaWithoutAmnesiaDoesNotRecover() {
        MultiPaxosCore c = new MultiPaxosCore(CONFIG, 1, List.of(), false, 0);
        c.onTick(MS, out);
        assertThat(c.recovering()).isFalse();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .noneMatch(m -> m instanceof PaxosMessage.RecoveryQuery);
    }
}
