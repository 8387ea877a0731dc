package dev.parallax.examples.volery.zk;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.examples.net.ReadWriteGate;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.VoleryOracle;
import dev.parallax.examples.volery.ZkReply;
import io.netty.channel.EventLoop;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The production {@link VoleryBackend}: each znode operation is a command of the replicated Volery
 * (seed 004 (S-SMR) §V-B), sent by a {@link PartitionedInvoker} to the partitions {@link VoleryOracle}
 * names (create and delete to every partition, the rest to the path's owner) through a replica of
 * one of them; the reply is that replica's {@link ZkReply}. Creates and setData are stamped with this
 * front end's wall-clock time ({@link VoleryCommand#withTime}), so every replica stores the same
 * ctime / mtime.
 *
 * <p><b>Reads as queries.</b> A read that sets no watch ({@link VoleryCommand#isQuery()}: getData,
 * exists, getChildren(2), getACL) goes through the invoker's {@link CommandInvoker#query}, the same
 * invoker and routing as every command: linearizable read-index where the replicas have it, else
 * ordered by the invoker. Each connection's {@link #lane} keeps the session's FIFO order with a
 * {@link ReadWriteGate}: a read goes as a query only while nothing ordered of the connection is in
 * flight (else it is ordered behind), and an ordered request waits for the connection's queries in
 * flight. Reads that set a watch, writes and the watch hub's registrations are ordered.
 *
 * <p><b>FIFO across partitions.</b> A command's stream in the gate is its destination set, the
 * partitions the invoker sends it to ({@link CommandInvoker#stream}: a {@link PartitionedInvoker}'s
 * {@link VoleryOracle}): commands to one set travel one client stream and one ring and pipeline, in
 * order; a command to another set (a setData of a path of partition 0 after one of partition 1, a setData
 * after a create, which goes to every partition over the global ring) would travel another ring and
 * could execute first, so it is held until the session's commands in flight are answered. The watch
 * hub's registrations (several commands) are barriers. Under S-SMR
 * the invoker is a {@link PartitionedInvoker}: a read of one path is a query to a replica of the
 * path's owner, which answers it from its partition's state once the merge passed every ring's
 * confirmed point (read-index over Multi-Ring Paxos); S-SMR hands it to {@code VoleryPartition.query}.
 *
 * <p>Thread-safe and non-blocking as its invoker; failures pass through as the invoker reports
 * them ({@link ZkServer} maps them to ZooKeeper's codes). A lane is used on its connection's event
 * loop only.
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
     *                    (a {@link PartitionedInvoker} over a {@link VoleryOracle}), and a query to
     *                    where it may be answered
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
            bytes = encode(command);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return invoker.invoke(ByteBuffer.wrap(bytes)).thenApply(ZkReply::decode);
    }

    /** A read that sets no watch through the invoker's {@link CommandInvoker#query}; anything else as {@link #submit}. */
    @Override
    public CompletableFuture<ZkReply> query(VoleryCommand read) {
        if (!read.isQuery()) {
            return submit(read);
        }
        byte[] bytes;
        try {
            bytes = encode(read);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return invoker.query(ByteBuffer.wrap(bytes)).thenApply(ZkReply::decode);
    }

    /** A lane whose reads that set no watch go as queries where the connection's order allows (see the class comment). */
    @Override
    public Lane lane(EventLoop loop, ReadListener reads) {
        return new GatedLane(new ReadWriteGate(loop, invoker), reads);
    }

    private byte[] encode(VoleryCommand command) {
        return command.withTime(clockMillis.getAsLong()).encode();
    }

    /**
     * One connection's lane: its commands through a {@link ReadWriteGate}, each on the stream of its
     * destination set. Its connection's event loop only.
     */
    private final class GatedLane implements Lane {
        private final ReadWriteGate gate;
        private final ReadListener reads;

        GatedLane(ReadWriteGate gate, ReadListener reads) {
            this.gate = gate;
            this.reads = Objects.requireNonNull(reads, "reads");
        }

        @Override
        public CompletableFuture<ZkReply> submit(VoleryCommand command) {
            ByteBuffer bytes;
            try {
                bytes = ByteBuffer.wrap(encode(command));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            CompletableFuture<ZkReply> reply = new CompletableFuture<>();
            Consumer<Object> done = outcome -> {
                if (outcome instanceof Throwable t) {
                    reply.completeExceptionally(t);
                    return;
                }
                try {
                    reply.complete(ZkReply.decode((ByteBuffer) outcome));
                } catch (RuntimeException e) {
                    reply.completeExceptionally(e);
                }
            };
            if (command.isQuery()) {
                reads.sent(gate.read(bytes, done));
            } else {
                gate.write(bytes, done);
            }
            return reply;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> CompletableFuture<T> order(Supplier<CompletableFuture<T>> operation) {
            CompletableFuture<T> result = new CompletableFuture<>();
            gate.order(operation, outcome -> {
                if (outcome instanceof Throwable t) {
                    result.completeExceptionally(t);
                } else {
                    result.complete((T) outcome);
                }
            });
            return result;
        }
    }
}
