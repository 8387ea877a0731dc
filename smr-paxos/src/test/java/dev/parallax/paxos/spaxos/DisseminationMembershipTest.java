package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.parallax.paxos.spaxos.DissemCluster.MS;
import static dev.parallax.paxos.spaxos.DissemCluster.batch;
import static dev.parallax.paxos.spaxos.DissemCluster.body;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DisseminationCore}'s membership rules M1–M5 (docs/protocols/s-paxos.md "Membership
 * changes"), one per test, with the members given by a hand-set {@link DisseminationGroup}.
 */
class DisseminationMembershipTest {
    private static final int ALPHA = 4;
    private final EffectBuffer<DisseminationMessage, DisseminationRecord, Batch> out = new EffectBuffer<>();

    /** A group whose memberships the test sets. */
    private static final class HandGroup implements DisseminationGroup {
        List<Membership> memberships;

        HandGroup(Membership... ms) {
            memberships = List.of(ms);
        }

        @Override
        public Membership current() {
            return memberships.get(0);
        }

        @Override
        public List<Membership> inEffectOrPending() {
            return memberships;
        }
    }

    private static Membership initial() {
        return Membership.initial(3);
    }

    /** Voters 0, 1, 3 (3 replaced 2, which is retired), learner 4. */
    private static Membership replacedAndLearner() {
        return initial().apply(MembershipChange.addLearner(3, "h:3", ALPHA)).apply(MembershipChange.replace(2, 3, "", ALPHA))
                .apply(MembershipChange.addLearner(4, "h:4", ALPHA));
    }

    private static DisseminationCore core(int self, DisseminationGroup g, boolean amnesiac) {
        return new DisseminationCore(DisseminationCoreTest.CONFIG, self, List.of(), amnesiac, 1, 0, g);
    }

    private static AckVector acks(int origin, long inc, long watermark) {
        return new AckVector(List.of(new AckVector.Entry(origin, inc, watermark)));
    }

    private List<Integer> sentTo(Class<?> type) {
        return out.sends().stream().filter(o -> type.isInstance(o.message())).map(EffectBuffer.Outgoing::to).toList();
    }

    private List<BatchId> stable() {
        List<BatchId> ids = new ArrayList<>();
        for (EffectBuffer.Decision<Batch> d : out.decisions()) {
            ids.add(d.value().id());
        }
        return ids;
    }

    @Test
    @DisplayName("M1, M2: bodies go to voters and learners, not to the removed; stability counts the new voters only")
    void stabilityCountsTheVotersInEffect() {
        DisseminationCore c = core(0, new HandGroup(replacedAndLearner()), false);
        assertThat(c.onProposal(batch("a"), 0, out)).isTrue();
        assertThat(sentTo(DisseminationMessage.Forward.class)).as("voters 1, 3 and learner 4; not removed 2")
                .containsExactly(1, 3, 4);
        BatchId a = new BatchId(0, 1, 1);
        out.clear();
        c.onMessage(4, new DisseminationMessage.Ack(acks(0, 1, 1)), MS, out);
        assertThat(stable()).as("a learner's ack does not count").isEmpty();
        c.onMessage(2, new DisseminationMessage.Ack(acks(0, 1, 1)), MS, out);
        assertThat(stable()).as("a removed replica's ack does not count").isEmpty();
        c.onMessage(3, new DisseminationMessage.Ack(acks(0, 1, 1)), MS, out);
        assertThat(stable()).as("f+1 = 2 of voters {0,1,3}: this replica and the new voter 3").containsExactly(a);
    }

    @Test
    @DisplayName("M2: while a change is pending, an id is stable only with f+1 voters of both memberships")
    void stabilityCountsThePendingMembershipToo() {
        Membership next = initial().apply(MembershipChange.addLearner(3, "h:3", ALPHA))
                .apply(MembershipChange.replace(2, 3, "", ALPHA));
        DisseminationCore c = core(0, new HandGroup(initial(), next), false);
        c.onProposal(batch("a"), 0, out);
        assertThat(sentTo(DisseminationMessage.Forward.class)).as("members now and pending").containsExactly(1, 2, 3);
        out.clear();
        c.onMessage(2, new DisseminationMessage.Ack(acks(0, 1, 1)), MS, out);
        assertThat(stable()).as("{0,2} is f+1 of the voters in effect, {0} not of the pending ones").isEmpty();
        c.onMessage(3, new DisseminationMessage.Ack(acks(0, 1, 1)), MS, out);
        assertThat(stable()).containsExactly(new BatchId(0, 1, 1));
    }

