package dev.parallax.core.client;

import dev.parallax.core.WrongPartitions;
import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PartitionedInvokerTest {
    /** A partition's invoker that records what it was sent and answers with {@code answer}. */
    private static final class Partition implements CommandInvoker {
        final List<GroupSet> sent = new ArrayList<>();
        final Function<GroupSet, CompletableFuture<ByteBuffer>> answer;

        Partition(Function<GroupSet, CompletableFuture<ByteBuffer>> answer) {
            this.answer = answer;
        }

        @Override
        public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
            return invoke(GroupSet.DEFAULT, command);
        }

        @Override
        public CompletableFuture<ByteBuffer> invoke(GroupSet groups, ByteBuffer command) {
            sent.add(groups);
            return answer.apply(groups);
        }
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static CompletableFuture<ByteBuffer> ok(GroupSet g) {
        return CompletableFuture.completedFuture(text("ok " + g));
    }

    @Test
    @DisplayName("seed 004 §IV Alg. 1 l.5-6: a command goes to a replica of a partition the oracle names")
    void sendsToAnInvolvedPartition() throws Exception {
        List<Partition> ps = List.of(new Partition(PartitionedInvokerTest::ok), new Partition(PartitionedInvokerTest::ok),
                new Partition(PartitionedInvokerTest::ok));
        PartitionedInvoker inv = new PartitionedInvoker(ps, c -> GroupSet.of(2), 2);
        assertThat(StandardCharsets.UTF_8.decode(inv.invoke(text("x")).get()).toString()).isEqualTo("ok " + GroupSet.of(2));
        assertThat(ps.get(2).sent).containsExactly(GroupSet.of(2));
        assertThat(ps.get(0).sent).isEmpty();
        assertThat(ps.get(1).sent).isEmpty();
    }

    @Test
    @DisplayName("one destination set always enters through the same partition (per-stream FIFO), and that partition is in the set")
    void oneSetOneEntryPartition() {
        PartitionedInvoker inv = new PartitionedInvoker(List.of(g -> null, g -> null, g -> null, g -> null), c -> null, 0);
        for (long bits = 1; bits < 16; bits++) {
            GroupSet set = GroupSet.ofBits(bits);
            int entry = inv.entryPartition(set);
            assertThat(set.contains(entry)).as("%s enters at %d", set, entry).isTrue();
            assertThat(inv.entryPartition(GroupSet.ofBits(bits))).isEqualTo(entry);
        }
    }

    @Test
    @DisplayName("an oracle that under-approximates gets WrongPartitions and the command is re-sent to the wider set")
    void retriesWithTheWiderSet() throws Exception {
        GroupSet all = GroupSet.of(0, 1);
        Function<GroupSet, CompletableFuture<ByteBuffer>> strict = g -> g.equals(all) ? ok(g)
                : CompletableFuture.failedFuture(new CommandRejectedException(WrongPartitions.message(all)));
        List<Partition> ps = List.of(new Partition(strict), new Partition(strict));
        PartitionedInvoker inv = new PartitionedInvoker(ps, c -> GroupSet.of(1), 2);
        assertThat(StandardCharsets.UTF_8.decode(inv.invoke(text("delete /a")).get()).toString()).isEqualTo("ok " + all);
        assertThat(ps.get(1).sent.get(0)).isEqualTo(GroupSet.of(1));
        List<GroupSet> retried = new ArrayList<>(ps.get(0).sent);
        retried.addAll(ps.get(1).sent.subList(1, ps.get(1).sent.size()));
        assertThat(retried).containsExactly(all);
    }

    @Test
    @DisplayName("retries are bounded; any other rejection, and a WrongPartitions naming nothing new, reach the caller as they are")
    void otherFailuresPassThrough() {
        GroupSet g0 = GroupSet.of(0);
        Partition always = new Partition(g -> CompletableFuture.failedFuture(
                new CommandRejectedException(WrongPartitions.message(GroupSet.of(0, 1)))));
        Partition other = new Partition(g -> CompletableFuture.failedFuture(new CommandRejectedException("no such key")));
        PartitionedInvoker noRetries = new PartitionedInvoker(List.of(always, always), c -> g0, 0);
        assertThatThrownBy(() -> noRetries.invoke(text("x")).get()).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(CommandRejectedException.class).hasMessageContaining("WrongPartitions");
        PartitionedInvoker bounded = new PartitionedInvoker(List.of(always, always), c -> g0, 3);
        assertThatThrownBy(() -> bounded.invoke(text("x")).get()).hasMessageContaining("WrongPartitions");
        assertThat(always.sent).hasSize(1 + 2).as("the wider set is tried once: it names nothing new after that");
        PartitionedInvoker rejecting = new PartitionedInvoker(List.of(other), c -> g0, 2);
        assertThatThrownBy(() -> rejecting.invoke(text("x")).get()).hasCauseInstanceOf(CommandRejectedException.class)
                .hasMessageContaining("no such key");
        assertThat(other.sent).hasSize(1);
    }

    @Test
    @DisplayName("bad destinations fail the command without sending it: beyond the partitions, null, or an oracle that throws")
    void badDestinations() {
        Partition p = new Partition(PartitionedInvokerTest::ok);
        assertThatThrownBy(() -> new PartitionedInvoker(List.of(p), c -> GroupSet.of(3), 1).invoke(text("x")).get())
                .hasCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("beyond the 1");
        assertThatThrownBy(() -> new PartitionedInvoker(List.of(p), c -> null, 1).invoke(text("x")).get())
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PartitionedInvoker(List.of(p), c -> {
            throw new IllegalStateException("oracle down");
        }, 1).invoke(text("x")).get()).hasMessageContaining("oracle down");
        assertThat(p.sent).isEmpty();
    }

    @Test
    @DisplayName("WrongPartitions round-trips its set and ignores other messages")
    void wrongPartitionsFormat() {
        GroupSet s = GroupSet.of(0, 5, 63);
        assertThat(WrongPartitions.parse(WrongPartitions.message(s))).contains(s);
        assertThat(WrongPartitions.parse("WrongPartitionsException: " + WrongPartitions.message(s).substring(17))).contains(s);
        assertThat(WrongPartitions.parse("ERR no such key")).isEmpty();
        assertThat(WrongPartitions.parse("WrongPartitions: needs zz")).isEmpty();
        assertThat(WrongPartitions.parse("WrongPartitions: needs 0")).isEmpty();
        assertThat(WrongPartitions.parse(null)).isEmpty();
    }
}
