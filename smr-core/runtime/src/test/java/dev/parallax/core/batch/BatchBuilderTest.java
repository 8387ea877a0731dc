package dev.parallax.core.batch;

import dev.parallax.core.Command;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Batcher's closing rules (seed 000 §V-C1: a batch closes at BSZ bytes or on a timeout). */
class BatchBuilderTest {
    private static final long TIMEOUT = 1_000;
    /** A command of {@code payload} bytes takes payload + 20 bytes in a batch; the header 4. */
    private static final int BSZ = 4 + 3 * (20 + 30);

    private static Command cmd(long seq, int payload) {
        return Command.of(1, seq, new byte[payload]);
    }

    private static List<Long> sequences(ByteBuffer batch) {
        return CommandBatch.decode(batch).stream().map(c -> c.id().sequence()).toList();
    }

    @Test
    @DisplayName("seed 000 §V-C1: a batch that reaches BSZ exactly closes at once")
    void closesWhenItReachesBsz() {
        BatchBuilder b = new BatchBuilder(BSZ, TIMEOUT);
        assertThat(b.add(cmd(1, 30), 0)).isNull();
        assertThat(b.add(cmd(2, 30), 0)).isNull();
        assertThat(b.size()).isEqualTo(4 + 2 * 50);
        ByteBuffer batch = b.add(cmd(3, 30), 0);
        assertThat(batch).isNotNull();
        assertThat(batch.remaining()).isEqualTo(BSZ);
        assertThat(sequences(batch)).containsExactly(1L, 2L, 3L);
        assertThat(b.pending()).isZero();
        assertThat(b.deadline()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    @DisplayName("BSZ is a hard cap: the batch closes before the command that would cross it")
    void closesBeforeTheCommandThatWouldCrossBsz() {
        BatchBuilder b = new BatchBuilder(BSZ, TIMEOUT);
        b.add(cmd(1, 30), 0);
        b.add(cmd(2, 30), 0);
        ByteBuffer batch = b.add(cmd(3, 31), 5);
        assertThat(batch).isNotNull();
        assertThat(batch.remaining()).isLessThanOrEqualTo(BSZ);
        assertThat(sequences(batch)).containsExactly(1L, 2L);
        // The crossing command opened the next batch, with its own timeout.
        assertThat(b.pending()).isEqualTo(1);
        assertThat(b.deadline()).isEqualTo(5 + TIMEOUT);
        assertThat(sequences(b.poll(5 + TIMEOUT, false))).containsExactly(3L);
    }

    @Test
    @DisplayName("no sequence of commands ever yields a batch over BSZ unless it holds one oversized command")
    void noBatchExceedsBszUnlessItIsOneOversizedCommand() {
        BatchBuilder b = new BatchBuilder(BSZ, TIMEOUT);
        int[] payloads = {1, 70, 0, 100, 13, 200, 5, 5, 5, 5, 90, 140, 3};
        int seen = 0;
        for (int i = 0; i < payloads.length; i++) {
            ByteBuffer batch = b.add(cmd(i + 1, payloads[i]), i);
            if (batch == null) {
                batch = b.poll(i, false);
            }
            if (batch != null) {
                List<Command> commands = CommandBatch.decode(batch);
                seen += commands.size();
                assertThat(batch.remaining() <= BSZ || commands.size() == 1)
                        .as("batch of %d bytes, %d commands", batch.remaining(), commands.size()).isTrue();
            }
        }
        ByteBuffer last = b.poll(Long.MAX_VALUE / 2, false);
        seen += last == null ? 0 : CommandBatch.decode(last).size();
        assertThat(seen).isEqualTo(payloads.length);
    }

    @Test
    @DisplayName("seed 000 §V-C1: a partial batch closes when its oldest command waited the timeout")
    void closesAtTheTimeout() {
        BatchBuilder b = new BatchBuilder(BSZ, TIMEOUT);
        assertThat(b.poll(0, false)).isNull();
        b.add(cmd(1, 10), 100);
        b.add(cmd(2, 10), 600);
        assertThat(b.deadline()).isEqualTo(100 + TIMEOUT);
        assertThat(b.poll(100 + TIMEOUT - 1, false)).isNull();
        assertThat(sequences(b.poll(100 + TIMEOUT, false))).containsExactly(1L, 2L);
        assertThat(b.poll(10 * TIMEOUT, false)).isNull();
    }

    @Test
    @DisplayName("eager: a partial batch closes at once when the ordering layer has room; never an empty one")
    void closesEagerly() {
        BatchBuilder b = new BatchBuilder(BSZ, TIMEOUT);
        assertThat(b.poll(0, true)).isNull();
        b.add(cmd(1, 10), 0);
        assertThat(b.poll(1, false)).isNull();
        assertThat(sequences(b.poll(1, true))).containsExactly(1L);
        assertThat(b.pending()).isZero();
    }

    @Test
    @DisplayName("a single command larger than BSZ forms a batch of its own")
    void aSingleOversizedCommandFormsItsOwnBatch() {
        BatchBuilder b = new BatchBuilder(BSZ, TIMEOUT);
        ByteBuffer alone = b.add(cmd(1, 500), 0);
        assertThat(sequences(alone)).containsExactly(1L);
        assertThat(alone.remaining()).isEqualTo(4 + 20 + 500);

        // Behind an open batch: that batch closes first; the big one is full at once and due now.
        b.add(cmd(2, 10), 10);
        assertThat(sequences(b.add(cmd(3, 500), 20))).containsExactly(2L);
        assertThat(b.deadline()).isEqualTo(20);
        assertThat(sequences(b.poll(20, false))).containsExactly(3L);
        // ... or the next command closes it.
        b.add(cmd(4, 10), 30);
        assertThat(sequences(b.add(cmd(5, 500), 30))).containsExactly(4L);
        assertThat(sequences(b.add(cmd(6, 1), 30))).containsExactly(5L);
        assertThat(b.pending()).isEqualTo(1);
    }

    @Test
    @DisplayName("deadline(): none while empty, the timeout of the oldest command otherwise")
    void deadlineFollowsTheOldestCommand() {
        BatchBuilder b = new BatchBuilder(BSZ, TIMEOUT);
        assertThat(b.deadline()).isEqualTo(Long.MAX_VALUE);
        b.add(cmd(1, 1), 42);
        b.add(cmd(2, 1), 900);
        assertThat(b.deadline()).isEqualTo(42 + TIMEOUT);
        b.poll(0, true);
        assertThat(b.deadline()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    @DisplayName("a command to a group set other than the default counts its 8 group bytes against BSZ, exactly")
    void groupedCommandsCountTheirGroupBytes() {
        BatchBuilder b = new BatchBuilder(BSZ, TIMEOUT);
        Command grouped = Command.of(1, dev.parallax.core.GroupSet.of(3), 1, new byte[30]);
        assertThat(b.add(grouped, 0)).isNull();
        assertThat(b.size()).isEqualTo(4 + 20 + 8 + 30);
        assertThat(b.add(cmd(2, 30), 0)).isNull();
        // 4 + 58 + 50 = 112; a third command of 30 would make 162 > BSZ (154): it closes the batch.
        ByteBuffer closed = b.add(cmd(3, 30), 0);
        assertThat(closed).isNotNull();
        assertThat(closed.remaining()).isEqualTo(4 + 58 + 50);
        assertThat(CommandBatch.decode(closed)).extracting(Command::groups)
                .containsExactly(dev.parallax.core.GroupSet.of(3), dev.parallax.core.GroupSet.DEFAULT);
        // After a close the count of grouped commands starts again from zero.
        assertThat(b.size()).isEqualTo(4 + 50);
        ByteBuffer last = b.poll(0, true);
        assertThat(last.remaining()).isEqualTo(4 + 50);
        // A grouped command that brings the batch to BSZ exactly closes it at once.
        b.add(cmd(4, 30), 0);
        b.add(cmd(5, 30), 0);
        ByteBuffer exact = b.add(Command.of(1, dev.parallax.core.GroupSet.of(1, 2), 6, new byte[22]), 0);
        assertThat(exact).isNotNull();
        assertThat(exact.remaining()).isEqualTo(BSZ);
    }

    @Test
    @DisplayName("bad settings are rejected with a clear error")
    void rejectsABszNoCommandFitsAndANegativeTimeout() {
        assertThatThrownBy(() -> new BatchBuilder(CommandBatch.HEADER, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header");
        assertThatThrownBy(() -> new BatchBuilder(BSZ, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
    }
}
