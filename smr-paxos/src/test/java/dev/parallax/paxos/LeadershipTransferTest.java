package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static dev.parallax.paxos.CoreFixtures.CONFIG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LeadershipTransfer#bestTarget}: the target of a transfer the operator does not aim
 * ({@code transferLeadership(-1)}, a leader stopping on SIGTERM) is the voter with the highest
 * acknowledged position, if that is within the window (WND, 3 here) of the leader's first undecided
 * instance; else there is none (Raft thesis §3.10: leadership goes to a server whose log is up to
 * date). A position is what a heartbeat acknowledgement reports, or past the voter's latest vote.
 * Voters 0, 1 and 2, learner 3; replica 0 leads.
 */
class LeadershipTransferTest {
    private static final int WINDOW = CONFIG.window();
    private static final Membership MEMBERS = Membership.initial(3).apply(MembershipChange.addLearner(3, "h:3", WINDOW));

    private static LeadershipTransfer acked(long... firstUndecidedById) {
        LeadershipTransfer t = new LeadershipTransfer(CONFIG);
        for (int id = 0; id < firstUndecidedById.length; id++) {
            if (firstUndecidedById[id] >= 0) {
                t.acked(id, firstUndecidedById[id]);
            }
        }
        return t;
    }

    @Test
    @DisplayName("the voter with the highest acknowledged position is chosen; the leader itself and learners are not")
    void theFurthestVoterIsChosen() {
        // The leader (0) and learner 3 acknowledged more than any other voter: neither may be chosen.
        LeadershipTransfer t = acked(40, 38, 39, 40);
        assertThat(t.bestTarget(MEMBERS, 0, 40)).isEqualTo(2);
        assertThat(acked(40, 40, 39, 40).bestTarget(MEMBERS, 0, 40)).isEqualTo(1);
    }

    @Test
    @DisplayName("among voters equally far along, the lowest id")
    void tiesGoToTheLowestId() {
        assertThat(acked(-1, 40, 40).bestTarget(MEMBERS, 0, 40)).isEqualTo(1);
        assertThat(acked(40, 40, 40).bestTarget(MEMBERS, 1, 40)).as("leader 1: voters 0 and 2 tie").isZero();
    }

    @Test
    @DisplayName("the best voter must be within the window of the leader's first undecided instance, else there is none")
    void theBestVoterMustBeWithinTheWindow() {
        assertThat(acked(-1, 37, 30).bestTarget(MEMBERS, 0, 40)).as("37 = 40 - WND: within").isEqualTo(1);
        assertThat(acked(-1, 36, 30).bestTarget(MEMBERS, 0, 40)).as("36 < 40 - WND: too far behind").isEqualTo(-1);
        assertThat(acked(-1, 36, 30, 40).bestTarget(MEMBERS, 0, 40)).as("a caught-up learner does not count").isEqualTo(-1);
    }

    @Test
    @DisplayName("under load (no heartbeats, so no acknowledgements) a voter's votes are its position; they never make it ready for TimeoutNow")
    void votesCountAsPositions() {
        LeadershipTransfer t = acked(-1, 2, 2);
        assertThat(t.bestTarget(MEMBERS, 0, 40)).as("acknowledgements from long ago: too far behind").isEqualTo(-1);
        t.voted(2, 39);
        t.voted(1, 38);
        assertThat(t.bestTarget(MEMBERS, 0, 40)).as("replica 2 voted for instance 39").isEqualTo(2);
        t.start(2, 0);
        assertThat(t.ready(2, 40)).as("TimeoutNow waits for replica 2's own report that it decided everything").isFalse();
        t.acked(2, 40);
        assertThat(t.ready(2, 40)).isTrue();
    }

    @Test
    @DisplayName("no other voter, or none that ever acknowledged: there is none")
    void noCandidate() {
        assertThat(acked().bestTarget(MEMBERS, 0, 0)).as("nobody acknowledged yet").isEqualTo(-1);
        Membership alone = Membership.initial(1);
        assertThat(acked(5).bestTarget(alone, 0, 5)).as("a single voter").isEqualTo(-1);
        Membership removed = Membership.initial(3).apply(MembershipChange.remove(2, WINDOW));
        assertThat(acked(40, 30, 40).bestTarget(removed, 0, 40)).as("replica 2 removed, replica 1 too far behind").isEqualTo(-1);
    }
}
