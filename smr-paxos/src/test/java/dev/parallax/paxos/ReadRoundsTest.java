package dev.parallax.paxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.parallax.paxos.CoreFixtures.CONFIG;
import static dev.parallax.paxos.CoreFixtures.MS;
import static dev.parallax.paxos.CoreFixtures.v;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read-index of Multi-Paxos, rule by rule ({@link ReadRounds}, Raft thesis §6.4): three replicas,
 * replica 0 leads view 0.
 */
class ReadRoundsTest {
    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();

    private static MultiPaxosCore fresh(int id) {
        return CoreFixtures.fresh(id);
    }

    private MultiPaxosCore leaderOfView0() {
        return CoreFixtures.leaderOfView0(out);
    }

    /** A follower of view 0 (it heard the leader's heartbeat). */
    private MultiPaxosCore followerOfView0(int id) {
        MultiPaxosCore f = fresh(id);
        f.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 2 * MS, out);
        assertThat(f.isFollowing()).isTrue();
        out.clear();
        return f;
    }

    private List<EffectBuffer.ReadAnswer> answers() {
        return out.reads();
    }

    @Test
    @DisplayName("Q1, Q2, Q4: the leader notes its next instance, confirms with a quorum round begun after the read, then answers")
    void theLeaderConfirmsWithAQuorumRoundThenAnswers() {
        MultiPaxosCore leader = leaderOfView0();
        leader.onProposal(v("a"), 5 * MS, out);
        leader.onProposal(v("b"), 5 * MS, out);
        out.clear();
        leader.onReadIndex(7, 6 * MS, out);
        assertThat(out.sends()).as("Q2: the round goes to every other voter").containsExactlyInAnyOrder(
                new EffectBuffer.Outgoing<>(1, new PaxosMessage.ReadConfirm(0, 1)),
                new EffectBuffer.Outgoing<>(2, new PaxosMessage.ReadConfirm(0, 1)));
        assertThat(answers()).as("not before a quorum answered").isEmpty();
        out.clear();
        leader.onReadIndex(8, 7 * MS, out);
        assertThat(out.sends()).as("a read during a round waits for the next one").isEmpty();
        leader.onMessage(2, new PaxosMessage.ReadConfirmAck(0, 1), 8 * MS, out);
        assertThat(answers()).as("Q1: position 2, past the two instances proposed")
                .containsExactly(new EffectBuffer.ReadAnswer(7, 2, -1));
        assertThat(out.sends()).as("the next round starts for read 8").containsExactlyInAnyOrder(
                new EffectBuffer.Outgoing<>(1, new PaxosMessage.ReadConfirm(0, 2)),
                new EffectBuffer.Outgoing<>(2, new PaxosMessage.ReadConfirm(0, 2)));
        out.clear();
        leader.onMessage(1, new PaxosMessage.ReadConfirmAck(0, 1), 9 * MS, out);
        assertThat(answers()).as("an answer to an old round confirms nothing").isEmpty();
        leader.onMessage(1, new PaxosMessage.ReadConfirmAck(0, 2), 9 * MS, out);
        assertThat(answers()).containsExactly(new EffectBuffer.ReadAnswer(8, 2, -1));
    }

    @Test
    @DisplayName("Q2: an answer from a voter in another view does not count, and a higher view deposes the leader: its reads fail")
    void answersOfAnotherViewDoNotCount() {
        MultiPaxosCore leader = leaderOfView0();
        leader.onReadIndex(1, 5 * MS, out);
        out.clear();
        leader.onMessage(2, new PaxosMessage.ReadConfirmAck(3, 1), 6 * MS, out);
        assertThat(leader.isLeader()).isFalse();
        assertThat(answers()).as("Q5: failed, never answered with a position").hasSize(1)
                .allMatch(a -> !a.ready() && a.read() == 1);
    }

    @Test
    @DisplayName("Q2: a round that waits is sent again to the voters that did not answer, every retransmit interval")
    void aRoundIsResent() {
        MultiPaxosCore leader = leaderOfView0();
        leader.onReadIndex(1, 5 * MS, out);
        out.clear();
        leader.onTick(5 * MS + CONFIG.retransmitNanos(), out);
        assertThat(out.sends()).contains(new EffectBuffer.Outgoing<>(1, new PaxosMessage.ReadConfirm(0, 1)),
                new EffectBuffer.Outgoing<>(2, new PaxosMessage.ReadConfirm(0, 1)));
    }

    @Test
    @DisplayName("Q2: a follower answers a round with its view; not while it recovers from amnesia")
    void aFollowerAnswersWithItsView() {
        MultiPaxosCore f = followerOfView0(1);
        f.onMessage(0, new PaxosMessage.ReadConfirm(0, 4), 3 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(0, new PaxosMessage.ReadConfirmAck(0, 4)));
        out.clear();
        MultiPaxosCore amnesiac = new MultiPaxosCore(CONFIG, 2, List.of(), true, 0);
        amnesiac.onMessage(0, new PaxosMessage.ReadConfirm(0, 4), 3 * MS, out);
        assertThat(out.sends()).noneMatch(o -> o.message() instanceof PaxosMessage.ReadConfirmAck);
    }

    @Test
    @DisplayName("Q4: a follower asks its leader, and the leader's confirmed position becomes the follower's answer")
    void aFollowerAsksItsLeader() {
        MultiPaxosCore f = followerOfView0(1);
        f.onReadIndex(42, 3 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(0, new PaxosMessage.ReadIndexRequest(0, 42)));
        assertThat(answers()).isEmpty();
        out.clear();
        MultiPaxosCore leader = leaderOfView0();
        leader.onMessage(1, new PaxosMessage.ReadIndexRequest(0, 42), 4 * MS, out);
        out.clear();
        leader.onMessage(2, new PaxosMessage.ReadConfirmAck(0, 1), 5 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(1, new PaxosMessage.ReadIndexReply(0, 42, 0)));
        out.clear();
        f.onMessage(0, new PaxosMessage.ReadIndexReply(0, 42, 0), 6 * MS, out);
        assertThat(answers()).containsExactly(new EffectBuffer.ReadAnswer(42, 0, -1));
        out.clear();
        f.onMessage(0, new PaxosMessage.ReadIndexReply(0, 42, 0), 6 * MS, out);
        assertThat(answers()).as("a duplicate answer is ignored").isEmpty();
    }

    @Test
    @DisplayName("Q5: a follower fails a read its leader leaves unanswered for the suspect timeout; a non-leader refuses a follower's read")
    void unansweredAndRefusedReadsFail() {
        MultiPaxosCore f = followerOfView0(1);
        f.onReadIndex(5, 3 * MS, out);
        out.clear();
        f.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 3 * MS + CONFIG.suspectNanos() - 1, out);
        assertThat(answers()).isEmpty();
        f.onTick(3 * MS + CONFIG.suspectNanos(), out);
        assertThat(answers()).containsExactly(new EffectBuffer.ReadAnswer(5, -1, 0));
        out.clear();
        MultiPaxosCore other = followerOfView0(2);
        other.onMessage(1, new PaxosMessage.ReadIndexRequest(0, 9), 4 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(1,
                new PaxosMessage.ReadIndexReply(0, 9, PaxosMessage.ReadIndexReply.REFUSED)));
    }

    @Test
    @DisplayName("Q3, Q5: no round while a configuration change is in flight; the read waits for its decision, at most the suspect timeout")
    void aReadWaitsForAChangeInFlight() {
        MultiPaxosCore leader = leaderOfView0();
        assertThat(leader.proposeMembership(dev.parallax.core.membership.MembershipChange.addLearner(3, "h:3", CONFIG.window()),
                5 * MS, out)).isNull();
        PaxosMessage.Propose change = out.sends().stream().map(EffectBuffer.Outgoing::message)
                .filter(m -> m instanceof PaxosMessage.Propose).map(m -> (PaxosMessage.Propose) m).findFirst().orElseThrow();
        out.clear();
        leader.onMessage(0, change, 5 * MS, out); // its own Propose, looped back as the driver does
        out.clear();
        leader.onReadIndex(1, 6 * MS, out);
        assertThat(out.sends()).noneMatch(o -> o.message() instanceof PaxosMessage.ReadConfirm);
        leader.onMessage(0, new PaxosMessage.Accept(0, 0), 7 * MS, out);
        leader.onMessage(1, new PaxosMessage.Accept(0, 0), 7 * MS, out);
        assertThat(out.sends()).as("decided: the round starts").anyMatch(o -> o.message() instanceof PaxosMessage.ReadConfirm);
        out.clear();
        MultiPaxosCore other = CoreFixtures.leaderOfView0(out);
        other.proposeMembership(dev.parallax.core.membership.MembershipChange.addLearner(3, "h:3", CONFIG.window()), 5 * MS, out);
        out.clear();
        other.onReadIndex(2, 6 * MS, out);
        other.onMessage(1, new PaxosMessage.HeartbeatAck(0, 0), 400 * MS, out); // check-quorum keeps it leading
        other.onTick(6 * MS + CONFIG.suspectNanos() - 1, out);
        assertThat(answers()).isEmpty();
        other.onTick(6 * MS + CONFIG.suspectNanos(), out);
        assertThat(other.isLeader()).isTrue();
        assertThat(answers()).as("Q5: failed, the leader still leading").containsExactly(new EffectBuffer.ReadAnswer(2, -1, 0));
    }

    @Test
    @DisplayName("Q1: a replica still in its Phase 1 has no position to give; a lone replica confirms at once")
    void noPositionBeforePhase1CompletesAndALoneReplicaConfirmsAtOnce() {
        MultiPaxosCore starting = fresh(0);
        starting.onTick(1, out);
        out.clear();
        starting.onReadIndex(3, 2, out);
        assertThat(answers()).hasSize(1).allMatch(a -> !a.ready());
        out.clear();
        PaxosConfig single = PaxosConfig.builder(1).window(3).build();
        MultiPaxosCore alone = new MultiPaxosCore(single, 0, List.of(), 0);
        alone.onTick(1, out);
        alone.onMessage(0, new PaxosMessage.PrepareOk(0, 0, List.of()), 1, out);
        out.clear();
        alone.onReadIndex(4, 2, out);
        assertThat(answers()).containsExactly(new EffectBuffer.ReadAnswer(4, 0, -1));
    }
}
