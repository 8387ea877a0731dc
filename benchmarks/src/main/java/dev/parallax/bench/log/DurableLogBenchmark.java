package dev.parallax.bench.log;

import dev.parallax.core.log.ChronicleDurableLog;
import dev.parallax.core.log.ChronicleLogOptions;
import dev.parallax.core.spi.SyncPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The acceptor log's write path: append {@code batch} records of 100 bytes to a
 * {@link ChronicleDurableLog}, then {@code sync()}, for each {@link SyncPolicy}. The primary score is
 * batches per second; the {@code :records} secondary score is records per second. The log lives in
 * a temporary directory on the default file system (set {@code -Djava.io.tmpdir} to measure
 * another disk) and is trimmed between iterations so that disk use stays bounded.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DurableLogBenchmark}. The figures of
 * {@code EVERY_BATCH} are those of the device's {@code fdatasync}; {@code PERIODIC} forces at most
 * once per 10 ms; {@code NONE} never forces.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
        "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "-Dchronicle.analytics.disable=true",
        "-Dchronicle.announcer.disable=true",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class DurableLogBenchmark {

    private static final int RECORD_BYTES = 100;

    /** The log's sync policy. */
    @Param({"EVERY_BATCH", "PERIODIC", "NONE"})
    public SyncPolicy policy;

    /** Records appended per sync. */
    @Param({"1", "10", "100"})
    public int batch;

    private Path dir;
    private ChronicleDurableLog log;
    private final ByteBuffer record = ByteBuffer.allocateDirect(RECORD_BYTES);

    /** Records appended in the current iteration, reported as {@code appendBatchAndSync:records}. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Records {
        /** Public so that JMH can read it. */
        public long records;

        /** Starts each iteration from zero. */
        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
        }
    }

    /** Opens a log in a fresh temporary directory. */
    @Setup(Level.Trial)
    public void open() throws IOException {
        for (int i = 0; i < RECORD_BYTES; i++) {
            record.put(i, (byte) i);
        }
        dir = Files.createTempDirectory("parallax-log-bench");
        log = ChronicleDurableLog.open(dir, ChronicleLogOptions.defaults().withSyncPolicy(policy));
    }

    /** Drops what the iteration wrote (the freed segment files are deleted by the sync). */
    @TearDown(Level.Iteration)
    public void trim() {
        log.truncateBefore(log.nextIndex());
        log.sync();
    }

    /** Closes the log and deletes its directory. */
    @TearDown(Level.Trial)
    public void close() throws IOException {
        log.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    /** Appends one batch and syncs it; returns the durable index so that nothing is optimised away. */
    @Benchmark
    public long appendBatchAndSync(Records counter) {
        for (int i = 0; i < batch; i++) {
            log.append(record);
        }
        log.sync();
        counter.records += batch;
        return log.durableIndex();
    }
}
