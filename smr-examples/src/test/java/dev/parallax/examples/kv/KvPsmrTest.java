package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.ResultSink;
import dev.parallax.scheduler.Execution;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * The partitioned store under P-SMR ({@link Execution#psmr}, seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 6, Alg. 1) with the C-G {@link KvRouter}(k) and k partitions: commands of different
 * workers run concurrently on the one state machine, and every reply, the digest and the snapshot
 * equal sequential execution on a one-partition store.
 */
class KvPsmrTest {
    private static final int WORKERS = 4;
    private static final int COMMANDS = 3_000;

    @Test
    void psmrOverThePartitionedStoreEqualsSequentialExecution() throws Exception {
        KvRouter router = new KvRouter(WORKERS);
        for (long seed = 1; seed <= 6; seed++) {
            List<byte[]> payloads = new KvCommandMix(seed, 300).next(COMMANDS);
            Command[] commands = new Command[COMMANDS];
            int multiGroup = 0;
            for (int i = 0; i < COMMANDS; i++) {
                byte[] payload = payloads.get(i);
                GroupSet groups = router.route(java.nio.ByteBuffer.wrap(payload));
                multiGroup += groups.size() > 1 ? 1 : 0;
                commands[i] = Command.of(7, groups, i, payload);
            }
            assertThat(multiGroup).as("the mix has multi-group commands").isGreaterThan(COMMANDS / 10);

            KvStateMachine reference = new KvStateMachine();
            CommandResult[] expected = run(Execution.sequential(), reference, commands);
            KvStateMachine partitioned = new KvStateMachine(WORKERS);
            CommandResult[] actual = run(Execution.psmr(WORKERS, 64), partitioned, commands);

            assertThat(actual).as("seed %d", seed).containsExactly(expected);
            assertThat(partitioned.digest()).isEqualTo(reference.digest());
            assertThat(KvTesting.snapshot(partitioned)).isEqualTo(KvTesting.snapshot(reference));
        }
    }

    /** Runs every command through {@code executor} over {@code sm}; the results by command index. */
    private static CommandResult[] run(Executor executor, KvStateMachine sm, Command[] commands)
            throws InterruptedException {
        AtomicReferenceArray<CommandResult> results = new AtomicReferenceArray<>(commands.length);
        AtomicReference<Throwable> fatal = new AtomicReference<>();
        try (executor) {
            executor.start(sm, new ResultSink() {
                @Override
                public void onResult(Command command, CommandResult result) {
                    results.set((int) command.id().sequence(), result);
                }

                @Override
                public void onFatal(Command command, Throwable error) {
                    fatal.set(error);
                }
            });
            for (Command command : commands) {
                executor.execute(command);
            }
            executor.awaitQuiescence();
        }
        assertThat(fatal.get()).isNull();
        CommandResult[] out = new CommandResult[commands.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = results.get(i);
            assertThat(out[i]).as("result of command %d", i).isNotNull();
        }
        return out;
    }
}
