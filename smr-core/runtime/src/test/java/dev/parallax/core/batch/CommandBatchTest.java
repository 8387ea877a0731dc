package dev.parallax.core.batch;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The batch wire format: destinations only when not default, old batches readable, bad bytes refused cleanly. */
class CommandBatchTest {

    private static List<Command> mixed() {
        return List.of(
                Command.of(1, 1, new byte[]{1, 2, 3}),
                Command.of(1, GroupSet.of(1), 1, new byte[]{4}),
                Command.of(2, GroupSet.of(0, 5, 63), 7, new byte[0]),
                Command.of(3, 9, new byte[]{5, 6}));
    }

    /** A batch in the format written before commands carried destinations, built by hand. */
    private static ByteBuffer oldFormat(long[][] commands, byte[][] payloads) {
        int size = 4;
        for (byte[] p : payloads) {
            size += 20 + p.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).putInt(commands.length);
        for (int i = 0; i < commands.length; i++) {
            b.putLong(commands[i][0]).putLong(commands[i][1]).putInt(payloads[i].length).put(payloads[i]);
        }
        return b.flip();
    }

    @Test
    void commandsWithAndWithoutGroupsRoundTrip() {
        List<Command> commands = mixed();
        ByteBuffer batch = CommandBatch.encode(commands);
        List<Command> back = CommandBatch.decode(batch);
        assertThat(back).containsExactlyElementsOf(commands);
        assertThat(back).extracting(Command::groups)
                .containsExactly(GroupSet.DEFAULT, GroupSet.of(1), GroupSet.of(0, 5, 63), GroupSet.DEFAULT);
        assertThat(back.get(0).groups()).isSameAs(GroupSet.DEFAULT);
        assertThat(batch.position()).as("decode does not move the caller's buffer").isZero();
    }

