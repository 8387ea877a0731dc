package dev.parallax.paxos.spaxos;

import dev.parallax.paxos.Value;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The S-Paxos delivery state ({@link SPaxosDeliveryState}): the executed ids, then the membership
 * history the {@link ExecutionMirror} applied in order; states written before the history was added
 * still install.
 */
class SPaxosDeliveryStateTest {
    private static final BatchId X = new BatchId(1, 1, 1);

    @Test
    @DisplayName("a mirror applies configuration commands in order; its state carries the history beside the executed ids")
    void mirrorCarriesTheMembershipHistory() {
        ExecutionMirror m = new ExecutionMirror(Membership.initial(3), 4);
        m.apply(0, List.of(X));
        MembershipChange add = MembershipChange.addLearner(3, "h:3", 4);
        assertThat(m.applyMembership(1, Value.membership(add).bytes())).isTrue();
        assertThat(m.applyMembership(0, Value.membership(add).bytes())).as("below the position").isFalse();
        assertThat(m.latestMembership().isLearner(3)).isTrue();

        SPaxosDeliveryState s = SPaxosDeliveryState.fromBytes(m.state());
        assertThat(s.executed().executed(X)).isTrue();
        assertThat(s.membership()).isNotNull();

        ExecutionMirror installer = new ExecutionMirror(Membership.initial(3), 4);
        installer.restore(2, m.state());
        assertThat(installer.latestMembership()).isEqualTo(m.latestMembership());
        assertThat(installer.executed().executed(X)).isTrue();
    }

    @Test
    @DisplayName("an old-format state (the executed-id record alone) and an empty one still install, without a history")
    void oldAndEmptyStatesInstall() {
        ExecutedIds ids = new ExecutedIds();
        ids.firstExecution(X);
        SPaxosDeliveryState old = SPaxosDeliveryState.fromBytes(ids.toBytes());
        assertThat(old.executed()).isEqualTo(ids);
        assertThat(old.membership()).isNull();
        SPaxosDeliveryState empty = SPaxosDeliveryState.fromBytes(new byte[0]);
        assertThat(empty.executed().streams()).isZero();
        assertThat(empty.membership()).isNull();

        ExecutionMirror m = new ExecutionMirror(Membership.initial(3), 4);
        m.restore(5, ids.toBytes());
        assertThat(m.executed()).isEqualTo(ids);
        assertThat(m.latestMembership()).isEqualTo(Membership.initial(3));
        assertThat(new ExecutionMirror().state()).as("a mirror without membership writes the old format")
                .isEqualTo(new ExecutedIds().toBytes());
    }

    @Test
    @DisplayName("bytes after the record that are not a history are refused")
    void trailingGarbageIsRefused() {
        byte[] bad = java.nio.ByteBuffer.allocate(new ExecutedIds().encodedSize() + 4).putInt(0).putInt(7).array();
        assertThatThrownBy(() -> SPaxosDeliveryState.fromBytes(bad)).isInstanceOf(IllegalArgumentException.class);
    }
}
