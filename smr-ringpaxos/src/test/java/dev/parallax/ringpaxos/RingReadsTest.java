package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read-index of Ring Paxos, rule by rule ({@link RingReads}; rules Q1–Q5 of
 * {@code ReadIndexRounds}): three U-Ring members, member 0 coordinates the first round and two
 * values are decided and delivered everywhere.
 */
class RingReadsTest {
    private final EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();

    private static RingCluster decidedTwo() {
        RingCluster c = new RingCluster(RingCluster.uRing(3));
        c.start();
        c.propose(1, batch("a"));
        c.propose(2, batch("b"));
        c.deliverAll(200);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactlyInAnyOrder("a", "b");
        }
        assertThat(c.core(0).isCoordinator()).isTrue();
        return c;
    }

    @Test
    @DisplayName("Q1, Q2, Q4: the coordinator notes its next instance, confirms its round with a quorum, then answers")
    void theCoordinatorConfirmsItsRoundWithAQuorumThenAnswers() {
        RingCluster c = decidedTwo();
        long round = c.core(0).round();
        long point = c.core(0).firstUndecided();
        c.core(0).onReadIndex(7, c.now(), out);
        assertThat(out.sends()).as("Q2: the confirmation goes to every other voter").containsExactlyInAnyOrder(
                new EffectBuffer.Outgoing<>(1, new RingMessage.ReadConfirm(round, 1)),
                new EffectBuffer.Outgoing<>(2, new RingMessage.ReadConfirm(round, 1)));
        assertThat(out.reads()).as("not before a quorum answered").isEmpty();
        out.clear();
        c.core(1).onMessage(0, new RingMessage.ReadConfirm(round, 1), c.now(), out);
        assertThat(out.sends()).as("a voter answers with its round")
                .containsExactly(new EffectBuffer.Outgoing<>(0, new RingMessage.ReadConfirmAck(round, 1)));
        out.clear();
        c.core(0).onMessage(1, new RingMessage.ReadConfirmAck(round + 1, 1), c.now(), out);
        assertThat(out.reads()).as("an answer in another round does not count").isEmpty();
        c.core(0).onMessage(1, new RingMessage.ReadConfirmAck(round, 1), c.now(), out);
        assertThat(out.reads()).as("Q1: the position past every instance the coordinator opened")
                .containsExactly(new EffectBuffer.ReadAnswer(7, point, -1));
        assertThat(point).isGreaterThanOrEqualTo(2);
    }

    @Test
    @DisplayName("Q1, Q4: another member asks the coordinator, which confirms and replies; the member answers with that point")
    void aMemberAsksItsCoordinator() {
        RingCluster c = decidedTwo();
        long round = c.core(0).round();
        c.core(2).onReadIndex(9, c.now(), out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(0, new RingMessage.ReadIndexRequest(round, 9)));
        assertThat(out.reads()).isEmpty();
        out.clear();
        c.core(0).onMessage(2, new RingMessage.ReadIndexRequest(round, 9), c.now(), out);
        out.clear();
        c.core(0).onMessage(2, new RingMessage.ReadConfirmAck(round, 1), c.now(), out);
        long point = c.core(0).firstUndecided();
        assertThat(out.sends()).as("Q4: the point goes back to the member that asked")
                .contains(new EffectBuffer.Outgoing<>(2, new RingMessage.ReadIndexReply(round, 9, point)));
        out.clear();
        c.core(2).onMessage(0, new RingMessage.ReadIndexReply(round, 9, point), c.now(), out);
        assertThat(out.reads()).containsExactly(new EffectBuffer.ReadAnswer(9, point, -1));
        out.clear();
        c.core(2).onMessage(0, new RingMessage.ReadIndexReply(round, 9, point), c.now(), out);
        assertThat(out.reads()).as("a second reply to the same read is ignored").isEmpty();
    }

    @Test
    @DisplayName("Q5: a member that does not coordinate refuses a request, and a read its coordinator never answers fails after the suspect time-out")
    void unansweredAndRefusedReadsFail() {
        RingCluster c = decidedTwo();
        long round = c.core(0).round();
        c.core(1).onMessage(2, new RingMessage.ReadIndexRequest(round, 4), c.now(), out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(2, new RingMessage.ReadIndexReply(round, 4, -1)));
        out.clear();
        c.core(2).onReadIndex(5, c.now(), out);
        assertThat(out.reads()).isEmpty();
        out.clear();
        long later = c.now() + c.core(2).config().suspectNanos() + MS;
        c.core(2).onTick(later, out);
        assertThat(out.reads()).as("failed, never answered with a position").hasSize(1)
                .allMatch(a -> a.read() == 5 && a.position() == -1);
        assertThat(c.core(2).readsWaiting()).isZero();
    }

    @Test
    @DisplayName("Q5: a coordinator that steps down (it heard no quorum: check-quorum) fails the reads it was confirming")
    void aCoordinatorThatStepsDownFailsItsReads() {
        RingCluster c = decidedTwo();
        c.core(0).onReadIndex(3, c.now(), out);
        out.clear();
        long suspect = c.core(0).config().suspectNanos();
        for (int k = 1; k <= 10 && c.core(0).isCoordinator(); k++) {
            c.core(0).onTick(c.now() + k * suspect, out);   // nobody answers: the quorum is lost
        }
        assertThat(c.core(0).isCoordinator()).isFalse();
        assertThat(out.reads()).as("failed, never answered with a position").hasSize(1)
                .allMatch(a -> a.read() == 3 && a.position() == -1);
    }
}
