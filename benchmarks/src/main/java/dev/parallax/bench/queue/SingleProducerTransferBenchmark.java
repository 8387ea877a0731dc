package dev.parallax.bench.queue;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

/**
 * Queue transfer throughput with one producer thread and one consumer thread: the shape of the Batcher → Protocol edge and of a
 * per-peer sender fed by one thread.
 *
 * <p>Producers spin while the queue is full and the consumer spins while it is empty; both give up when
 * JMH ends the iteration. Read the {@code transfer:items} result (items received per second by the
 * consumer); the primary {@code transfer} score adds producer and consumer invocations and means nothing.
 *
 * <p>Thread-safety: a JMH group state; JMH runs {@link #produce} on one thread and {@link #consume} on one.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@State(Scope.Group)
public class SingleProducerTransferBenchmark {

    /** The queue under test. */
    @Param({"JCTOOLS_SPSC", "JCTOOLS_MPSC", "ARRAY_BLOCKING", "LINKED_BLOCKING", "RING_SINGLE", "RING_MULTI"})
    public QueueKind kind;

    /** The queue bound, a power of two. */
    @Param({"1024", "16384"})
    public int capacity;

    private final Object item = new Object();
    private final ItemSink sink = new ItemSink();
    private HandoffQueue queue;

    /**
     * Builds the queue once per trial; items left in it at the end of an iteration carry over.
     *
     * @throws IllegalArgumentException if {@link #capacity} is not a power of two
     */
    @Setup(Level.Trial)
    public void createQueue() {
        queue = kind.create(capacity, TransferLoops.DRAIN_LIMIT);
    }

    /**
     * Producer: enqueues one item, spinning while the queue is full.
     *
     * @param control JMH's iteration control, polled while spinning
     * @return whether the item was enqueued before the iteration ended
     */
    @Benchmark
    @Group("transfer")
    @GroupThreads(1)
    public boolean produce(Control control) {
        return TransferLoops.produce(queue, item, control);
    }

    /**
     * Consumer: drains one non-empty batch, spinning while the queue is empty, and counts the items.
     *
     * @param control JMH's iteration control, polled while spinning
     * @param consumed the per-iteration item counter JMH reports
     * @return the last item taken, so that the consumer's work is not dead code
     */
    @Benchmark
    @Group("transfer")
    @GroupThreads(1)
    public Object consume(Control control, ConsumedItems consumed) {
        consumed.items += TransferLoops.consume(queue, sink, control);
        return sink.lastItem();
    }
}
