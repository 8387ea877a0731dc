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
