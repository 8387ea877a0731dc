package dev.parallax.examples.volery.zk;

import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.WatchPoll;
import dev.parallax.examples.volery.ZkReply;
import io.netty.channel.EventLoop;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * What {@link ZkServer} executes znode operations on: a linearizable Volery (seed 004 (S-SMR / Eyrie /
 * Volery) §V-B) — the replicated S-SMR client in production, {@link LocalVoleryBackend} in tests.
 *
 * <p>A future may complete exceptionally with {@link dev.parallax.core.client.ClusterUnavailableException}
 * (not executed) or {@link dev.parallax.core.client.OutcomeUnknownException} (may have executed): the
 * server answers both with ZooKeeper's CONNECTIONLOSS, anything else with SYSTEMERROR.
 *
 * <p><b>Reads without ordering.</b> A read that sets no watch ({@link VoleryCommand#isQuery()}) may be
 * answered outside the order ({@link #query}), linearizably. A connection sends its requests through
 * its {@link Lane} ({@link #lane}), which decides what goes as a query while keeping ZooKeeper's FIFO
 * order of the session's requests: a read never misses a write of the session sent before it, nor
 * sees one sent after it.
 *
 * <p><b>Threads.</b> {@link #submit} and {@link #query} are called from the server's event loops,
 * concurrently from several, and must not block; the future may complete on any thread, in any order
 * relative to other submissions (the server restores each connection's request order). A {@link Lane}
 * is used on its connection's event loop only.
 */
public interface VoleryBackend {
    /**
     * Executes {@code command} linearizably, in the order.
     *
     * @return the command's reply; completes exceptionally if the command could not be executed
     */
    CompletableFuture<ZkReply> submit(VoleryCommand command);

    /**
     * Answers {@code read} outside the order where the backend can (a read that sets no watch,
     * {@link VoleryCommand#isQuery()}), linearizably: the reply reflects every command completed before
     * the call. The default, and any other command, goes through {@link #submit}.
     */
    default CompletableFuture<ZkReply> query(VoleryCommand read) {
        return submit(read);
    }

    /**
     * The lane of a new connection served by {@code loop}; it tells {@code reads} how each read that
     * sets no watch went. The default lane orders everything ({@link #submit}): no read is a query.
     */
    default Lane lane(EventLoop loop, ReadListener reads) {
        VoleryBackend backend = this;
        return new Lane() {
            @Override
            public CompletableFuture<ZkReply> submit(VoleryCommand command) {
                if (command.isQuery()) {
                    reads.sent(false);
                }
                return backend.submit(command);
            }

            @Override
            public <T> CompletableFuture<T> order(Supplier<CompletableFuture<T>> operation) {
                return operation.get();
            }
        };
    }

    /** The number of partitions P behind this backend (watch polls go to each, {@link WatchPoll}). */
    default int partitions() {
        return 1;
    }

    /** The partition owning {@code path} (where a watch on it lives): CRC32(path) mod {@link #partitions()}. */
    default int partitionOf(String path) {
        return dev.parallax.examples.volery.VoleryOracle.partitionOf(path, partitions());
    }

    /**
     * One connection's way to the backend, keeping the order of its requests: a read that sets no
     * watch goes as a query ({@link VoleryBackend#query}) only where that cannot reorder it with the
     * connection's ordered requests. Used on the connection's event loop only; never blocks.
     */
    interface Lane {
        /** Sends {@code command}: as a query or ordered, as the connection's order allows. */
        CompletableFuture<ZkReply> submit(VoleryCommand command);

        /**
         * Runs {@code operation}, an ordered request of the connection made of other backend calls
         * (a watch registration through the front end's watch hub), in the connection's order: as
         * {@link #submit} orders a write. Its result must not be null.
         */
        <T> CompletableFuture<T> order(Supplier<CompletableFuture<T>> operation);
    }

    /**
     * Told, for each read that sets no watch, whether it went as a query or ordered (the front end's
     * metrics). Called by a lane on its connection's event loop; must not block.
     */
    @FunctionalInterface
    interface ReadListener {
        /** A read went as a query ({@code asQuery}) or ordered. */
        void sent(boolean asQuery);
    }
}
