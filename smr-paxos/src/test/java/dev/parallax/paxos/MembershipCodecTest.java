package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Membership values on the wire and in the log: every form round-trips, a membership value keeps
 * its kind (a command batch with the same bytes is another value), and malformed bytes are refused
 * with a clear error, never applied.
 */
class MembershipCodecTest {
    private static final PaxosRecordCodec RECORDS = new PaxosRecordCodec();

    @Test
    void changesRoundTripAndMalformedOnesAreRefused() {
        for (MembershipChange c : List.of(MembershipChange.addLearner(3, "10.0.0.3:7003", 10),
                MembershipChange.promote(3, 10), MembershipChange.remove(1, 4),
                MembershipChange.replace(2, 5, "[::1]:7005", 10), MembershipChange.replace(2, 5, "", 10))) {
            assertThat(MembershipChange.decode(ByteBuffer.wrap(c.encode()))).isEqualTo(c);
            byte[] cut = Arrays.copyOf(c.encode(), c.encode().length - 1);
            assertThatThrownBy(() -> MembershipChange.decode(ByteBuffer.wrap(cut))).isInstanceOf(IllegalArgumentException.class);
        }
        byte[] badKind = MembershipChange.promote(3, 10).encode();
        badKind[1] = 9;
        assertThatThrownBy(() -> MembershipChange.decode(ByteBuffer.wrap(badKind))).hasMessageContaining("kind 9");
        assertThatThrownBy(() -> MembershipChange.promote(3, 0)).hasMessageContaining("alpha");
        assertThatThrownBy(() -> new MembershipChange(MembershipChange.Kind.REMOVE, 1, 2, "", 3)).hasMessageContaining("newId");
    }

    @Test
    void aMembershipValueIsNotACommandBatchWithTheSameBytes() {
        Value m = Value.membership(MembershipChange.promote(3, 10));
        Value data = Value.of(m.bytes());
        assertThat(m).isNotEqualTo(data);
        assertThat(m.isMembership()).isTrue();
        assertThat(data.isMembership()).isFalse();
        assertThat(m.toString()).isEqualTo("config{promote 3 (α 10)}");
        assertThat(Value.membershipOf(new byte[]{7}).toString()).isEqualTo("config{malformed 1B}");
    }

    @Test
    void logRecordsKeepTheKindOfTheirValue() {
        Value m = Value.membership(MembershipChange.addLearner(3, "h:3", 10));
        for (PaxosRecord r : List.of(new PaxosRecord.Vote(4, 2, m), new PaxosRecord.Decision(4, m),
                new PaxosRecord.Vote(4, 2, CoreFixtures.v("x")), new PaxosRecord.Members(new byte[]{1, 2, 3}))) {
            assertThat(RECORDS.decode(RECORDS.encode(r))).isEqualTo(r);
        }
        ByteBuffer empty = ByteBuffer.allocate(13).put((byte) 'c').putLong(4).putInt(0).flip();
        assertThatThrownBy(() -> RECORDS.decode(empty)).hasMessageContaining("empty membership");
    }

    @Test
    void historiesRoundTripAndMalformedOnesAreRefused() {
        MembershipHistory h = new MembershipHistory(Membership.initial(3), 10);
        h.apply(4, true, ByteBuffer.wrap(MembershipChange.addLearner(3, "h:3", 10).encode()));
        h.apply(20, true, ByteBuffer.wrap(MembershipChange.replace(1, 3, "", 10).encode()));
        MembershipHistory copy = new MembershipHistory(Membership.initial(3), 10);
        assertThat(copy.restore(ByteBuffer.wrap(h.encode()))).isTrue();
        assertThat(copy.entries()).isEqualTo(h.entries());
        assertThat(copy.at(30).describe()).isEqualTo("voters=[0,2,3] learners=[] added={3=h:3}");
        assertThat(copy.restore(ByteBuffer.wrap(h.encode()))).as("not further: kept").isFalse();
        byte[] bytes = h.encode();
        assertThatThrownBy(() -> copy.restore(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length - 2))))
                .isInstanceOf(IllegalArgumentException.class);
        ByteBuffer overlapping = ByteBuffer.allocate(40).putLong(9).putInt(1).putLong(0)
                .putInt(0b11).putInt(0b10).putInt(0).putInt(0).flip();
        assertThatThrownBy(() -> copy.restore(overlapping)).hasMessageContaining("malformed membership");
    }

    @Test
    void aDecidedChangeTheMembershipRefusesIsANoOpEverywhere() {
        MembershipHistory h = new MembershipHistory(Membership.initial(3), 10);
        assertThat(h.apply(1, true, ByteBuffer.wrap(MembershipChange.promote(2, 10).encode())))
                .contains("is not a learner");
        assertThat(h.apply(2, true, ByteBuffer.wrap(new byte[]{1, 0}))).contains("malformed");
        assertThat(h.apply(3, true, ByteBuffer.wrap(MembershipChange.addLearner(3, "h:3", 2).encode())))
                .as("a smaller α than this replica's window breaks rule R2: said loudly").contains("same paxos.window");
        assertThat(h.entries()).hasSize(2);
        assertThat(h.apply(3, true, ByteBuffer.wrap(MembershipChange.addLearner(4, "h:4", 10).encode())))
                .as("an instance applied again changes nothing").isNull();
        assertThat(h.latest().isMember(4)).isFalse();
    }

    @Test
    void retiredIdsAreNeverReusedAndTheLastVoterStays() {
        Membership m = Membership.initial(1).apply(MembershipChange.addLearner(1, "h:1", 1))
                .apply(MembershipChange.replace(0, 1, "", 1));
        assertThat(m.describe()).isEqualTo("voters=[1] learners=[] added={1=h:1}");
        assertThat(m.refusal(MembershipChange.addLearner(0, "h:0", 1))).contains("was removed before");
        assertThat(m.refusal(MembershipChange.remove(1, 1))).contains("last voter");
        assertThat(m.refusal(MembershipChange.addLearner(32, "h", 1))).contains("outside 0..31");
        assertThat(m.rankAfter(1, 0)).isZero();
        assertThat(Membership.nextViewLedBy(1, 0)).isEqualTo(1);
        assertThat(Membership.nextViewLedBy(0, 0)).isEqualTo(32);
    }
}
