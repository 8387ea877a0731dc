package dev.parallax.ringpaxos.sim;

import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.ValueId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The simulation's ring monitor bites on each fact it checks. */
@dev.parallax.core.testkit.DeterministicSimulation
class QuorumWitnessTest {
    private static final ValueId A = new ValueId(1, 1, 1);
    private static final ValueId B = new ValueId(2, 1, 1);

    /** n = 3, f = 1: round 3 led by member 0 with U-Ring [0, 1, 2] (acceptors 0 and 1). */
    private static QuorumWitness ledByZero() {
        QuorumWitness w = new QuorumWitness(3);
        w.roundLed(0, 3, Ring.uRing(0, 1, new int[] {0, 1, 2}));
        return w;
    }

    @Test
    @DisplayName("a decision voted by all f+1 acceptors of the round's ring is witnessed "
            + "(seed 003 (Ring Paxos) Appendix Prop. 1)")
    void aFullRingQuorumWitnessesADecision() {
        QuorumWitness w = ledByZero();
        w.opened(0, 7, 3, A);
        w.voted(0, 7, 3, A);
        w.voted(1, 7, 3, A);
        w.decided(2, 7, A);
        assertThat(w.decisionsWitnessed()).isEqualTo(1);
    }

    @Test
    @DisplayName("a decision with one ring acceptor's vote missing fails (Alg. 3 l.29-30: the last acceptor decides only after every position voted)")
    void aDecisionWithoutEveryRingAcceptorsVoteFails() {
        QuorumWitness w = ledByZero();
        w.voted(1, 7, 3, A);
        assertThatThrownBy(() -> w.decided(2, 7, A)).hasMessageContaining("no round's ring acceptors");
    }

    @Test
    @DisplayName("a decision of another value than the votes' fails (agreement's root)")
    void aDecisionOfAnotherValueFails() {
        QuorumWitness w = ledByZero();
        w.voted(0, 7, 3, A);
        w.voted(1, 7, 3, A);
        assertThatThrownBy(() -> w.decided(2, 7, B)).hasMessageContaining("quorum");
    }

    @Test
    @DisplayName("two values in one (instance, round) fail (only coordinator(r) creates round-r entries, once)")
    void twoValuesInOneInstanceAndRoundFail() {
        QuorumWitness w = ledByZero();
        w.opened(0, 7, 3, A);
        assertThatThrownBy(() -> w.voted(1, 7, 3, B)).hasMessageContaining("one value per (instance, round)");
    }

    @Test
    @DisplayName("a round led by another member than r mod n, or with two rings, fails")
    void roundsBelongToTheirCoordinatorAndHaveOneRing() {
        QuorumWitness w = ledByZero();
        assertThatThrownBy(() -> w.roundLed(1, 3, Ring.uRing(1, 1, new int[] {1, 2, 0})))
                .hasMessageContaining("led round 3 of coordinator 0");
        assertThatThrownBy(() -> w.roundLed(0, 3, Ring.uRing(0, 1, new int[] {0, 2, 1})))
                .hasMessageContaining("one ring per round");
        assertThatThrownBy(() -> w.opened(2, 8, 3, A)).hasMessageContaining("of coordinator 0");
    }

    @Test
    @DisplayName("a vote by a member that is not an acceptor of the round's ring fails (Flexible Paxos' Phase 2 quorum)")
    void aVoteOffTheRingsAcceptorsFails() {
        QuorumWitness w = ledByZero();
        assertThatThrownBy(() -> w.voted(2, 7, 3, A)).hasMessageContaining("not an acceptor");
        assertThatThrownBy(() -> w.voted(1, 7, 4, A)).hasMessageContaining("which nobody led");
    }

    @Test
    @DisplayName("M-Ring: the f+1 acceptors are the ring [a1..af, c]; spares do not count (seed 003 (Ring Paxos) §3.3.2)")
    void mRingAcceptorsAreTheRing() {
        QuorumWitness w = new QuorumWitness(5);
        w.roundLed(2, 7, Ring.mRing(2, new int[] {3, 4}));
        w.voted(2, 0, 7, A);
        w.voted(3, 0, 7, A);
        assertThatThrownBy(() -> w.decided(0, 0, A)).hasMessageContaining("no round's ring acceptors");
        w.voted(4, 0, 7, A);
        w.decided(0, 0, A);
        assertThat(w.decisionsWitnessed()).isEqualTo(1);
        assertThatThrownBy(() -> w.voted(1, 0, 7, A)).hasMessageContaining("not an acceptor");
    }

    @Test
    @DisplayName("even n: a ring whose acceptors are no majority fails (n=4 needs 3, seed 003 (Ring Paxos) §3.2 m-quorum); a ring of 3 of 4 witnesses")
    void evenRingsNeedAMajorityOfAcceptors() {
        QuorumWitness w = new QuorumWitness(4);
        assertThatThrownBy(() -> w.roundLed(1, 5, Ring.uRing(1, 1, new int[] {1, 2, 3, 0})))
                .hasMessageContaining("no majority of 4 members");
        assertThatThrownBy(() -> w.roundLed(1, 5, Ring.mRing(1, new int[] {2})))
                .hasMessageContaining("no majority of 4 members");
        w.roundLed(1, 5, Ring.uRing(1, 2, new int[] {1, 2, 3, 0}));
        w.voted(1, 0, 5, A);
        w.voted(2, 0, 5, A);
        assertThatThrownBy(() -> w.decided(0, 0, A)).hasMessageContaining("no round's ring acceptors");
        w.voted(3, 0, 5, A);
        w.decided(0, 0, A);
        assertThat(w.decisionsWitnessed()).isEqualTo(1);
    }
}
