package dev.parallax.paxos.spaxos;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.batch.CommandBatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The delivered bytes and the delivery-state mirror. */
class ExecutedBatchesTest {

    private static ByteBuffer batch(long client, String... payloads) {
        List<Command> commands = new java.util.ArrayList<>();
        for (int i = 0; i < payloads.length; i++) {
            commands.add(new Command(new CommandId(client, i + 1), ByteBuffer.wrap(payloads[i].getBytes(StandardCharsets.UTF_8))));
        }
        return CommandBatch.encode(commands);
    }

    @Test
    @DisplayName("ids then one batch of every command, read back with the ids apart")
    void roundTrip() {
        BatchId a = new BatchId(0, 3, 1);
        BatchId b = new BatchId(2, 4, 9);
        Executable e = new Executable(5, List.of(a, b), List.of(batch(1, "x", "y"), batch(2, "z")));
        ExecutedBatches.Delivered d = ExecutedBatches.decode(ExecutedBatches.encode(e));
        assertThat(d.ids()).containsExactly(a, b);
        List<Command> commands = CommandBatch.decode(d.commands());
        assertThat(commands).extracting(c -> c.id().clientId()).containsExactly(1L, 1L, 2L);
    }

    @Test
    @DisplayName("one body is delivered as it is; a body that is not a batch is left out")
    void singleAndMalformedBodies() {
        ByteBuffer raw = ByteBuffer.wrap("not a batch".getBytes(StandardCharsets.UTF_8));
        ExecutedBatches.Delivered one = ExecutedBatches.decode(ExecutedBatches.encode(
                new Executable(0, List.of(new BatchId(0, 1, 1)), List.of(raw))));
        assertThat(one.commands()).isEqualTo(raw);
        ExecutedBatches.Delivered two = ExecutedBatches.decode(ExecutedBatches.encode(new Executable(0,
                List.of(new BatchId(0, 1, 1), new BatchId(0, 1, 2)), List.of(raw, batch(3, "ok")))));
        assertThat(CommandBatch.decode(two.commands())).extracting(c -> c.id().clientId()).containsExactly(3L);
    }

    @Test
    @DisplayName("bad input: a malformed id part is refused with IllegalArgumentException")
    void malformedIsRefused() {
        assertThatThrownBy(() -> ExecutedBatches.decode(ByteBuffer.allocate(2))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExecutedBatches.decode(ByteBuffer.allocate(8).putInt(0, 5)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExecutedBatches.decode(ByteBuffer.allocate(8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("the mirror's state at position p is the record after instance p-1; restore and stale instances")
    void mirrorFollowsDeliveries() {
        ExecutionMirror m = new ExecutionMirror();
        m.apply(0, List.of(new BatchId(0, 1, 1)));
        m.apply(1, List.of(new BatchId(1, 1, 1)));
        byte[] atTwo = m.state();
        ExecutedIds expected = new ExecutedIds();
        expected.firstExecution(new BatchId(0, 1, 1));
        expected.firstExecution(new BatchId(1, 1, 1));
        assertThat(ExecutedIds.fromBytes(atTwo)).isEqualTo(expected);
        ExecutionMirror other = new ExecutionMirror();
        other.restore(2, atTwo);
        assertThat(other.apply(1, List.of(new BatchId(2, 1, 1)))).as("below the position").isFalse();
        assertThat(other.position()).isEqualTo(2);
        assertThat(other.executed()).isEqualTo(expected);
        assertThatThrownBy(() -> other.restore(3, new byte[] {1})).isInstanceOf(IllegalArgumentException.class);
        assertThat(other.executed()).isEqualTo(expected);
    }
}
