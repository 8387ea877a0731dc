package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.check.Operation;
import dev.parallax.core.check.Verdict;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvReply;
import dev.parallax.examples.kv.KvStateMachine;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The history clients with global commands against the KV store in process: the recorded outputs
 * of GET, SET, DBSIZE and FLUSHALL fit the checker's model, so the store's history is
 * linearizable, and a store that miscounts or does not flush is caught.
 */
class HistoryClientTest {

    /** The store as an invoker: each command executes atomically, its reply passed through {@code fault}. */
    private static CommandInvoker store(KvStateMachine sm, AtomicInteger answered, Fault fault) {
        return command -> {
            KvCommand decoded = KvCommand.decode(command.duplicate());
            ByteBuffer reply;
            synchronized (sm) {
                reply = fault.apply(decoded.op(), sm, command);
            }
            answered.incrementAndGet();
            return CompletableFuture.completedFuture(reply);
        };
    }

    /** How a faulty store executes a command. */
    @FunctionalInterface
    private interface Fault {
        ByteBuffer apply(KvOp op, KvStateMachine sm, ByteBuffer command);
    }

    private static final Fault NONE = (op, sm, command) -> sm.execute(command);

    /** Runs {@code clients} history clients with global commands on 3 keys until {@code ops} answers. */
    private static HistoryRecorder<dev.parallax.core.check.KvOp, String> run(int clients, int ops, Fault fault)
            throws InterruptedException {
        HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
        AtomicInteger answered = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        CommandInvoker invoker = store(new KvStateMachine(), answered, fault);
        UnaryOperator<CommandInvoker> stopAfter = inner -> command -> {
            if (answered.get() >= ops) {
                running.set(false);
            }
            return inner.invoke(command);
        };
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int id = c;
            Thread t = new Thread(() -> HistoryClient.run(id, stopAfter.apply(invoker), history, running,
                    HistoryClient.Workload.withGlobalCommands(3), () -> { }), "history-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(60_000);
        }
        assertThat(threads).noneMatch(Thread::isAlive);
        return history;
    }

    @Test
    void concurrentClientsWithGlobalCommandsOnAnAtomicStoreAreLinearizable() throws InterruptedException {
        HistoryRecorder<dev.parallax.core.check.KvOp, String> history = run(4, 4_000, NONE);

        CheckResult result = LinearizabilityChecker.check(new KvModel(), history.history(), CheckBudget.ofSteps(5_000_000));

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.partitions()).isEqualTo(1);
        List<Operation<dev.parallax.core.check.KvOp, String>> ops = history.history().operations();
        assertThat(ops).filteredOn(op -> op.input() instanceof dev.parallax.core.check.KvOp.DbSize)
                .isNotEmpty().allSatisfy(op -> assertThat(op.output()).matches("[0-3]"));
        assertThat(ops).filteredOn(op -> op.input() instanceof dev.parallax.core.check.KvOp.FlushAll)
                .isNotEmpty().allSatisfy(op -> assertThat(op.output()).isEqualTo("OK"));
        assertThat(ops).filteredOn(op -> op.input() instanceof dev.parallax.core.check.KvOp.Get && op.output() != null)
                .isNotEmpty();
    }

    @Test
    void aStoreThatMiscountsIsCaught() throws InterruptedException {
        Fault offByOne = (op, sm, command) -> {
            ByteBuffer reply = sm.execute(command);
            return op == KvOp.DBSIZE ? new KvReply.Int(((KvReply.Int) KvReply.decode(reply)).value() + 1).encode() : reply;
        };

        CheckResult result = LinearizabilityChecker.check(new KvModel(), run(1, 500, offByOne).history());

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).containsPattern("STUCK .* dbsize\\(\\) -> [1-4]");
    }

    @Test
    void aStoreThatDoesNotFlushIsCaught() throws InterruptedException {
        Fault ignoresFlush = (op, sm, command) -> op == KvOp.FLUSHALL ? KvReply.OK.encode() : sm.execute(command);

        CheckResult result = LinearizabilityChecker.check(new KvModel(), run(1, 500, ignoresFlush).history());

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).containsPattern("STUCK .* (get\\(h[0-2]\\)|dbsize\\(\\)) -> ");
    }

    @Test
    void aDbSizeAnsweredWithAnotherKindOfReplyIsRecordedAsNoCount() {
        assertThat(HistoryClient.output(dev.parallax.core.check.KvOp.dbSize(), new KvReply.Int(7))).isEqualTo("7");
        assertThat(HistoryClient.output(dev.parallax.core.check.KvOp.dbSize(), KvReply.OK)).isEqualTo("unexpected reply " + KvReply.OK);
        assertThat(HistoryClient.output(dev.parallax.core.check.KvOp.flushAll(), KvReply.OK)).isEqualTo("OK");
        assertThat(HistoryClient.output(dev.parallax.core.check.KvOp.get("k"), KvReply.NIL)).isNull();
    }
}
