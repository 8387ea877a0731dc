package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvRouter;
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
import java.util.function.Consumer;
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
 * ({@link KvRouting}: by key over the groups of {@code ordering=multi-ring} or {@code multicast});
 * on a store partitioned under S-SMR (seed 004 (S-SMR) §IV) through one client per partition
 * ({@link KvRouting#partitionedInvoker}), with MSET, MGET and DBSIZE among the SETs, which span
 * partitions ({@link #MIX}).
 *
 * <p>Callbacks run on the clients' event loop threads; the public methods are thread-safe.
 */
final class ClosedLoopLoad implements AutoCloseable {
    /**
     * Under S-SMR, the period of the command mix: of every {@value} commands of a client, one MSET,
     * one MGET and one DBSIZE (about 9% of the commands span partitions). A replica restarted after
     * missing multi-partition commands gets their values from the other partitions by
     * retransmission, one request per 256 commands thanks to the push-ahead
     * (docs/protocols/s-smr.md, "Catch-up push-ahead").
     */
    static final int MIX = 32;
    private static final int MSET_SLOT = 5;
    private static final int MGET_SLOT = 13;
    private static final int DBSIZE_SLOT = 21;
    private final NioEventLoopGroup group;
    /** What each session holds open (its client, or a partitioned invoker and its clients). */
    private final List<AutoCloseable> sessions = new ArrayList<>();
    /** The sessions as the load invokes them. */
    private final List<CommandInvoker> invokers = new ArrayList<>();
    /** How a session connects: a client (routed as the ordering wants), or one client per partition. */
    private final Connector connector;
    /**
     * Under S-SMR, for each client and key k, a key of another partition that k's MSET and MGET
     * pair it with ({@link #issue}); null for a load of SETs only.
     */
    private final int[][] partner;
    /** How a reader client of {@link #countLost(Supplier, java.io.PrintStream)} addresses its commands; null if partitioned. */
    private final UnaryOperator<CommandInvoker> routing;
    private final AtomicLong multiPartition = new AtomicLong();
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
        this(direct(clientConfig, UnaryOperator.identity()), UnaryOperator.identity(), null, clientCount, outstanding,
                keysPerClient, maxRun);
    }

    /**
     * A load on {@code cluster}: its clients start from {@link ProcessCluster#clientConfig()} and
     * address their commands as the cluster file's ordering wants ({@link KvRouting#invoker}); on a
     * {@linkplain KvRouting#partitioned partitioned} store (seed 004 (S-SMR) §IV) each session is a
     * {@link KvRouting#partitionedInvoker} (one client per partition, client c starting at replica
     * c), and the load mixes in multi-partition commands ({@link #issue}).
     */
    ClosedLoopLoad(ProcessCluster cluster, int clientCount, int outstanding, int keysPerClient, Duration maxRun) {
        this(connector(cluster.clusterFile(), cluster::clientConfig),
                KvRouting.partitioned(cluster.clusterFile()) ? null : c -> KvRouting.invoker(cluster.clusterFile(), c),
                KvRouting.partitioned(cluster.clusterFile()) ? partners(cluster.clusterFile(), clientCount, keysPerClient) : null,
                clientCount, outstanding, keysPerClient, maxRun);
    }

    private ClosedLoopLoad(Connector connector, UnaryOperator<CommandInvoker> routing, int[][] partner, int clientCount,
                           int outstanding, int keysPerClient, Duration maxRun) {
        this.connector = connector;
        this.routing = routing;
        this.partner = partner;
        this.group = new NioEventLoopGroup(Math.max(1, Math.min(2, clientCount)), new DefaultThreadFactory("load", true));
        this.keysPerClient = keysPerClient;
        this.outstanding = outstanding;
        this.ackedCounter = new AtomicLongArray[clientCount];
        this.timeline = new CompletionTimeline(maxRun, System.nanoTime());
        try {
            for (int c = 0; c < clientCount; c++) {
                ackedCounter[c] = new AtomicLongArray(keysPerClient);
                for (int k = 0; k < keysPerClient; k++) {
                    ackedCounter[c].set(k, -1);
                }
                Session session = connector.open(c, b -> b.eventLoopGroup(group).maxOutstanding(Math.max(outstanding, 1))
                        .retryTimeout(Duration.ofMillis(700)).invokeTimeout(Duration.ofSeconds(30)));
                sessions.add(session.resources());
                invokers.add(session.invoker());
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Opens a session: {@code client >= 0} for the load's client of that number, {@code -1} for a
     * reader (each client at its configuration's first replica); {@code tune} adjusts each client's
     * configuration last.
     */
    @FunctionalInterface
    private interface Connector {
        Session open(int client, Consumer<ClientConfig.Builder> tune);
    }

    /** A session: what the load invokes, and what closing the session closes. */
    private record Session(CommandInvoker invoker, AutoCloseable resources) {
    }

    /** Sessions of one client each, from {@code config}, client c starting at replica c mod n, invoked through {@code routing}. */
    private static Connector direct(Supplier<ClientConfig.Builder> config, UnaryOperator<CommandInvoker> routing) {
        return (c, tune) -> {
            ClientConfig.Builder b = config.get();
            if (c >= 0) {
                b.startAt(c % b.build().endpoints().size());
            }
            tune.accept(b);
            SmrClient client = SmrClient.connect(b.build());
            return new Session(routing.apply(client), client);
        };
    }

    /** The sessions {@code file}'s store wants: {@link KvRouting#partitionedInvoker}s if partitioned, else {@link #direct} and {@link KvRouting#invoker}. */
    private static Connector connector(ClusterFile file, Supplier<ClientConfig.Builder> config) {
        if (!KvRouting.partitioned(file)) {
            return direct(config, c -> KvRouting.invoker(file, c));
        }
        return (c, tune) -> {
            PartitionedInvoker invoker = KvRouting.partitionedInvoker(file, c, tune);
            return new Session(invoker, invoker);
        };
    }

    /**
     * For each client c and key k, a key of client c in another partition than k's (by
     * {@link KvRouter} over {@code file}'s partitions), searched from k + keys/2 on; k + keys/2
     * itself when no key of another partition exists (one partition).
     */
    private static int[][] partners(ClusterFile file, int clientCount, int keys) {
        KvRouter router = new KvRouter(file.partitions());
        int[][] partner = new int[clientCount][keys];
        for (int c = 0; c < clientCount; c++) {
            int[] group = new int[keys];
            for (int k = 0; k < keys; k++) {
                group[k] = router.groupOf(key(c, k));
            }
            for (int k = 0; k < keys; k++) {
                int first = (k + keys / 2) % keys;
                partner[c][k] = first;
                for (int i = 0; i < keys; i++) {
                    int j = (first + i) % keys;
                    if (group[j] != group[k]) {
                        partner[c][k] = j;
                        break;
                    }
                }
            }
        }
        return partner;
    }

    static byte[] key(int client, int k) {
        return (client + ":" + k).getBytes(StandardCharsets.UTF_8);
    }

    void start() {
        startedAt = System.nanoTime();
        timeline.reset(startedAt);
        running.set(true);
        for (int c = 0; c < invokers.size(); c++) {
            long[] counter = {0};
            for (int w = 0; w < outstanding; w++) {
                issue(c, counter);
            }
        }
    }

    /**
     * Issues client {@code c}'s next command, number n: SET of key n mod keys to n; with
     * {@link #partner}s (S-SMR), of every {@value #MIX} commands one is an MSET of that key and its
     * partner (another partition's) to n, one an MGET of the two, one a DBSIZE (every partition).
     */
    private void issue(int c, long[] counter) {
        if (!running.get()) {
            return;
        }
        long n;
        synchronized (counter) {
            n = counter[0]++;
        }
        int k = (int) (n % keysPerClient);
        byte[] value = Long.toString(n).getBytes(StandardCharsets.UTF_8);
        int slot = partner == null ? -1 : (int) (n % MIX);
        int k2 = partner == null ? -1 : partner[c][k];
        ByteBuffer cmd = switch (slot) {
            case MSET_SLOT -> KvCommand.of(KvOp.MSET, key(c, k), value, key(c, k2), value).encode();
            case MGET_SLOT -> KvCommand.of(KvOp.MGET, key(c, k), key(c, k2)).encode();
            case DBSIZE_SLOT -> KvCommand.of(KvOp.DBSIZE).encode();
            default -> KvCommand.of(KvOp.SET, key(c, k), value).encode();
        };
        long t0 = System.nanoTime();
        inFlight.incrementAndGet();
        invokers.get(c).invoke(cmd).whenComplete((reply, error) -> {
            long t1 = System.nanoTime();
            inFlight.decrementAndGet();
            if (error == null) {
                long micros = Math.min(TimeUnit.NANOSECONDS.toMicros(t1 - t0), TimeUnit.SECONDS.toMicros(60));
                latency.recordValue(micros);
                completed.incrementAndGet();
                if (slot == MSET_SLOT) {
                    ackedCounter[c].accumulateAndGet(k2, n, Math::max);
                }
                if (slot != MGET_SLOT && slot != DBSIZE_SLOT) {
                    ackedCounter[c].accumulateAndGet(k, n, Math::max);
                }
                if (slot == MSET_SLOT || slot == MGET_SLOT || slot == DBSIZE_SLOT) {
                    multiPartition.incrementAndGet();
                }
                timeline.record(t1, micros);
            } else {
                failed.incrementAndGet();
            }
            issue(c, counter);
        });
    }

    /** Whether the load mixes multi-partition commands into its SETs (a partitioned store). */
    boolean mixesMultiPartition() {
        return partner != null;
    }

    /** Acknowledged multi-partition commands (MSET, MGET, DBSIZE) of a {@link #mixesMultiPartition} load. */
    long multiPartitionCompleted() {
        return multiPartition.get();
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
        return invokers.size();
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

    /** {@link #countLost(ClusterMembers, java.io.PrintStream)} through a session like the load's own (one per partition under S-SMR). */
    long countLost(java.io.PrintStream report) throws Exception {
        Session reader = connector.open(-1, b -> b.invokeTimeout(Duration.ofSeconds(30)));
        try (AutoCloseable resources = reader.resources()) {
            return countLost(reader.invoker(), report);
        }
    }

    /**
     * {@link #countLost(ClusterMembers, java.io.PrintStream)} through a client built from
     * {@code readerConfig}, addressed as the load's own clients (not for a partitioned store: use
     * {@link #countLost(java.io.PrintStream)}).
     *
     * @throws IllegalStateException if the load runs on a partitioned store
     */
    long countLost(Supplier<ClientConfig.Builder> readerConfig, java.io.PrintStream report) throws Exception {
        if (routing == null) {
            throw new IllegalStateException("a partitioned store is read through countLost(report)");
        }
        try (SmrClient client = SmrClient.connect(readerConfig.get().invokeTimeout(Duration.ofSeconds(30)).build())) {
            return countLost(routing.apply(client), report);
        }
    }

    private long countLost(CommandInvoker reader, java.io.PrintStream report) throws Exception {
        long lost = 0;
        for (int c = 0; c < invokers.size(); c++) {
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
        return lost;
    }

    @Override
    public void close() {
        for (AutoCloseable session : sessions) {
            try {
                session.close();
            } catch (Exception e) {
                // Closing a client does not fail; a session that does is gone all the same.
            }
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