    @Test
    void sizesAreExactAndGroupsCostEightBytesOnlyWhenNotDefault() {
        List<Command> commands = mixed();
        int payload = 3 + 1 + 0 + 2;
        int expected = CommandBatch.HEADER + 4 * CommandBatch.COMMAND_OVERHEAD + 2 * CommandBatch.GROUPS_BYTES + payload;
        assertThat(CommandBatch.encode(commands).remaining()).isEqualTo(expected)
                .isEqualTo(CommandBatch.encodedSize(4, 2, payload));
        assertThat(commands.stream().mapToInt(CommandBatch::commandBytes).sum() + CommandBatch.HEADER).isEqualTo(expected);
        assertThat(CommandBatch.encodedSize(3, 10)).isEqualTo(CommandBatch.encodedSize(3, 0, 10)).isEqualTo(4 + 60 + 10);
        assertThatThrownBy(() -> CommandBatch.encodedSize(1, 1, Integer.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too large");
    }

    @Test
    void aBatchOfDefaultGroupCommandsIsByteForByteTheOldFormat() {
        ByteBuffer old = oldFormat(new long[][]{{7, 1}, {7, 2}, {9, 1}}, new byte[][]{{1}, {}, {2, 3}});
        List<Command> decoded = CommandBatch.decode(old);
        assertThat(decoded).containsExactly(Command.of(7, 1, new byte[]{1}), Command.of(7, 2, new byte[0]),
                Command.of(9, 1, new byte[]{2, 3}));
        assertThat(decoded).allMatch(c -> c.groups().isDefault());
        assertThat(CommandBatch.encode(decoded)).isEqualTo(old);
    }

    @Test
    void oldBatchesWithLargeSequencesAndClientIdsStillDecode() {
        long seq = Long.MAX_VALUE;
        ByteBuffer old = oldFormat(new long[][]{{-5, seq}, {Long.MIN_VALUE, 0}}, new byte[][]{{9}, {8}});
        List<Command> decoded = CommandBatch.decode(old);
        assertThat(decoded).extracting(Command::id)
                .containsExactly(new CommandId(-5, seq), new CommandId(Long.MIN_VALUE, 0));
    }

    @Test
    void payloadsAreViewsIntoTheBatchNotCopies() {
        ByteBuffer batch = CommandBatch.encode(List.of(Command.of(1, GroupSet.of(2), 1, new byte[]{10, 11})));
        List<Command> decoded = CommandBatch.decode(batch);
        int payloadAt = batch.limit() - 2;
        batch.put(payloadAt, (byte) 99);
        assertThat(decoded.get(0).payload().get(0)).isEqualTo((byte) 99);
    }

    @Test
    void malformedBatchesAreRefusedWithAClearMessage() {
        assertThatThrownBy(() -> CommandBatch.decode(ByteBuffer.allocate(3))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shorter than its header");
        assertThatThrownBy(() -> CommandBatch.decode(ByteBuffer.allocate(24).putInt(0, 2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("claims 2 commands");
        assertThatThrownBy(() -> CommandBatch.decode(ByteBuffer.allocate(4).putInt(0, -1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("claims -1 commands");

        // G set but the group word cut off.
        ByteBuffer cut = ByteBuffer.allocate(4 + 20 + 4).putInt(1).putLong(1).putLong(Long.MIN_VALUE | 1).putInt(0)
                .putInt(0).flip();
        assertThatThrownBy(() -> CommandBatch.decode(cut)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated in its group set");
        // G set with an empty group set.
        ByteBuffer empty = ByteBuffer.allocate(4 + 28).putInt(1).putLong(1).putLong(Long.MIN_VALUE | 1).putInt(0)
                .putLong(0).flip();
        assertThatThrownBy(() -> CommandBatch.decode(empty)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty group set");
        // A length that lies.
        ByteBuffer lying = ByteBuffer.allocate(4 + 28 + 1).putInt(1).putLong(1).putLong(Long.MIN_VALUE | 1).putInt(2)
                .putLong(4).put((byte) 1).flip();
        assertThatThrownBy(() -> CommandBatch.decode(lying)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad length 2");
        ByteBuffer negative = ByteBuffer.allocate(4 + 20).putInt(1).putLong(1).putLong(1).putInt(-3).flip();
        assertThatThrownBy(() -> CommandBatch.decode(negative)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad length -3");
        // Trailing bytes.
        ByteBuffer good = CommandBatch.encode(mixed());
        ByteBuffer trailing = ByteBuffer.allocate(good.remaining() + 1).put(good.duplicate()).put((byte) 0).flip();
        assertThatThrownBy(() -> CommandBatch.decode(trailing)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 trailing bytes");
    }

    @Test
    void everyTruncationOrCorruptionEitherDecodesOrRaisesIllegalArgument() {
        ByteBuffer good = CommandBatch.encode(mixed());
        byte[] bytes = new byte[good.remaining()];
        good.duplicate().get(bytes);
        for (int len = 0; len < bytes.length; len++) {
            ByteBuffer prefix = ByteBuffer.wrap(bytes, 0, len).slice();
            assertThatThrownBy(() -> CommandBatch.decode(prefix)).as("prefix of %d bytes", len)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        Random random = new Random(11);
        List<Throwable> unexpected = new ArrayList<>();
        for (int round = 0; round < 20_000; round++) {
            byte[] copy = bytes.clone();
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                copy[random.nextInt(copy.length)] ^= (byte) (1 << random.nextInt(8));
            }
            try {
                for (Command c : CommandBatch.decode(ByteBuffer.wrap(copy))) {
                    assertThat(c.groups().bits()).isNotZero();
                    assertThat(c.id().sequence()).isNotNegative();
                }
            } catch (IllegalArgumentException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            } catch (RuntimeException e) {
                unexpected.add(e);
            }
        }
        assertThat(unexpected).isEmpty();
    }

    @Test
    @DisplayName("concat: one batch of every command in order, counts summed, one batch as is (seed 002 (S-Paxos) §IV-A, Alg. 1 l.19-22)")
    void concatJoinsBatchesInOrder() {
        List<Command> first = mixed();
        List<Command> second = List.of(Command.of(9, 4, new byte[]{7, 7}), Command.of(8, GroupSet.of(2), 3, new byte[]{1}));
        ByteBuffer a = CommandBatch.encode(first);
        ByteBuffer b = CommandBatch.encode(second);
        ByteBuffer empty = CommandBatch.encode(List.of());
        // A batch read from the middle of a bigger buffer (position > 0) is joined from its position.
        ByteBuffer shifted = ByteBuffer.allocate(b.remaining() + 3).position(3).put(b.duplicate()).position(3);

        ByteBuffer joined = CommandBatch.concat(List.of(a, empty, shifted));
        List<Command> expected = new ArrayList<>(first);
        expected.addAll(second);
        assertThat(CommandBatch.decode(joined)).containsExactlyElementsOf(expected);
        assertThat(joined.remaining()).isEqualTo(a.remaining() + b.remaining() - CommandBatch.HEADER);
        assertThat(a.position()).as("inputs are not moved").isZero();
        assertThat(shifted.position()).isEqualTo(3);

        assertThat(CommandBatch.concat(List.of(a))).isSameAs(a);
        assertThat(CommandBatch.decode(CommandBatch.concat(List.of()))).isEmpty();
    }

    @Test
    @DisplayName("concat refuses a malformed batch, naming it, instead of corrupting its neighbours")
    void concatRefusesMalformedBatches() {
        ByteBuffer good = CommandBatch.encode(mixed());
        ByteBuffer truncated = good.duplicate().limit(good.limit() - 1);
        ByteBuffer trailing = ByteBuffer.allocate(good.remaining() + 1).put(good.duplicate()).put((byte) 0).flip();
        ByteBuffer negative = ByteBuffer.allocate(4).putInt(-1).flip();
        for (ByteBuffer bad : List.of(truncated, trailing, negative, ByteBuffer.allocate(2))) {
            assertThatThrownBy(() -> CommandBatch.concat(List.of(good, bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("batch 1 of 2");
            assertThatThrownBy(() -> CommandBatch.concat(List.of(bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("batch 0 of 1");
        }
    }
}
