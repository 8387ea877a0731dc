package dev.parallax.bench.load;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A closed-loop load on the key-value store: every connection keeps {@code outstanding} commands in
 * flight and issues the next one when one completes (SET of a value sized so the encoded command is
 * {@code commandBytes}, or GET, by the read share). Latencies of the measured period go to an
 * HdrHistogram; a per-second timeline records completions and p99.
 *
 * <p>{@link #run} blocks the calling thread for warm-up plus duration; completions run on the
 * invokers' threads.
 */
public final class LoadGenerator {
    private static final long MAX_US = TimeUnit.SECONDS.toMicros(60);

    private final List<? extends CommandInvoker> connections;
    private final LoadSpec spec;
    private final Recorder latency = new Recorder(MAX_US, 3);
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile boolean measuring;

    public LoadGenerator(List<? extends CommandInvoker> connections, LoadSpec spec) {
        if (connections.size() != spec.connections()) {
            throw new IllegalArgumentException(connections.size() + " connections for a spec of " + spec.connections());
        }
        this.connections = connections;
        this.spec = spec;
    }

    /**
     * Runs the load: warm-up, then the measured period, reporting each measured second to
     * {@code progress}; then waits (up to 30 s) for what is in flight.
     *
     * @return the result without CPU figures (the caller measures processes)
     */
    public BenchResult run(String system, Consumer<BenchResult.Second> progress) throws InterruptedException {
        return run(system, progress, () -> { }, () -> { });
    }

    /** As {@link #run(String, Consumer)}, calling {@code atStart} and {@code atEnd} around the measured period. */
    public BenchResult run(String system, Consumer<BenchResult.Second> progress, Runnable atStart, Runnable atEnd)
            throws InterruptedException {
        running.set(true);
        for (int c = 0; c < connections.size(); c++) {
            SplittableRandom rnd = new SplittableRandom(c * 7919L + 1);
            for (int w = 0; w < spec.outstanding(); w++) {
                issue(c, rnd.split());
            }
        }
        Thread.sleep(spec.warmup().toMillis());
        latency.getIntervalHistogram();
        long base = completed.get();
        long baseFailed = failed.get();
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
            long done = completed.get();
            BenchResult.Second sec = new BenchResult.Second(s, done - last, h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99));
            timeline.add(sec);
            progress.accept(sec);
            last = done;
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        measuring = false;
        atEnd.run();
        long measured = completed.get() - base;
        long measuredFailed = failed.get() - baseFailed;
        running.set(false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Map<String, Long> pct = new LinkedHashMap<>();
        pct.put("p50", total.getValueAtPercentile(50));
        pct.put("p90", total.getValueAtPercentile(90));
        pct.put("p99", total.getValueAtPercentile(99));
        pct.put("p99.9", total.getValueAtPercentile(99.9));
        pct.put("max", total.getMaxValue());
        return new BenchResult(system, spec, measured, measuredFailed, elapsed, pct, timeline, Map.of());
    }

    private void issue(int c, SplittableRandom rnd) {
        if (!running.get()) {
            return;
        }
        ByteBuffer cmd = command(c, rnd);
        long t0 = System.nanoTime();
        inFlight.incrementAndGet();
        connections.get(c).invoke(cmd).whenComplete((reply, error) -> {
            inFlight.decrementAndGet();
            if (error == null) {
                completed.incrementAndGet();
                if (measuring) {
                    latency.recordValue(Math.min(MAX_US, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0)));
                }
            } else {
                failed.incrementAndGet();
            }
            issue(c, rnd);
        });
    }

    private ByteBuffer command(int c, SplittableRandom rnd) {
        byte[] key = (c + ":" + rnd.nextInt(spec.keys())).getBytes(StandardCharsets.UTF_8);
        if (rnd.nextInt(100) < spec.readPercent()) {
            return KvCommand.of(KvOp.GET, key).encode();
        }
        int overhead = KvCommand.of(KvOp.SET, key, new byte[0]).encode().remaining();
        byte[] value = new byte[Math.max(1, spec.commandBytes() - overhead)];
        rnd.nextBytes(value);
        return KvCommand.of(KvOp.SET, key, value).encode();
    }
}
