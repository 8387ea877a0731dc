package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static dev.parallax.paxos.CoreFixtures.CONFIG;
import static dev.parallax.paxos.CoreFixtures.MS;
import static dev.parallax.paxos.CoreFixtures.v;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of Multi-Paxos membership changes ({@link MembershipHistory} R1–R3, {@link Proposer}
 * P1–P3, {@link MembershipGate}, {@link LeadershipTransfer}), each on hand-driven cores: three
 * replicas of the cluster file (window, so α, is 3) and two more that may join.
 */
class MembershipCoreTest {
    private static final int ALPHA = CONFIG.window();

    private static ScriptedCluster started() {
        ScriptedCluster c = new ScriptedCluster(CONFIG, 5);
        c.tick(MS);
        c.deliverAll(1000);
        c.propose(0, v("a"));
        c.deliverAll(1000);
        return c;
    }

    private static String request(ScriptedCluster c, int at, MembershipChange change) {
        String[] refusal = new String[1];
        c.act(at, "membership " + change, (core, now, out) -> refusal[0] = core.proposeMembership(change, now, out));
        return refusal[0];
    }

    /** Proposes {@code change} at the leader and lets the group run until it is in effect everywhere it is heard. */
    private static void change(ScriptedCluster c, MembershipChange change) {
        assertThat(request(c, 0, change)).isNull();
        for (int i = 0; i < 10; i++) {
            c.deliverAll(10_000);
            c.tick(10 * MS);
        }
        c.deliverAll(10_000);
        assertThat(c.core(0).membership().reflects(change)).as("%s in effect at the leader", change).isTrue();
    }

    /** What {@code id} delivered as commands: no no-ops, no configuration commands. */
    private static List<Value> commands(ScriptedCluster c, int id) {
        return c.delivered(id).stream().filter(x -> !x.isNoop() && !x.isMembership()).toList();
    }

    private static long sends(ScriptedCluster c, String pattern) {
        return c.trace().stream().filter(l -> l.matches(pattern)).count();
    }

    @Test
    @DisplayName("R1: a change decided at instance c takes effect at c + α; an idle leader fills up to there with no-ops (P3)")
    void aChangeTakesEffectAlphaInstancesAfterItsDecision() {
        ScriptedCluster c = started();
        long decidedAt = c.core(0).firstUndecided();
        change(c, MembershipChange.addLearner(3, "h:3", ALPHA));
        MembershipHistory h = c.core(0).membershipHistory();
        assertThat(h.at(decidedAt + ALPHA - 1).isMember(3)).isFalse();
        assertThat(h.at(decidedAt + ALPHA).isLearner(3)).isTrue();
        assertThat(c.core(0).firstUndecided()).as("no-ops carried the idle group to the effective instance")
                .isGreaterThanOrEqualTo(decidedAt + ALPHA);
        assertThat(c.delivered(1)).as("the configuration command is decided in the order")
                .contains(Value.membership(MembershipChange.addLearner(3, "h:3", ALPHA)));
    }

    @Test
    @DisplayName("learners: a fresh replica receives every decision and does not vote until promoted; then it votes")
    void aLearnerReceivesDecisionsAndVotesOnlyOncePromoted() {
        ScriptedCluster c = started();
        change(c, MembershipChange.addLearner(3, "h:3", ALPHA));
        c.propose(0, v("b"));
        c.deliverAll(1000);
        c.tick(200 * MS);            // heartbeats show replica 3 how far decisions go; it catches up
        c.deliverAll(1000);
        c.tick(200 * MS);
        c.deliverAll(1000);
        assertThat(commands(c, 3)).containsExactly(v("a"), v("b"));
        assertThat(sends(c, "\\d+ 3 send ->\\d Accept.*")).as("a learner's votes").isZero();
        change(c, MembershipChange.promote(3, ALPHA));
        c.propose(0, v("c"));
        c.deliverAll(1000);
        assertThat(sends(c, "\\d+ 3 send ->\\d Accept.*")).as("a voter's votes").isPositive();
        assertThat(commands(c, 3)).endsWith(v("c"));
    }

    @Test
    @DisplayName("R2: after a replacement, the old voter's votes no longer count and the new one's do")
    void afterAReplacementOnlyTheNewVotersCount() {
        ScriptedCluster c = started();
        change(c, MembershipChange.addLearner(3, "h:3", ALPHA));
        c.tick(200 * MS);
        c.deliverAll(1000);
        change(c, MembershipChange.replace(2, 3, "", ALPHA));
        assertThat(c.core(0).membership().voters()).isEqualTo(0b1011);
        c.isolate(1);
        c.isolate(3);                // only 0 and the replaced 2 can talk
        c.propose(0, v("x"));
        c.deliverAll(1000);
        assertThat(commands(c, 0)).as("0 and 2 are no quorum of voters 0, 1, 3").doesNotContain(v("x"));
        c.heal();
        c.tick(300 * MS);            // retransmission reaches 3
        c.deliverAll(1000);
        assertThat(commands(c, 0)).endsWith(v("x"));
        assertThat(commands(c, 3)).endsWith(v("x"));
    }

