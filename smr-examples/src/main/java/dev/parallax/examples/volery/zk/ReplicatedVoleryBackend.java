package dev.parallax.examples.volery.zk;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.VoleryOracle;
import dev.parallax.examples.volery.ZkReply;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The production {@link VoleryBackend}: each znode operation is a command of the replicated Volery
 * (seed 004 (S-SMR) §V-B), sent by a {@link PartitionedInvoker} to the partitions {@link VoleryOracle}
 * names (create and delete to every partition, the rest to the path's owner) through a replica of
 * one of them; the reply is that replica's {@link ZkReply}. Creates and setData are stamped with this
 * front end's wall-clock time ({@link VoleryCommand#withTime}), so every replica stores the same
 * ctime / mtime.
 *
 * <p>Thread-safe and non-blocking as its invoker; failures pass through as the invoker reports
 * them ({@link ZkServer} maps them to ZooKeeper's codes).
 */
public final class ReplicatedVoleryBackend implements VoleryBackend {
    private final CommandInvoker invoker;
    private final LongSupplier clockMillis;
    private final int partitions;

    /**
     * A backend over one partition.
     *
     * @param invoker     sends an encoded {@link VoleryCommand} to the partitions its oracle names
     *                    (a {@link PartitionedInvoker} over a {@link VoleryOracle})
     * @param clockMillis the time stamped into creates and setData
     */
    public ReplicatedVoleryBackend(CommandInvoker invoker, LongSupplier clockMillis) {
        this(invoker, clockMillis, 1);
    }

    /**
     * @param invoker     sends an encoded {@link VoleryCommand} to the partitions its oracle names
     *                    (a {@link PartitionedInvoker} over a {@link VoleryOracle})
     * @param clockMillis the time stamped into creates and setData
     * @param partitions  the number of partitions the invoker reaches
     */
    public ReplicatedVoleryBackend(CommandInvoker invoker, LongSupplier clockMillis, int partitions) {
        this.invoker = Objects.requireNonNull(invoker, "invoker");
        this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
        this.partitions = partitions;
    }

    /**
     * A backend over one invoker per partition (invoker p talks to partition p's replicas), routed
     * by CRC32(path) mod P, retrying a command the replicas refuse as sent to too few partitions.
     */
    public static ReplicatedVoleryBackend over(List<? extends CommandInvoker> partitions) {
        return new ReplicatedVoleryBackend(new PartitionedInvoker(partitions, new VoleryOracle(partitions.size()),
                PartitionedInvoker.DEFAULT_MAX_RETRIES), System::currentTimeMillis, partitions.size());
    }

    @Override
    public int partitions() {
        return partitions;
    }

    @Override
    public CompletableFuture<ZkReply> submit(VoleryCommand command) {
        byte[] bytes;
        try {
            bytes = command.withTime(clockMillis.getAsLong()).encode();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return invoker.invoke(ByteBuffer.wrap(bytes)).thenApply(ZkReply::decode);
    }
}
