package dev.parallax.bench.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.StateMachine;
import dev.parallax.core.spi.Executor;
import dev.parallax.scheduler.CommandClassifier;
import dev.parallax.scheduler.classmap.ReadWriteClasses;
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

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Per-request cost of scheduling alone (seed 001 §1: "the cost of tracking dependencies ... may
 * outweigh its gains ... particularly if the cost of request execution is low"): empty commands on
 * the single-shard read/write map, {@code writes}% of them writes, each executor's time per request
 * from hand-over to quiescence.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 2, time = 1)
@Fork(1)
public class SchedulingOverheadBenchmark {
    static final int BATCH = 4096;

    @Param({"SEQUENTIAL", "LATE", "BARRIER", "BUSY_WAIT", "WS_QUEUE", "WS_SEMI_BLOCKED", "WS_NON_BLOCKED", "WS_OPT"})
    public String executor;

    @Param({"1", "2", "3"})
    public int threads;

    @Param({"0", "10"})
    public int writes;

    private Command[] commands;
    private Executor ex;

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom r = new SplittableRandom(1);
        commands = new Command[BATCH];
        for (int i = 0; i < BATCH; i++) {
            byte kind = (byte) (r.nextInt(100) < writes ? ReadWriteClasses.WRITE : ReadWriteClasses.READ);
            commands[i] = Command.of(1, i + 1, new byte[] {kind});
        }
        CommandClassifier classifier = c -> c.payload().get(0);
        ex = ExecutorKind.valueOf(executor).create(ReadWriteClasses.classMap(threads), classifier);
        ex.start(new Empty(), (c, res) -> { });
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

    /** A state machine whose commands do nothing. */
    static final class Empty implements StateMachine {
        private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            return NOTHING.duplicate();
        }

        @Override
        public void snapshot(WritableByteChannel out) {
        }

        @Override
        public void restore(ReadableByteChannel in) {
        }
    }
}
