package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A closed-loop write load on the KV store: {@code clients} sessions, each keeping
 * {@code outstanding} SETs in flight; each completion issues the next one. Client {@code c} writes
 * keys {@code c:0 .. c:keys-1} round-robin with an increasing counter as the value, and remembers
 * the highest acknowledged counter per key, so the end-of-run check can prove that no
 * acknowledged write was lost. Latencies go to an HdrHistogram; every completion is also bucketed
 * by the time it completed in a {@link CompletionTimeline} (per second for the demo's timeline, per
 * 10 ms slot for fail-over gaps), so the timeline does not depend on when a caller reads it.
 * Client {@code c} talks to replica {@code c mod n} first ({@link ClientConfig.Builder#startAt}):
 * with S-Paxos every replica serves its own clients; with Multi-Paxos each is redirected once.
 * A load made for a {@link ProcessCluster} addresses its commands as the cluster's ordering wants
 * ({@link KvRouting}: by key over the groups of {@code ordering=multi-ring} or {@code multicast}).
 *
 * <p>Callbacks run on the clients' event loop threads; the public methods are thread-safe.
 */
final class ClosedLoopLoad implements AutoCloseable {
    private final NioEventLoopGroup group;
    private final List<SmrClient> clients = new ArrayList<>();
    /** The clients as the load invokes them: {@link #clients} through {@link #routing}. */
    private final List<CommandInvoker> invokers = new ArrayList<>();
    private final UnaryOperator<CommandInvoker> routing;
    private final int keysPerClient;
    private final int outstanding;
    private final AtomicLongArray[] ackedCounter;
    private final Recorder latency = new Recorder(TimeUnit.SECONDS.toMicros(60), 3);
    private final Histogram total = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong inFlight = new AtomicLong();
    private final CompletionTimeline timeline;
    private final Supplier<ClientConfig.Builder> clientConfig;
    private volatile long startedAt;

    /** A load on the replicas serving clients at {@code endpoints} (plain TCP). */
    ClosedLoopLoad(ClusterMembers endpoints, int clientCount, int outstanding, int keysPerClient, Duration maxRun) {
        this(() -> ClientConfig.builder(endpoints), clientCount, outstanding, keysPerClient, maxRun);
    }

    /**
     * A load whose clients start from {@code clientConfig} (endpoints and TLS trust, e.g.
     * {@link ProcessCluster#clientConfig()}); a fresh builder per client.
     */
    ClosedLoopLoad(Supplier<ClientConfig.Builder> clientConfig, int clientCount, int outstanding, int keysPerClient, Duration maxRun) {
        this(clientConfig, UnaryOperator.identity(), clientCount, outstanding, keysPerClient, maxRun);
    }

    /**
     * A load on {@code cluster}: its clients start from {@link ProcessCluster#clientConfig()} and
     * address their commands as the cluster file's ordering wants ({@link KvRouting#invoker}).
     */
    ClosedLoopLoad(ProcessCluster cluster, int clientCount, int outstanding, int keysPerClient, Duration maxRun) {
        this(cluster::clientConfig, c -> KvRouting.invoker(cluster.clusterFile(), c), clientCount, outstanding, keysPerClient, maxRun);
    }

    private ClosedLoopLoad(Supplier<ClientConfig.Builder> clientConfig, UnaryOperator<CommandInvoker> routing, int clientCount,
                           int outstanding, int keysPerClient, Duration maxRun) {
        this.clientConfig = clientConfig;
        this.routing = routing;
        this.group = new NioEventLoopGroup(Math.max(1, Math.min(2, clientCount)), new DefaultThreadFactory("load", true));
        this.keysPerClient = keysPerClient;
        this.outstanding = outstanding;
        this.ackedCounter = new AtomicLongArray[clientCount];
        this.timeline = new CompletionTimeline(maxRun, System.nanoTime());
        for (int c = 0; c < clientCount; c++) {
            ackedCounter[c] = new AtomicLongArray(keysPerClient);
            for (int k = 0; k < keysPerClient; k++) {
                ackedCounter[c].set(k, -1);
            }
            ClientConfig.Builder b = clientConfig.get();
            int replicas = b.build().endpoints().size();
            SmrClient client = SmrClient.connect(b.startAt(c % replicas).eventLoopGroup(group)
                    .maxOutstanding(Math.max(outstanding, 1)).retryTimeout(Duration.ofMillis(700))
                    .invokeTimeout(Duration.ofSeconds(30)).build());
            clients.add(client);
            invokers.add(routing.apply(client));
        }
    }

    static byte[] key(int client, int k) {
        return (client + ":" + k).getBytes(StandardCharsets.UTF_8);
    }

    void start() {
        startedAt = System.nanoTime();
        timeline.reset(startedAt);
        running.set(true);
        for (int c = 0; c < clients.size(); c++) {
            long[] counter = {0};
            for (int w = 0; w < outstanding; w++) {
                issue(c, counter);
            }
        }
    }

    private void issue(int c, long[] counter) {
        if (!running.get()) {
            return;
        }
        long n;
        synchronized (counter) {
            n = counter[0]++;
        }
        int k = (int) (n % keysPerClient);
        ByteBuffer cmd = KvCommand.of(KvOp.SET, key(c, k), Long.toString(n).getBytes(StandardCharsets.UTF_8)).encode();
        long t0 = System.nanoTime();
        inFlight.incrementAndGet();
        invokers.get(c).invoke(cmd).whenComplete((reply, error) -> {
            long t1 = System.nanoTime();
            inFlight.decrementAndGet();
            if (error == null) {
                long micros = Math.min(TimeUnit.NANOSECONDS.toMicros(t1 - t0), TimeUnit.SECONDS.toMicros(60));
                latency.recordValue(micros);
                completed.incrementAndGet();
                ackedCounter[c].accumulateAndGet(k, n, Math::max);
                timeline.record(t1, micros);
            } else {
                failed.incrementAndGet();
            }
            issue(c, counter);
        });
    }

    /** Stops issuing and waits for what is in flight. */
    void stop(Duration timeout) throws InterruptedException {
        running.set(false);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /**
     * Ends the warm-up: forgets the latencies and the timeline recorded so far and moves the time
     * origin to now, so results cover the measured period only. Completions keep counting.
     */
    void startMeasuring() {
        long now = System.nanoTime();
        latency.getIntervalHistogram();
        synchronized (total) {
            total.reset();
        }
        timeline.reset(now);
        startedAt = now;
    }

    /** Every latency recorded since {@link #startMeasuring} (or {@link #start}). */
    Histogram total() {
        Histogram h = latency.getIntervalHistogram();
        synchronized (total) {
            total.add(h);
            return total.copy();
        }
    }

    /** The completions bucketed by when they completed, from the origin {@link #startedAt}. */
    CompletionTimeline timeline() {
        return timeline;
    }

    long completed() {
        return completed.get();
    }

    long failed() {
        return failed.get();
    }

    /** The longest run of 10 ms slots without a completion between {@code fromNanos} and {@code toNanos} (relative to start). */
    Duration longestGapAfter(long fromNanos, long toNanos) {
        return timeline.longestGap(fromNanos, toNanos);
    }

    long startedAt() {
        return startedAt;
    }

    int clientCount() {
        return clients.size();
    }

    int keysPerClient() {
        return keysPerClient;
    }

    /** The highest acknowledged counter written to key {@code k} of client {@code c}, or -1. */
    long acked(int c, int k) {
        return ackedCounter[c].get(k);
    }

    /**
     * Reads every key back through a fresh client and counts keys holding an older value than the
     * last acknowledged write (a lost acknowledged write); prints the first few.
     */
    long countLost(ClusterMembers endpoints, java.io.PrintStream report) throws Exception {
        return countLost(() -> ClientConfig.builder(endpoints), report);
    }

    /** {@link #countLost(ClusterMembers, java.io.PrintStream)} through a client like the load's own. */
    long countLost(java.io.PrintStream report) throws Exception {
        return countLost(clientConfig, report);
    }

    /** {@link #countLost(ClusterMembers, java.io.PrintStream)} through a client built from {@code readerConfig}. */
    long countLost(Supplier<ClientConfig.Builder> readerConfig, java.io.PrintStream report) throws Exception {
        long lost = 0;
        try (SmrClient client = SmrClient.connect(readerConfig.get().invokeTimeout(Duration.ofSeconds(30)).build())) {
            CommandInvoker reader = routing.apply(client);
            for (int c = 0; c < clients.size(); c++) {
                List<java.util.concurrent.CompletableFuture<ByteBuffer>> reads = new ArrayList<>();
                for (int k = 0; k < keysPerClient; k++) {
                    reads.add(reader.invoke(KvCommand.of(KvOp.GET, key(c, k)).encode()));
                }
                for (int k = 0; k < reads.size(); k++) {
                    dev.parallax.examples.kv.KvReply r = dev.parallax.examples.kv.KvReply.decode(reads.get(k).get(30, TimeUnit.SECONDS));
                    long value = r instanceof dev.parallax.examples.kv.KvReply.Bulk b
                            ? Long.parseLong(new String(b.value(), StandardCharsets.UTF_8)) : -1;
                    if (value < acked(c, k)) {
                        lost++;
                        if (lost <= 5) {
                            report.printf("  lost: key %d:%d holds %d, but write %d was acknowledged%n", c, k, value, acked(c, k));
                        }
                    }
                }
            }
        }
        return lost;
    }

    @Override
    public void close() {
        clients.forEach(SmrClient::close);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
