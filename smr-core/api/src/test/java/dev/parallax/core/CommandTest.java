package dev.parallax.core;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CommandTest {

    @Test
    void payloadViewsAreIndependentAndReadOnly() {
        Command c = Command.of(7, 1, new byte[]{1, 2, 3});
        ByteBuffer a = c.payload();
        a.get();
        assertThat(c.payload().remaining()).isEqualTo(3);
        assertThat(c.size()).isEqualTo(3);
        assertThatThrownBy(() -> c.payload().put((byte) 0)).isInstanceOf(ReadOnlyBufferException.class);
        assertThat(c).isEqualTo(Command.of(7, 1, new byte[]{1, 2, 3})).isNotEqualTo(Command.of(7, 2, new byte[]{1, 2, 3}));
    }

    @Test
    void aCommandNamingNoGroupGoesToTheDefaultGroupAndGroupsArePartOfItsIdentity() {
        Command plain = Command.of(7, 1, new byte[]{1});
        assertThat(plain.groups()).isSameAs(GroupSet.DEFAULT).isEqualTo(GroupSet.of(0));
        assertThat(GroupSet.DEFAULT.isDefault()).isTrue();
        assertThat(GroupSet.of(0, 1).isDefault()).isFalse();
        assertThat(GroupSet.ofBits(1L)).isSameAs(GroupSet.DEFAULT);
        assertThat(plain).isEqualTo(Command.of(7, GroupSet.of(0), 1, new byte[]{1}));
        assertThat(plain.id()).isEqualTo(new CommandId(7, GroupSet.DEFAULT, 1));

        Command toOne = Command.of(7, GroupSet.of(1), 1, new byte[]{1});
        assertThat(toOne.groups()).isEqualTo(GroupSet.of(1));
        assertThat(toOne).isNotEqualTo(plain);
        assertThat(toOne.id()).isNotEqualTo(plain.id());
        assertThat(toOne.hashCode()).isEqualTo(Command.of(7, GroupSet.of(1), 1, new byte[]{1}).hashCode());
        assertThat(toOne.id()).hasToString("7:{1}:1");
        assertThat(plain.id()).hasToString("7:1");
        assertThatThrownBy(() -> new CommandId(1, null, 1)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void commandIdsOrderByClientThenStreamThenSequence() {
        assertThat(new CommandId(1, GroupSet.of(0), 9)).isLessThan(new CommandId(1, GroupSet.of(1), 1));
        assertThat(new CommandId(1, GroupSet.of(1), 9)).isLessThan(new CommandId(1, GroupSet.of(63), 1));
        assertThat(new CommandId(1, GroupSet.of(63), 9)).isLessThan(new CommandId(2, 0));
    }

    @Test
    void commandIdsOrderByClientThenSequence() {
        assertThat(new CommandId(1, 9)).isLessThan(new CommandId(2, 0));
        assertThat(new CommandId(1, 1)).isLessThan(new CommandId(1, 2));
        assertThat(new CommandId(3, 4)).hasToString("3:4");
        assertThatThrownBy(() -> new CommandId(1, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void resultsCarryAReplyOrADeterministicError() {
        CommandResult ok = CommandResult.ok(ByteBuffer.wrap(new byte[]{9}));
        assertThat(ok.isError()).isFalse();
        assertThat(ok.reply().get()).isEqualTo((byte) 9);
        CommandResult err = CommandResult.failed(new IllegalArgumentException("bad key"));
        assertThat(err.isError()).isTrue();
        assertThat(err.error()).isEqualTo("IllegalArgumentException: bad key");
        assertThat(err).isEqualTo(CommandResult.failed(new IllegalArgumentException("bad key")));
        assertThat(CommandResult.failed(new IllegalStateException()).error()).isEqualTo("IllegalStateException");
        assertThat(err.reply().remaining()).isZero();
    }
}
