package dev.parallax.examples.btree;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.Executor;
import dev.parallax.scheduler.ConflictRelation;
import dev.parallax.scheduler.Execution;
import dev.parallax.scheduler.SyncMode;
import org.junit.jupiter.api.Test;

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

class BTreeStoreTest {

    private static List<Command> workload(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Command> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            CommandId id = new CommandId(1, i);
            long key = r.nextLong(300);
            byte[] v = ("v" + i).getBytes();
            out.add(switch (r.nextInt(10)) {
                case 0, 1 -> BTreeCommands.insert(id, key, v);
                case 2 -> BTreeCommands.update(id, key, v);
                case 3 -> BTreeCommands.delete(id, key);
                case 4, 5 -> BTreeCommands.range(id, key, key + r.nextLong(60), r.nextInt(20));
                case 6 -> new Command(id, java.nio.ByteBuffer.wrap(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 0}));
                default -> BTreeCommands.get(id, key);
            });
        }
        return out;
    }

    private static Map<CommandId, CommandResult> run(Executor ex, BTreeStore store, List<Command> commands)
            throws Exception {
        Map<CommandId, CommandResult> results = new ConcurrentHashMap<>();
        try (ex) {
            ex.start(store, (c, r) -> results.put(c.id(), r));
            for (Command c : commands) {
                ex.execute(c);
            }
            ex.awaitQuiescence();
        }
        return results;
    }

    @Test
    void parallelExecutorsReturnWhatSequentialExecutionReturns() throws Exception {
        BTreeClassifier classifier = new BTreeClassifier();
        for (long seed = 0; seed < 5; seed++) {
            List<Command> commands = workload(seed, 3_000);
            BTreeStore reference = new BTreeStore(5);
            Map<CommandId, CommandResult> expected = run(Execution.sequential(), reference, commands);
            List<Executor> executors = List.of(
                    Execution.earlyScheduling(BTreeClassifier.classMap(2), classifier, SyncMode.BUSY_WAIT),
                    Execution.earlyScheduling(BTreeClassifier.classMap(3), classifier, SyncMode.WS_OPT),
                    Execution.earlyScheduling(BTreeClassifier.classMap(2), classifier, SyncMode.BARRIER),
                    Execution.lateScheduling(ConflictRelation.byClass(BTreeClassifier.classMap(2), classifier), 2));
            for (Executor ex : executors) {
                BTreeStore store = new BTreeStore(5);
                assertThat(run(ex, store, commands)).isEqualTo(expected);
                store.tree().checkInvariants();
                assertThat(snapshot(store)).isEqualTo(snapshot(reference));
            }
        }
    }

    /**
     * An empty command cannot be classified: every parallel executor answers it with the same
     * error and goes on; an unknown operation is classified as a write and rejected by the store,
     * as sequential execution rejects it.
     */
    @Test
    void anEmptyCommandGetsAnErrorResultAndTheRestRuns() throws Exception {
        BTreeClassifier classifier = new BTreeClassifier();
        Command empty = new Command(new CommandId(1, 1), java.nio.ByteBuffer.allocate(0));
        Command unknown = new Command(new CommandId(1, 2), java.nio.ByteBuffer.wrap(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 0}));
        Command insert = BTreeCommands.insert(new CommandId(1, 3), 7, "x".getBytes());
        CommandResult sequentialUnknown = run(Execution.sequential(), new BTreeStore(5), List.of(unknown)).get(unknown.id());
        assertThat(sequentialUnknown.isError()).isTrue();
        List<Executor> executors = List.of(
                Execution.earlyScheduling(BTreeClassifier.classMap(2), classifier, SyncMode.BUSY_WAIT),
                Execution.earlyScheduling(BTreeClassifier.classMap(2), classifier, SyncMode.WS_OPT),
                Execution.lateScheduling(ConflictRelation.byClass(BTreeClassifier.classMap(2), classifier), 2));
        for (Executor ex : executors) {
            BTreeStore store = new BTreeStore(5);
            Map<CommandId, CommandResult> results = run(ex, store, List.of(empty, unknown, insert));
            assertThat(results.get(empty.id()))
                    .isEqualTo(CommandResult.error("unclassifiable command: IllegalArgumentException: empty command"));
            assertThat(results.get(unknown.id())).isEqualTo(sequentialUnknown);
            assertThat(results.get(insert.id()).isError()).isFalse();
            assertThat(store.tree().size()).isEqualTo(1);
        }
    }

    @Test
    void repliesFollowTheCommandFormat() {
        BTreeStore s = new BTreeStore(4);
        CommandId id = new CommandId(1, 1);
        assertThat(BTreeCommands.isTrue(s.execute(BTreeCommands.insert(id, 5, new byte[] {7}).payload()))).isTrue();
        assertThat(BTreeCommands.isTrue(s.execute(BTreeCommands.insert(id, 5, new byte[] {8}).payload()))).isFalse();
        assertThat(BTreeCommands.value(s.execute(BTreeCommands.get(id, 5).payload()))).containsExactly(7);
        assertThat(BTreeCommands.isTrue(s.execute(BTreeCommands.update(id, 5, new byte[] {9}).payload()))).isTrue();
        assertThat(BTreeCommands.isTrue(s.execute(BTreeCommands.update(id, 6, new byte[] {9}).payload()))).isFalse();
        s.execute(BTreeCommands.insert(id, 6, new byte[] {1, 2}).payload());
        List<Map.Entry<Long, byte[]>> range = BTreeCommands.entries(s.execute(BTreeCommands.range(id, 0, 100, 10).payload()));
        assertThat(range).extracting(Map.Entry::getKey).containsExactly(5L, 6L);
        assertThat(range.get(1).getValue()).containsExactly(1, 2);
        assertThat(BTreeCommands.isTrue(s.execute(BTreeCommands.delete(id, 5).payload()))).isTrue();
        assertThat(BTreeCommands.value(s.execute(BTreeCommands.get(id, 5).payload()))).isNull();
        assertThatThrownBy(() -> s.execute(java.nio.ByteBuffer.wrap(new byte[] {1}))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void snapshotAndRestoreRoundTrip() throws IOException {
        BTreeStore s = new BTreeStore(6);
        for (int i = 0; i < 2_000; i++) {
            s.tree().insert(i * 7L, ("x" + i).getBytes());
        }
        byte[] snap = snapshot(s);
        BTreeStore copy = new BTreeStore(4);
        copy.tree().insert(-1, new byte[0]);
        copy.restore(Channels.newChannel(new ByteArrayInputStream(snap)));
        copy.tree().checkInvariants();
        assertThat(copy.tree().size()).isEqualTo(2_000);
        assertThat(copy.tree().get(7 * 1999L)).isEqualTo("x1999".getBytes());
        assertThat(copy.tree().containsKey(-1)).isFalse();
        assertThat(snapshot(copy)).isEqualTo(snap);
    }

    private static byte[] snapshot(BTreeStore s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.snapshot(Channels.newChannel(out));
        return out.toByteArray();
    }
}
