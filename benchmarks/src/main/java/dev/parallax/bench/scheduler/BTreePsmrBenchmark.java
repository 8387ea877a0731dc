package dev.parallax.bench.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.Executor;
import dev.parallax.examples.btree.BTreeClassifier;
import dev.parallax.examples.btree.BTreeCommands;
import dev.parallax.examples.btree.BTreeRouter;
import dev.parallax.examples.btree.BTreeStore;
import dev.parallax.scheduler.Execution;
import dev.parallax.scheduler.SyncMode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * P-SMR against sequential execution and early scheduling on one replica's executor (seed 003
 * (Ring Paxos / Multi-Ring / P-SMR) ch. 6 §6.5's B+-tree experiment, scaled to this machine): a
 * B+-tree of {@value #KEYS} keys; single-group commands are GETs and UPDATEs of a
 * random key (half each), multi-group commands INSERT a fresh key or DELETE it again (a structural
 * change: every group, seed 003 §6.5.2's C-Dep), at {@code multi}% of the commands; 1 or 2 worker
 * threads. Commands carry the γ {@link BTreeRouter} gives them over {@code threads} groups (key
 * ranges), as a client's C-G function would.
 *
 * <p>The executors: {@code SEQUENTIAL}; early scheduling with the read/write class map
 * ({@link BTreeClassifier}: GET/RANGE concurrent, writes sequential) in {@code BUSY_WAIT} and
 * {@code WS_OPT}; {@code PSMR} ({@link Execution#psmr}: UPDATEs of different ranges run in
 * parallel, INSERT/DELETE synchronise every worker). The JMH thread hands each command to the
 * executor in delivery order (for P-SMR that is {@code PsmrExecutor}, which puts it in the queues
 * of the workers in γ: the stand-in for per-worker subscriptions) and waits for quiescence after a
 * batch of {@value #BATCH}; the score is commands per second. The batch leaves the tree as it found
 * it (every INSERT is DELETEd later in the batch), so every invocation does the same work.
 *
 * <p>The paper's 3.15× with 8 threads needs 8 cores; on 2 cores the JMH thread and up to two workers
 * share them. Run on a bigger machine with {@code -p threads=1,2,4,8}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class BTreePsmrBenchmark {
    static final int BATCH = 4096;
    static final int KEYS = 100_000;
    private static final byte[] VALUE = new byte[16];

    @Param({"SEQUENTIAL", "BUSY_WAIT", "WS_OPT", "PSMR"})
    public String executor;

    @Param({"1", "2"})
    public int threads;

    /** Percent of the commands that go to every group (INSERT/DELETE). */
    @Param({"0", "1", "10", "50"})
    public int multi;

    private Command[] commands;
    private Executor ex;

    @Setup(Level.Trial)
    public void setUp() {
        BTreeStore store = new BTreeStore(64);
        BTreeRouter router = new BTreeRouter(threads);
        // Keys spread over the whole long range, so that every range (group) holds some.
        long stride = Long.MAX_VALUE / KEYS * 2;
        long seq = 1;
        for (int i = 0; i < KEYS; i++) {
            store.execute(BTreeCommands.insert(new CommandId(0, seq++), Long.MIN_VALUE + i * stride, VALUE).payload());
        }
        SplittableRandom r = new SplittableRandom(1);
        commands = new Command[BATCH];
        long pendingDelete = Long.MIN_VALUE;
        boolean deletePending = false;
        for (int i = 0; i < BATCH; i++) {
            long key = Long.MIN_VALUE + r.nextInt(KEYS) * stride;
            Command c;
            if (deletePending && (i == BATCH - 1 || r.nextInt(100) < multi)) {
                c = BTreeCommands.delete(new CommandId(1, seq++), pendingDelete);
                deletePending = false;
            } else if (!deletePending && i < BATCH - 1 && r.nextInt(100) < multi) {
                pendingDelete = key + 1; // between two loaded keys: absent
                c = BTreeCommands.insert(new CommandId(1, seq++), pendingDelete, VALUE);
                deletePending = true;
            } else if (r.nextBoolean()) {
                c = BTreeCommands.get(new CommandId(1, seq++), key);
            } else {
                c = BTreeCommands.update(new CommandId(1, seq++), key, VALUE);
            }
            GroupSet groups = router.route(c.payload());
            commands[i] = new Command(new CommandId(1, groups, c.id().sequence()), c.payload());
        }
        ex = switch (executor) {
            case "SEQUENTIAL" -> Execution.sequential();
            case "PSMR" -> Execution.psmr(threads);
            default -> Execution.earlyScheduling(BTreeClassifier.classMap(threads), new BTreeClassifier(),
                    SyncMode.valueOf(executor));
        };
        ex.start(store, (c, res) -> { });
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void batch() throws InterruptedException {
        for (Command c : commands) {
            ex.execute(c);
        }
        ex.awaitQuiescence();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ex.close();
    }
}
