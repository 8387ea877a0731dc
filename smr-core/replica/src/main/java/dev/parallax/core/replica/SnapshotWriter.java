package dev.parallax.core.replica;

import dev.parallax.core.SnapshotCapture;
import dev.parallax.core.snapshot.SnapshotStore;
import dev.parallax.core.stage.StageThreads;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * Writes the replica's snapshots off the delivery thread: the second half of the quiescent
 * hand-off. The {@link ServiceManager} captures the sessions and the state machine at a position
 * on the delivery thread (the only thread that starts commands, so the capture is consistent) and
 * hands both {@link SnapshotCapture}s here; a dedicated daemon thread named
 * {@code replica-<id>-snapshot-writer}, one per write, streams them into the {@link SnapshotStore}
 * (temporary file, fsync, rename, fsync of the directory) and only then reports the position to
 * {@code written} (the broadcast's {@code snapshotTaken}: log compaction). The thread is not a
 * pipeline stage of {@code StageThreads}: it runs rarely, blocks on disk IO for as long as the
 * write takes, and must not hold up a shared stage thread.
 *
 * <p>At most one write is in flight ({@link #busy}); the caller defers the next snapshot until it
 * ends. A failed write (or capture, {@link #captureFailed}) is logged and counted in
 * {@code parallax.snapshots.failed}; the log then stays uncompacted until a later snapshot.
 * {@link #abandonAndAwait} (before an install) and {@link #close} abandon the write in flight:
 * the writer thread is interrupted, and a write that has not been renamed into place by then
 * leaves nothing visible (the store deletes its temporary file), counted in
 * {@code parallax.snapshots.abandoned}.
 *
 * <p>Meters (tag {@code replica}): {@code parallax.snapshots.taken}, {@code .failed},
 * {@code .abandoned} (counters) and {@code parallax.snapshots.write} (timer: capture handed over to
 * snapshot durable).
 *
 * <p>Threads: {@link #busy}, {@link #start}, {@link #captureFailed} and {@link #abandonAndAwait}
 * are called by the ServiceManager under its lock (the delivery thread, or an installing thread);
 * {@link #close} by the replica's owner. {@code written} is called on the writer thread and must
 * not block.
 */
final class SnapshotWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotWriter.class);
    /** How long {@link #close} waits for an abandoned write to end before it leaves the thread behind. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final int replica;
    private final SnapshotStore store;
    private final LongConsumer written;
    private final MeterRegistry registry;
    private final Counter taken;
    private final Counter failed;
    private final Counter abandonedWrites;
    private final Timer writeTime;
    private final Object lock = new Object();
    /** Guarded by lock: the thread writing now, or null. */
    private Thread inFlight;
    /** Guarded by lock: the write in flight is abandoned. */
    private boolean abandoned;
    /** Guarded by lock. */
    private boolean closed;

    /**
     * @param store   where snapshots go; null if this replica keeps none (then only the meters exist)
     * @param written told, on the writer thread, each position whose snapshot is durable
     */
    SnapshotWriter(int replica, SnapshotStore store, MeterRegistry registry, LongConsumer written) {
        this.replica = replica;
        this.store = store;
        this.written = Objects.requireNonNull(written);
        this.registry = registry;
        String id = Integer.toString(replica);
        this.taken = Counter.builder("parallax.snapshots.taken").description("snapshots written and made durable")
                .tag("replica", id).register(registry);
        this.failed = Counter.builder("parallax.snapshots.failed")
                .description("snapshots that could not be written; the log stays uncompacted until the next one")
                .tag("replica", id).register(registry);
        this.abandonedWrites = Counter.builder("parallax.snapshots.abandoned")
                .description("snapshot writes given up because the replica closed or installed a newer snapshot")
                .tag("replica", id).register(registry);
        this.writeTime = Timer.builder("parallax.snapshots.write")
                .description("from a captured state handed to the writer thread to its snapshot durable on disk")
                .tag("replica", id).register(registry);
    }

    /** Whether a write is in flight. */
    boolean busy() {
        synchronized (lock) {
            return inFlight != null;
        }
    }

    /**
     * Writes the snapshot covering every position below {@code at}: the sessions' bytes, then the
     * state machine's, on a new writer thread. Takes ownership of both captures (closes them when
     * done, or at once if a write is in flight or the writer is closed). Returns at once.
     */
    void start(long at, SnapshotCapture sessions, SnapshotCapture state) {
        synchronized (lock) {
            if (!closed && inFlight == null && store != null) {
                abandoned = false;
                Thread t = StageThreads.newThread("replica-" + replica + "-snapshot-writer", true,
                        () -> write(at, sessions, state));
                inFlight = t;
                t.start();
                return;
            }
        }
        sessions.close();
        state.close();
    }

    /** The capture for the snapshot at {@code at} failed on the delivery thread: counted and logged like a failed write. */
    void captureFailed(long at, Exception e) {
        failed.increment();
        LOG.error("snapshot at {} could not be captured; the log is not compacted: {}", at, e.toString());
    }

    private void write(long at, SnapshotCapture sessions, SnapshotCapture state) {
        Timer.Sample sample = Timer.start(registry);
        try (sessions; state) {
            store.write(at, out -> {
                sessions.writeTo(out);
                state.writeTo(out);
                if (isAbandoned()) {
                    throw new InterruptedIOException("abandoned before it was made durable");
                }
            });
            sample.stop(writeTime);
            taken.increment();
            if (!isAbandoned()) {
                written.accept(at);
            }
        } catch (IOException | RuntimeException e) {
            if (isAbandoned()) {
                abandonedWrites.increment();
                LOG.info("snapshot at {} abandoned, nothing of it is kept: {}", at, e.toString());
            } else {
                failed.increment();
                LOG.error("snapshot at {} failed; the log is not compacted: {}", at, e.toString());
            }
        } finally {
            synchronized (lock) {
                inFlight = null;
                lock.notifyAll();
            }
        }
    }

    private boolean isAbandoned() {
        synchronized (lock) {
            return abandoned;
        }
    }

    /**
     * Waits up to {@code timeout} until no write is in flight.
     *
     * @return false if one still is
     */
    boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (inFlight != null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    /**
     * Abandons the write in flight, if any (interrupts its thread), and waits until it has ended:
     * afterwards no write runs and none reports a position, so a snapshot can be installed.
     *
     * @throws InterruptedException if interrupted while waiting (the write may still be ending)
     */
    void abandonAndAwait() throws InterruptedException {
        Thread t = abandon();
        if (t != null) {
            synchronized (lock) {
                while (inFlight == t) {
                    lock.wait();
                }
            }
        }
    }

    private Thread abandon() {
        Thread t;
        synchronized (lock) {
            t = inFlight;
            if (t == null) {
                return null;
            }
            abandoned = true;
        }
        t.interrupt();
        return t;
    }

    /**
     * Starts no more writes and abandons the one in flight, waiting up to {@link #CLOSE_WAIT} for
     * it to end; a write that ignores the interrupt is left behind with a WARN (if it still
     * completes, its snapshot is whole: the store renames only complete files). Idempotent.
     */
    @Override
    public void close() {
        Thread t;
        synchronized (lock) {
            closed = true;
        }
        t = abandon();
        if (t == null) {
            return;
        }
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        boolean interrupted = false;
        synchronized (lock) {
            while (inFlight == t) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.warn("replica {}: the snapshot writer did not stop within {}; leaving it behind", replica, CLOSE_WAIT);
                    break;
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
