package dev.parallax.examples.volery.zk;

import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.ZkReply;
import dev.parallax.examples.volery.ZnodeTree;
import dev.parallax.examples.volery.ZnodeWatches;
import io.netty.channel.EventLoop;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * An in-process, unreplicated {@link VoleryBackend}: one {@link ZnodeTree} behind one lock, so every
 * operation is trivially linearizable. Each write takes the next zxid of a counter (1, 2, ...; failed
 * writes too, as ZooKeeper's error transactions do) and the time of the clock given; a read's reply
 * carries the last write's zxid. Watches as a Volery partition keeps them ({@link ZnodeWatches}, one
 * partition). A read that sets no watch is answered by {@link #query} from the tree as it is, changing
 * nothing, and a connection's {@link #lane} sends such reads that way: every call completes before it
 * returns, so no request of a connection can overtake another. For tests and for
 * trying ZooKeeper clients against {@link ZkServer} without a cluster.
 *
 * <p><b>Threads.</b> Thread-safe; {@link #submit} and {@link #query} execute the command on the calling
 * thread under the lock (never blocking on anything else) and return a completed future.
 */
public final class LocalVoleryBackend implements VoleryBackend {
    private final ZnodeTree tree = new ZnodeTree();
    private final ZnodeWatches watches;
    private final LongSupplier clock;
    private long zxid;
    private long queries;

    /** A backend whose write times are {@link System#currentTimeMillis()}. */
    public LocalVoleryBackend() {
        this(System::currentTimeMillis);
    }

    /** A backend whose write times come from {@code clock} (milliseconds). */
    public LocalVoleryBackend(LongSupplier clock) {
        this(clock, new ZnodeWatches());
    }

    private LocalVoleryBackend(LongSupplier clock, ZnodeWatches watches) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.watches = watches;
    }

    /**
     * A backend whose partition keeps at most {@code maxWatches} watches and {@code maxPending} queued
     * events per front end ({@link ZnodeWatches#ZnodeWatches(int, int)}), to exercise the bounds.
     */
    public static LocalVoleryBackend withWatchBounds(int maxWatches, int maxPending) {
        return new LocalVoleryBackend(System::currentTimeMillis, new ZnodeWatches(maxWatches, maxPending));
    }

    @Override
    public CompletableFuture<ZkReply> submit(VoleryCommand command) {
        Objects.requireNonNull(command, "command");
        synchronized (this) {
            long z = command.isWrite() ? ++zxid : zxid;
            return CompletableFuture.completedFuture(command.applyTo(tree, watches, z, clock.getAsLong()));
        }
    }

    /** A read that sets no watch, from the tree as it is (changing nothing); anything else as {@link #submit}. */
    @Override
    public CompletableFuture<ZkReply> query(VoleryCommand read) {
        Objects.requireNonNull(read, "read");
        if (!read.isQuery()) {
            return submit(read);
        }
        synchronized (this) {
            queries++;
            return CompletableFuture.completedFuture(read.applyTo(tree, zxid, 0L));
        }
    }

    /** A lane sending the reads that set no watch to {@link #query}, everything else to {@link #submit}. */
    @Override
    public Lane lane(EventLoop loop, ReadListener reads) {
        return new Lane() {
            @Override
            public CompletableFuture<ZkReply> submit(VoleryCommand command) {
                if (command.isQuery()) {
                    reads.sent(true);
                    return query(command);
                }
                return LocalVoleryBackend.this.submit(command);
            }

            @Override
            public <T> CompletableFuture<T> order(Supplier<CompletableFuture<T>> operation) {
                return operation.get();
            }
        };
    }

    /** How many reads {@link #query} answered. */
    public synchronized long queries() {
        return queries;
    }

    /** The watches held (data plus child watches). */
    public synchronized int watchCount() {
        return watches.watchCount();
    }

    /** The zxid of the last write (0 before any). */
    public synchronized long lastZxid() {
        return zxid;
    }
}
