package dev.parallax.examples.linkedlist;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.Executor;
import dev.parallax.scheduler.ConflictRelation;
import dev.parallax.scheduler.Execution;
import dev.parallax.scheduler.SyncMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShardedLinkedListTest {

    @Test
    void localAndGlobalOperations() {
        ShardedLinkedList list = new ShardedLinkedList(2, 10);
        assertThat(exec(list, ListCommands.LOCAL_READ, 0, 9)).isTrue();
        assertThat(exec(list, ListCommands.LOCAL_READ, 1, 10)).isFalse();
        assertThat(exec(list, ListCommands.LOCAL_WRITE, 1, 10)).isTrue();
        assertThat(exec(list, ListCommands.LOCAL_WRITE, 1, 10)).as("no duplicates").isFalse();
        assertThat(exec(list, ListCommands.GLOBAL_READ, 0, 10)).isFalse();
        assertThat(exec(list, ListCommands.GLOBAL_WRITE, 0, 10)).isTrue();
        assertThat(exec(list, ListCommands.GLOBAL_READ, 0, 10)).isTrue();
        assertThat(list.size(0)).isEqualTo(11);
        assertThat(list.size(1)).isEqualTo(11);
        assertThatThrownBy(() -> exec(list, ListCommands.LOCAL_READ, 2, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void classifierFollowsSeed001Classes() {
        ListClassifier c = new ListClassifier(4);
        assertThat(c.classify(ListCommands.command(1, 1, ListCommands.LOCAL_READ, 2, 0))).isEqualTo(2);
        assertThat(c.classify(ListCommands.command(1, 1, ListCommands.LOCAL_WRITE, 2, 0))).isEqualTo(6);
        assertThat(c.classify(ListCommands.command(1, 1, ListCommands.GLOBAL_READ, 0, 0))).isEqualTo(8);
        assertThat(c.classify(ListCommands.command(1, 1, ListCommands.GLOBAL_WRITE, 0, 0))).isEqualTo(9);
        assertThat(c.classMap().classCount()).isEqualTo(10);
        assertThat(c.classMap().threadCount()).isEqualTo(8);
        assertThatThrownBy(() -> c.classify(Command.of(1, 1, new byte[3]))).isInstanceOf(IllegalArgumentException.class);
    }

    /** Commands the classifier cannot handle get the same error under every parallel executor. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void unclassifiableCommandsGetAnErrorResultAndTheRestRuns(Kind kind) throws Exception {
        ListClassifier classifier = new ListClassifier(2);
        Executor ex = kind == Kind.LATE
                ? Execution.lateScheduling(ConflictRelation.byClass(classifier.classMap(), classifier), 4)
                : Execution.earlyScheduling(classifier.classMap(), classifier, SyncMode.valueOf(kind.name()));
        Command garbage = Command.of(1, 1, new byte[] {ListCommands.LOCAL_WRITE, 0, 1});
        Command badShard = ListCommands.command(1, 2, ListCommands.LOCAL_WRITE, 7, 1);
        Command write = ListCommands.command(1, 3, ListCommands.LOCAL_WRITE, 1, 500);
        ShardedLinkedList list = new ShardedLinkedList(2, 10);
        Map<CommandId, CommandResult> results = run(ex, list, List.of(garbage, badShard, write));
        assertThat(results.get(garbage.id())).isEqualTo(CommandResult.error(
                "unclassifiable command: IllegalArgumentException: list commands have 9 bytes, got 3"));
        assertThat(results.get(badShard.id())).isEqualTo(CommandResult.error(
                "unclassifiable command: IllegalArgumentException: shard 7 outside [0, 2)"));
        assertThat(ListCommands.isTrue(results.get(write.id()).reply())).isTrue();
        assertThat(list.size(1)).isEqualTo(11);
    }

    enum Kind { LATE, BARRIER, BUSY_WAIT, WS_QUEUE, WS_SEMI_BLOCKED, WS_NON_BLOCKED, WS_OPT }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void everyExecutorMatchesSequentialExecution(Kind kind) throws Exception {
        int shards = 2;
        ListClassifier classifier = new ListClassifier(shards);
        List<Command> commands = workload(shards, 4_000, 42);
        ShardedLinkedList reference = new ShardedLinkedList(shards, 100);
        Map<CommandId, CommandResult> expected = run(Execution.sequential(), reference, commands);
        Executor ex = kind == Kind.LATE
                ? Execution.lateScheduling(ConflictRelation.byClass(classifier.classMap(), classifier), 4)
                : Execution.earlyScheduling(classifier.classMap(), classifier, SyncMode.valueOf(kind.name()));
        ShardedLinkedList list = new ShardedLinkedList(shards, 100);
        assertThat(run(ex, list, commands)).isEqualTo(expected);
        assertThat(snapshot(list)).isEqualTo(snapshot(reference));
    }

    @Test
    void snapshotAndRestoreRoundTrip() throws IOException {
        ShardedLinkedList a = new ShardedLinkedList(3, 50);
        exec(a, ListCommands.LOCAL_WRITE, 2, 777);
        byte[] snap = snapshot(a);
        ShardedLinkedList b = new ShardedLinkedList(3, 0);
        b.restore(Channels.newChannel(new ByteArrayInputStream(snap)));
        assertThat(snapshot(b)).isEqualTo(snap);
        assertThat(exec(b, ListCommands.LOCAL_READ, 2, 777)).isTrue();
        assertThatThrownBy(() -> new ShardedLinkedList(2, 0).restore(Channels.newChannel(new ByteArrayInputStream(snap))))
                .isInstanceOf(IOException.class);
    }

    static List<Command> workload(int shards, int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Command> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            double p = r.nextDouble();
            byte op = p < 0.05 ? (r.nextBoolean() ? ListCommands.GLOBAL_WRITE : ListCommands.GLOBAL_READ)
                    : p < 0.30 ? ListCommands.LOCAL_WRITE : ListCommands.LOCAL_READ;
            out.add(ListCommands.command(1, i, op, r.nextInt(shards), r.nextInt(400)));
        }
        return out;
    }

    private static Map<CommandId, CommandResult> run(Executor ex, ShardedLinkedList list, List<Command> commands)
            throws Exception {
        Map<CommandId, CommandResult> results = new ConcurrentHashMap<>();
        try (ex) {
            ex.start(list, (c, r) -> results.put(c.id(), r));
            for (Command c : commands) {
                ex.execute(c);
            }
            ex.awaitQuiescence();
        }
        return results;
    }

    private static boolean exec(ShardedLinkedList list, byte op, int shard, int value) {
        return ListCommands.isTrue(list.execute(java.nio.ByteBuffer.wrap(ListCommands.encode(op, shard, value))));
    }

    private static byte[] snapshot(ShardedLinkedList l) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        l.snapshot(Channels.newChannel(out));
        return out.toByteArray();
    }
}
