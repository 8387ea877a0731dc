package dev.parallax.bench.load;

import dev.parallax.core.client.CommandInvoker;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A closed-loop load on the key-value store: every connection keeps {@code outstanding} commands in
 * flight and issues the next one when one completes. Commands come pre-encoded from a
 * {@link CommandPool} per connection, cycled, so issuing one costs a buffer repositioning, the
 * invoker's own work and the future's callback, not an encoding. Latencies of the measured period go
 * to an HdrHistogram; a per-second timeline records completions and p99.
 *
 * <p>Each in-flight slot is a {@link Chain} that issues its next command from the previous one's
 * completion; a chain never recurses (an invoker completing synchronously is looped, not
 * re-entered), so invokers that answer on the calling thread are fine.
 *
 * <p>{@link #run} may be called once; it blocks the calling thread for warm-up plus duration plus
 * the drain of what is in flight. Completions run on the invokers' threads.
 */
public final class LoadGenerator {
    private static final long MAX_US = TimeUnit.SECONDS.toMicros(60);
    private static final long DRAIN_SECONDS = 30;

    private final List<? extends CommandInvoker> connections;
    private final LoadSpec spec;
    private final List<CommandPool> pools;
    private final Recorder latency = new Recorder(MAX_US, 3);
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final CountDownLatch drained;
    private volatile boolean running;
    private volatile boolean measuring;
    private boolean started;

    /**
     * @param connections one invoker per connection of {@code spec}
     * @throws IllegalArgumentException if the counts differ
     */
    public LoadGenerator(List<? extends CommandInvoker> connections, LoadSpec spec) {
        this(connections, spec, pools(spec));
    }

    /**
     * As {@link #LoadGenerator(List, LoadSpec)} with the commands given (one pool per connection),
     * so a sweep encodes them once for all its points.
     */
    public LoadGenerator(List<? extends CommandInvoker> connections, LoadSpec spec, List<CommandPool> pools) {
        if (connections.size() != spec.connections() || pools.size() != spec.connections()) {
            throw new IllegalArgumentException(connections.size() + " connections and " + pools.size()
                    + " pools for a spec of " + spec.connections());
        }
        this.connections = List.copyOf(connections);
        this.spec = spec;
        this.pools = List.copyOf(pools);
        this.drained = new CountDownLatch(spec.connections() * spec.outstanding());
    }

    /** The command pools of {@code spec}: one per connection, {@link CommandPool#DEFAULT_SIZE} commands each. */
    public static List<CommandPool> pools(LoadSpec spec) {
        List<CommandPool> pools = new ArrayList<>();
        for (int c = 0; c < spec.connections(); c++) {
            pools.add(CommandPool.generate(c, spec, CommandPool.DEFAULT_SIZE, c * 7919L + 1));
        }
        return pools;
    }

    /**
     * Runs the load: warm-up, then the measured period, reporting each measured second to
     * {@code progress}; then waits (up to 30 s) for what is in flight.
     *
     * @return the result without CPU figures (the caller measures processes)
     * @throws InterruptedException  if interrupted while waiting
     * @throws IllegalStateException if called twice
     */
    public BenchResult run(String system, Consumer<BenchResult.Second> progress) throws InterruptedException {
        return run(system, progress, () -> { }, () -> { });
    }

    /** As {@link #run(String, Consumer)}, calling {@code atStart} and {@code atEnd} around the measured period. */
    public BenchResult run(String system, Consumer<BenchResult.Second> progress, Runnable atStart, Runnable atEnd)
            throws InterruptedException {
        if (started) {
            throw new IllegalStateException("a load generator runs once");
        }
        started = true;
        running = true;
        List<Chain> chains = new ArrayList<>(connections.size() * spec.outstanding());
        for (int c = 0; c < connections.size(); c++) {
            CommandPool pool = pools.get(c);
            for (int w = 0; w < spec.outstanding(); w++) {
                chains.add(new Chain(connections.get(c), pool, (int) ((w * 131L) % pool.size())));
            }
        }
        // Started from their own thread: with an invoker that answers on the calling thread a chain
        // keeps its starter busy until the run ends, and that must not be the thread timing the run.
        Thread starter = new Thread(() -> chains.forEach(Chain::issue), "load-start");
        starter.setDaemon(true);
        starter.start();
        Thread.sleep(spec.warmup().toMillis());
        latency.getIntervalHistogram();
        long base = completed.sum();
        long baseFailed = failed.sum();
        atStart.run();
        measuring = true;
        long start = System.nanoTime();
        Histogram total = new Histogram(MAX_US, 3);
        List<BenchResult.Second> timeline = new ArrayList<>();
        long last = base;
        long seconds = spec.duration().toSeconds();
        for (int s = 1; s <= seconds; s++) {
            long wait = start + TimeUnit.SECONDS.toNanos(s) - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            Histogram h = latency.getIntervalHistogram();
            total.add(h);
            long done = completed.sum();
            BenchResult.Second sec = new BenchResult.Second(s, done - last, h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99));
            timeline.add(sec);
            progress.accept(sec);
            last = done;
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        measuring = false;
        atEnd.run();
        long measured = completed.sum() - base;
        long measuredFailed = failed.sum() - baseFailed;
        running = false;
        if (drained.await(DRAIN_SECONDS, TimeUnit.SECONDS)) {
            starter.join(TimeUnit.SECONDS.toMillis(DRAIN_SECONDS));
        }
        Map<String, Long> pct = new LinkedHashMap<>();
        pct.put("p50", total.getValueAtPercentile(50));
        pct.put("p90", total.getValueAtPercentile(90));
        pct.put("p99", total.getValueAtPercentile(99));
        pct.put("p99.9", total.getValueAtPercentile(99.9));
        pct.put("max", total.getMaxValue());
        return new BenchResult(system, spec, measured, measuredFailed, elapsed, pct, timeline, Map.of());
    }

    /**
     * One in-flight slot of a connection: at most one command outstanding, the next issued when it
     * completes. {@code work} counts issue requests so that exactly one thread issues at a time and a
     * synchronous completion loops instead of recursing (the usual drain-loop idiom).
     */
    private final class Chain implements BiConsumer<ByteBuffer, Throwable> {
        private final CommandInvoker invoker;
        private final CommandPool pool;
        private final ByteBuffer view;
        private final int mask;
        private final AtomicInteger work = new AtomicInteger();
        private int next;
        private long sentAt;
        private boolean done;

        Chain(CommandInvoker invoker, CommandPool pool, int first) {
            this.invoker = invoker;
            this.pool = pool;
            this.view = pool.view();
            this.mask = Integer.highestOneBit(pool.size()) - 1;
            this.next = first & mask;
        }

        void issue() {
            if (work.getAndIncrement() != 0) {
                return;
            }
            do {
                sendOne();
            } while (work.decrementAndGet() != 0);
        }

        private void sendOne() {
            if (!running) {
                if (!done) {
                    done = true;
                    drained.countDown();
                }
                return;
            }
            ByteBuffer cmd = pool.select(next, view);
            boolean read = pool.isRead(next);
            next = (next + 1) & mask;
            sentAt = System.nanoTime();
            (read ? invoker.query(cmd) : invoker.invoke(cmd)).whenComplete(this);
        }

        @Override
        public void accept(ByteBuffer reply, Throwable error) {
            if (error == null) {
                completed.increment();
                if (measuring) {
                    latency.recordValue(Math.min(MAX_US, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sentAt)));
                }
            } else {
                failed.increment();
            }
            issue();
        }
    }
}