    @Test
    @DisplayName("P2: a leader whose Phase 1 predates a voter asks that voter before proposing in its membership")
    void aLeaderAsksANewVoterForItsPromiseBeforeProposingWhereItVotes() {
        ScriptedCluster c = started();
        change(c, MembershipChange.addLearner(3, "h:3", ALPHA));
        c.tick(200 * MS);
        c.deliverAll(1000);
        assertThat(sends(c, "\\d+ 0 send ->3 Prepare.*")).as("not asked while a learner").isZero();
        change(c, MembershipChange.promote(3, ALPHA));
        assertThat(sends(c, "\\d+ 0 send ->3 Prepare.*")).as("asked once it votes").isPositive();
        assertThat(sends(c, "\\d+ 3 send ->0 PrepareOk.*")).isPositive();
    }

    @Test
    @DisplayName("R3 and the gate: one change at a time, no removal that loses the quorum the leader hears, no vote before catch-up")
    void theGateRefusesWithReasons() {
        ScriptedCluster c = started();
        assertThat(request(c, 1, MembershipChange.remove(2, ALPHA))).contains("does not lead (replica 0 does)");
        assertThat(request(c, 0, MembershipChange.promote(2, ALPHA))).contains("is not a learner");
        assertThat(request(c, 0, MembershipChange.replace(2, 3, "h:3", ALPHA))).contains("must join as a learner");
        assertThat(request(c, 0, MembershipChange.addLearner(3, "h:3", ALPHA))).isNull();
        assertThat(request(c, 0, MembershipChange.addLearner(4, "h:4", ALPHA))).contains("one change at a time");
        c.deliverAll(1000);
        c.tick(10 * MS);
        c.deliverAll(1000);
        assertThat(request(c, 0, MembershipChange.promote(3, ALPHA))).as("3 never acknowledged anything")
                .contains("has not caught up");
        // Replica 2 goes silent; after the suspect timeout the leader hears only 0 and 1.
        c.isolate(2);
        for (int i = 0; i < 12; i++) {
            c.tick(60 * MS);
            c.deliverAll(1000);
        }
        assertThat(request(c, 0, MembershipChange.remove(1, ALPHA))).contains("would be no quorum");
        assertThat(request(c, 0, MembershipChange.remove(2, ALPHA))).as("removing the silent one keeps a quorum").isNull();
    }

    @Test
    @DisplayName("leadership transfer: the leader stops taking values, waits for the target to catch up, then the target starts its view at once (no pre-vote)")
    void leadershipTransfer() {
        ScriptedCluster c = started();
        String[] refusal = new String[1];
        c.act(0, "transfer to 2", (core, now, out) -> refusal[0] = core.transferLeadership(2, now, out));
        assertThat(refusal[0]).isNull();
        assertThat(c.propose(0, v("held"))).as("no new value during a transfer").isFalse();
        c.deliverAll(1000);
        c.tick(60 * MS);
        c.deliverAll(1000);
        assertThat(sends(c, "\\d+ 0 send ->2 TimeoutNow.*")).isEqualTo(1);
        assertThat(sends(c, "\\d+ 2 send ->\\d PreVote.*")).as("no pre-vote").isZero();
        assertThat(c.core(2).isLeader()).isTrue();
        assertThat(c.core(0).leaderHint()).isEqualTo(2);
        assertThat(c.propose(2, v("b"))).isTrue();
        c.deliverAll(1000);
        assertThat(commands(c, 0)).containsExactly(v("a"), v("b"));
    }

    @Test
    @DisplayName("a removed replica that still runs cannot disturb the group")
    void aRemovedReplicaIsIgnored() {
        ScriptedCluster c = started();
        change(c, MembershipChange.remove(2, ALPHA));
        long view = c.core(0).view();
        c.act(2, "removed replica 2 speaks in a high view", (core, now, out) -> out.send(0, new PaxosMessage.Prepare(view + 64, 0)));
        c.deliverAll(1000);
        assertThat(c.core(0).view()).isEqualTo(view);
        assertThat(c.core(0).isLeader()).isTrue();
    }

    @Test
    @DisplayName("durability: the membership survives a restart whose log was compacted past the change (Members record)")
    void theMembershipSurvivesCompactionAndRestart() {
        ScriptedCluster c = started();
        change(c, MembershipChange.addLearner(3, "h:3", ALPHA));
        long fu = c.core(1).firstUndecided();
        c.compact(1, fu);
        c.crashAndRestart(1);
        assertThat(c.core(1).membership().isLearner(3)).isTrue();
        assertThat(c.core(1).membership().address(3)).isEqualTo("h:3");
    }

    @Test
    @DisplayName("snapshots: an installed snapshot's membership history is taken; a malformed one is counted and ignored")
    void aSnapshotCarriesTheMembership() {
        MembershipHistory h = new MembershipHistory(Membership.initial(3), ALPHA);
        h.apply(5, true, ByteBuffer.wrap(MembershipChange.addLearner(3, "h:3", ALPHA).encode()));
        MultiPaxosCore fresh = new MultiPaxosCore(CONFIG, 4, List.of(), 0);
        fresh.skipTo(20, ByteBuffer.wrap(h.encode()));
        assertThat(fresh.membership().isLearner(3)).isTrue();
        assertThat(fresh.firstUndecided()).isEqualTo(20);
        MultiPaxosCore other = new MultiPaxosCore(CONFIG, 4, List.of(), 0);
        other.skipTo(20, ByteBuffer.wrap(new byte[]{1, 2, 3}));
        assertThat(other.membershipNotes()).isEqualTo(1);
        assertThat(other.membership()).isEqualTo(Membership.initial(3));
    }
}
