package dev.parallax.examples.volery.zk;

import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.WatchPoll;
import dev.parallax.examples.volery.ZkReply;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link ZkServer} executes znode operations on: a linearizable Volery (seed 004 (S-SMR / Eyrie /
 * Volery) §V-B) — the replicated S-SMR client in production, {@link LocalVoleryBackend} in tests.
 *
 * <p>A future may complete exceptionally with {@link dev.parallax.core.client.ClusterUnavailableException}
 * (not executed) or {@link dev.parallax.core.client.OutcomeUnknownException} (may have executed): the
 * server answers both with ZooKeeper's CONNECTIONLOSS, anything else with SYSTEMERROR.
 *
 * <p><b>Threads.</b> {@link #submit} is called from the server's event loops, concurrently from
 * several, and must not block; the future may complete on any thread, in any order relative to other
 * submissions (the server restores each connection's request order).
 */
public interface VoleryBackend {
    /**
     * Executes {@code command} linearizably.
     *
     * @return the command's reply; completes exceptionally if the command could not be executed
     */
    CompletableFuture<ZkReply> submit(VoleryCommand command);

    /** The number of partitions P behind this backend (watch polls go to each, {@link WatchPoll}). */
    default int partitions() {
        return 1;
    }

    /** The partition owning {@code path} (where a watch on it lives): CRC32(path) mod {@link #partitions()}. */
    default int partitionOf(String path) {
        return dev.parallax.examples.volery.VoleryOracle.partitionOf(path, partitions());
    }
}
