package dev.parallax.examples.cli;

import dev.parallax.examples.volery.zk.ZooKeeperClients;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed load on Volery's ZooKeeper front ends (seed 004 (S-SMR) §V-B) through ZooKeeper's own
 * client, for {@code parallax demo --service volery}: {@code sessions} sessions, each on its own
 * thread with one request in flight, each owning {@value #NODES_PER_SESSION} znodes
 * {@code /demo/s<k>/n<i>} that it setData's in turn (local commands, at each path's owner
 * partition), and every {@value #GLOBAL_EVERY}th request a create and a delete of
 * {@code /demo/s<k>/t} (global commands, at every partition). Each session's connect string lists
 * every front end (the client picks one at random and moves to another when its own is gone); a
 * session that expires (sessions are per front end today) is replaced by a new one. It remembers,
 * per znode, the last acknowledged value and the values of the writes whose outcome is unknown
 * since (a connection lost or a session expired in flight), and {@link #countLost} reads every
 * znode back against them. Latencies go to an HdrHistogram and a {@link CompletionTimeline}.
 *
 * <p>Threads: one per session (started by {@link #start}); everything else from the owner thread.
 */
final class VoleryLoad implements AutoCloseable {
    /** Znodes each session owns and writes in turn. */
    static final int NODES_PER_SESSION = 32;
    /** Every this many requests of a session, a create and a delete instead of a setData. */
    static final int GLOBAL_EVERY = 20;
    private static final int SESSION_TIMEOUT_MS = 10_000;
    private static final long CONNECT_SECONDS = 30;

    /**
     * Turns ZooKeeper's client logging down to errors and SASL off in this JVM; call before the
     * first client is made (slf4j-simple reads its levels once). Its INFO lines (every connection,
     * every reconnect) would bury a report.
     */
    static void quietClientLogs() {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper", "error");
        System.setProperty("zookeeper.sasl.client", "false");
    }

    private final String connect;
    private final List<Session> sessions = new ArrayList<>();
    private final Recorder latency = new Recorder(TimeUnit.SECONDS.toMicros(60), 3);
    private final Histogram total = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    private final CompletionTimeline timeline;
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong reopened = new AtomicLong();
    private volatile boolean running;
    private long startedAt;

    /**
     * @param connect the ZooKeeper connect string of every front end
     * @param count   how many sessions (threads), at least 1
     * @param maxRun  how long the timeline covers
     */
    VoleryLoad(String connect, int count, Duration maxRun) {
        if (count < 1) {
            throw new IllegalArgumentException("--clients must be at least 1, not " + count);
        }
        quietClientLogs();
        this.connect = connect;
        for (int k = 0; k < count; k++) {
            sessions.add(new Session(k));
        }
        this.timeline = new CompletionTimeline(maxRun, System.nanoTime());
    }

    /** One client session's state: written by its thread, read by the owner after {@link #stop}. */
    private final class Session {
        final int k;
        final String base;
        final String[] acked = new String[NODES_PER_SESSION];
        final List<Set<String>> unknown = new ArrayList<>();
        Thread thread;

        Session(int k) {
            this.k = k;
            this.base = "/demo/s" + k;
            for (int i = 0; i < NODES_PER_SESSION; i++) {
                unknown.add(new HashSet<>());
                acked[i] = "init";
            }
        }

        void run() {
            ZooKeeper zk = null;
            long seq = 0;
            try {
                zk = open();
                while (running) {
                    int i = (int) (seq % NODES_PER_SESSION);
                    String value = k + "." + seq;
                    long t0 = System.nanoTime();
                    try {
                        if (seq % GLOBAL_EVERY == GLOBAL_EVERY - 1) {
                            createAndDelete(zk);
                        } else {
                            zk.setData(base + "/n" + i, bytes(value), -1);
                            acked[i] = value;
                            unknown.get(i).clear();
                        }
                        long t1 = System.nanoTime();
                        long micros = TimeUnit.NANOSECONDS.toMicros(t1 - t0);
                        latency.recordValue(Math.min(micros, TimeUnit.SECONDS.toMicros(60)));
                        timeline.record(t1, micros);
                        completed.incrementAndGet();
                    } catch (KeeperException.SessionExpiredException | KeeperException.ConnectionLossException e) {
                        failed.incrementAndGet();
                        unknown.get(i).add(value);
                        if (e instanceof KeeperException.SessionExpiredException) {
                            reopened.incrementAndGet();
                            zk.close();
                            zk = open();
                        } else {
                            Thread.sleep(20);
                        }
                    } catch (KeeperException e) {
                        failed.incrementAndGet();
                        unknown.get(i).add(value);
                    }
                    seq++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                failed.incrementAndGet();
            } finally {
                ZooKeeperClients.close(zk);
            }
        }

        /** A create and a delete of {@code base/t}; one left over by an earlier unknown outcome is tolerated. */
        private void createAndDelete(ZooKeeper zk) throws KeeperException, InterruptedException {
            try {
                zk.create(base + "/t", bytes("t"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException leftOver) {
                // An earlier create whose reply was lost did execute: delete it below.
            }
            zk.delete(base + "/t", -1);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A connected session on the connect string, retried while the load runs (a front end may be
     * down for a moment).
     *
     * @throws IOException if none connects within {@value #CONNECT_SECONDS} s
     */
    private ZooKeeper open() throws IOException, InterruptedException {
        return ZooKeeperClients.connect(connect, SESSION_TIMEOUT_MS, Duration.ofSeconds(CONNECT_SECONDS));
    }

    /**
     * Creates {@code /demo}, each session's directory and its znodes (value {@code init}) through
     * one session; blocks until done.
     *
     * @throws IOException     if no session connects
     * @throws KeeperException if a create fails
     */
    void setUp() throws IOException, InterruptedException, KeeperException {
        ZooKeeper zk = open();
        try {
            zk.create("/demo", bytes(""), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            for (Session s : sessions) {
                zk.create(s.base, bytes(""), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                for (int i = 0; i < NODES_PER_SESSION; i++) {
                    zk.create(s.base + "/n" + i, bytes("init"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                }
            }
        } finally {
            zk.close();
        }
    }

    /** Starts every session's thread. */
    void start() {
        running = true;
        startedAt = System.nanoTime();
        timeline.reset(startedAt);
        for (Session s : sessions) {
            s.thread = new Thread(s::run, "volery-load-" + s.k);
            s.thread.setDaemon(true);
            s.thread.start();
        }
    }

    /** Ends the warm-up: forgets latencies and the timeline so far and measures from now. */
    void startMeasuring() {
        long now = System.nanoTime();
        latency.getIntervalHistogram();
        total.reset();
        timeline.reset(now);
        startedAt = now;
    }

    /** When the measurement (or the load) started, a {@link System#nanoTime()} value. */
    long startedAt() {
        return startedAt;
    }

    CompletionTimeline timeline() {
        return timeline;
    }

    long completed() {
        return completed.get();
    }

    long failed() {
        return failed.get();
    }

    /** Sessions that expired and were replaced. */
    long reopened() {
        return reopened.get();
    }

    int sessionCount() {
        return sessions.size();
    }

    /** Latencies since {@link #startMeasuring} (cumulative across calls). */
    Histogram total() {
        total.add(latency.getIntervalHistogram());
        return total;
    }

    /** The longest stretch without a completion between two times relative to {@link #startedAt}. */
    Duration longestGapAfter(long fromNanos, long toNanos) {
        return timeline.longestGap(fromNanos, toNanos);
    }

    /**
     * Stops the sessions and waits up to {@code timeout} for their threads (each waits for its
     * request in flight).
     */
    void stop(Duration timeout) throws InterruptedException {
        running = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Session s : sessions) {
            if (s.thread != null) {
                s.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        }
    }

    /**
     * Reads every session's znodes back through a new session (after {@link #stop}) and counts
     * those whose value is neither the last acknowledged one nor one of the unknown-outcome writes
     * after it: an acknowledged setData lost. Prints the first few.
     *
     * @throws IOException     if no session connects
     * @throws KeeperException if a read fails
     */
    long countLost(PrintStream out) throws IOException, InterruptedException, KeeperException {
        long lost = 0;
        ZooKeeper zk = open();
        try {
            for (Session s : sessions) {
                for (int i = 0; i < NODES_PER_SESSION; i++) {
                    String path = s.base + "/n" + i;
                    String read = new String(zk.getData(path, false, null), StandardCharsets.UTF_8);
                    if (!read.equals(s.acked[i]) && !s.unknown.get(i).contains(read)) {
                        if (lost++ < 5) {
                            out.printf("  lost write       %s holds '%s', acknowledged '%s'%n", path, read, s.acked[i]);
                        }
                    }
                }
            }
        } finally {
            zk.close();
        }
        return lost;
    }

    /** Znodes read back by {@link #countLost}. */
    long znodes() {
        return (long) sessions.size() * NODES_PER_SESSION;
    }

    @Override
    public void close() throws InterruptedException {
        stop(Duration.ofSeconds(5));
    }
}
