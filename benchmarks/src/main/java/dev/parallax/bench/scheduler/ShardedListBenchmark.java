package dev.parallax.bench.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.spi.Executor;
import dev.parallax.examples.linkedlist.ListClassifier;
import dev.parallax.examples.linkedlist.ListCommands;
import dev.parallax.examples.linkedlist.ShardedLinkedList;
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
 * Seed 001's experiment (§5.2–5.4, §7) on one replica's executor: the sharded linked list with two
 * shards, lists of 1K/10K/100K elements (light/moderate/heavy commands), workloads
 * {@code α-β-γ} (α% of local operations are writes, β% of all operations are global, γ% of global
 * operations are writes), balanced or skewed (80% of local operations on shard 1, as the paper's
 * two-shard runs), over 1–4 worker threads with the map {@code ShardedClasses(2).classMap(threads)}
 * (4 threads: Table 4.1's shape).
 *
 * <p>One invocation hands a batch of {@value #BATCH} pre-built commands to the executor and waits
 * for quiescence; the score is commands per second. Writes use values already in the list, so the
 * lists keep their length (and the commands their cost) for the whole run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 2, time = 1)
@Fork(1)
public class ShardedListBenchmark {
    static final int BATCH = 2048;
    private static final int SHARDS = 2;

    @Param({"SEQUENTIAL", "LATE", "BARRIER", "BUSY_WAIT", "WS_QUEUE", "WS_SEMI_BLOCKED", "WS_NON_BLOCKED", "WS_OPT"})
    public String executor;

    @Param({"1", "2", "3", "4"})
    public int threads;

    @Param({"1000", "10000", "100000"})
    public int listSize;

    @Param({"0-0-0", "25-5-25", "75-10-75"})
    public String workload;

    @Param({"balanced", "skewed"})
    public String balance;

    private Command[] commands;
    private Executor ex;

    @Setup(Level.Trial)
    public void setUp() {
        String[] abg = workload.split("-");
        double localWrites = Integer.parseInt(abg[0]) / 100.0;
        double globals = Integer.parseInt(abg[1]) / 100.0;
        double globalWrites = Integer.parseInt(abg[2]) / 100.0;
        boolean skewed = balance.equals("skewed");
        SplittableRandom r = new SplittableRandom(1);
        commands = new Command[BATCH];
        for (int i = 0; i < BATCH; i++) {
            byte op;
            if (r.nextDouble() < globals) {
                op = r.nextDouble() < globalWrites ? ListCommands.GLOBAL_WRITE : ListCommands.GLOBAL_READ;
            } else {
                op = r.nextDouble() < localWrites ? ListCommands.LOCAL_WRITE : ListCommands.LOCAL_READ;
            }
            int shard = skewed ? (r.nextDouble() < 0.8 ? 0 : 1) : r.nextInt(SHARDS);
            commands[i] = ListCommands.command(1, i + 1, op, shard, r.nextInt(listSize));
        }
        ListClassifier classifier = new ListClassifier(SHARDS);
        ex = ExecutorKind.valueOf(executor).create(classifier.classMap(threads), classifier);
        ex.start(new ShardedLinkedList(SHARDS, listSize), (c, res) -> { });
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