    @Test
    @DisplayName("M2, M4: a removed holder is not waited for: after the removal the remaining voters suffice")
    void aRemovedHolderIsNotWaitedFor() {
        HandGroup g = new HandGroup(initial());
        DisseminationCore c = core(0, g, false);
        c.onProposal(batch("a"), 0, out);
        out.clear();
        c.onTick(MS, out);
        assertThat(stable()).as("one holder of three voters").isEmpty();
        g.memberships = List.of(initial().apply(MembershipChange.remove(2, ALPHA)).apply(MembershipChange.remove(1, ALPHA)));
        c.onTick(2 * MS, out);
        assertThat(stable()).as("the only voter left holds it: stable at the next step, with no new ack")
                .containsExactly(new BatchId(0, 1, 1));
    }

    @Test
    @DisplayName("M4, rule 9: amnesia recovery counts the voters in effect; a removed one is not waited for")
    void recoveryDoesNotWaitForARemovedVoter() {
        HandGroup g = new HandGroup(initial());
        DisseminationCore c = core(0, g, true);
        assertThat(c.recovering()).isTrue();
        c.onMessage(1, new DisseminationMessage.Ack(AckVector.EMPTY), MS, out);
        assertThat(c.recovering()).as("n - f = 2 peers of 3 voters: 1 alone is not enough").isTrue();
        g.memberships = List.of(initial().apply(MembershipChange.remove(2, ALPHA)));
        c.onTick(2 * MS, out);
        assertThat(c.recovering()).as("voters {0,1}: f = 0, one peer heard is n - f").isFalse();
    }

    @Test
    @DisplayName("M5, rule 5: a new member (id 3 > n-1) is a sender and origin, and a gap it acked is fetched from it")
    void aNewMemberIsASenderAndAFetchSource() {
        DisseminationCore c = core(0, new HandGroup(replacedAndLearner()), false);
        c.onMessage(3, new DisseminationMessage.Forward(new BatchId(3, 9, 1), body("x"), acks(3, 9, 2)), 0, out);
        assertThat(c.body(new BatchId(3, 9, 1))).isEqualTo(body("x"));
        out.clear();
        c.onTick(60 * MS, out);
        assertThat(out.sends()).anySatisfy(o -> {
            assertThat(o.to()).isEqualTo(3);
            assertThat(o.message()).isEqualTo(new DisseminationMessage.ResendForward(3, 9, 2, 2));
        });
    }

    @Test
    @DisplayName("M4: a removed replica's bodies are taken, its fetches not served; a never-member is ignored; a non-member takes no clients")
    void removedAndUnknownSenders() {
        DisseminationCore c = core(0, new HandGroup(replacedAndLearner()), false);
        c.onMessage(2, new DisseminationMessage.Forward(new BatchId(2, 1, 1), body("r"), acks(2, 1, 1)), 0, out);
        assertThat(c.body(new BatchId(2, 1, 1))).as("a body of the removed origin, numbered before its removal").isNotNull();
        out.clear();
        c.onMessage(2, new DisseminationMessage.ResendForward(2, 1, 1, 1), MS, out);
        assertThat(sentTo(DisseminationMessage.Forward.class)).as("not served").isEmpty();
        c.onMessage(5, new DisseminationMessage.Forward(new BatchId(5, 1, 1), body("u"), AckVector.EMPTY), MS, out);
        assertThat(c.body(new BatchId(5, 1, 1))).as("id 5 was never a member").isNull();
        DisseminationCore removed = core(2, new HandGroup(replacedAndLearner()), false);
        assertThat(removed.canPropose()).isFalse();
        assertThat(removed.onProposal(batch("late"), 0, out)).as("a removed replica takes no client batch").isFalse();
    }
}
