package dev.parallax.core.client;

import dev.parallax.core.WrongPartitions;
import dev.parallax.core.spi.CommandRouter;
import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The client of a partitioned service (seed 004 (S-SMR) §IV Alg. 1 l.4-7): asks the oracle for the
 * partitions a command touches ({@code dests}), sends it to a replica of one of them, and returns
 * that replica's reply (every involved partition executes the whole command and replies alike;
 * one reply is enough, §IV-C last bullet). If the oracle named too few partitions, the replicas
 * answer {@link WrongPartitions}; the command is then sent again to the wider set they named (none
 * of it executed), at most {@code maxRetries} times.
 *
 * <p>One invoker per partition talks to that partition's replicas (an {@link SmrClient} over them:
 * it follows the partition's leader and fails over between its replicas). The entry partition of
 * a command is a function of {@code dests} alone, so commands to one destination set go through one
 * invoker and keep their submission order (the per-stream FIFO of {@link CommandInvoker}); destination
 * sets are spread over their partitions by a hash.
 *
 * <p>Thread-safe if the partition invokers and the oracle are; never blocks. Closing closes the
 * partition invokers that are {@link AutoCloseable}.
 */
public final class PartitionedInvoker implements CommandInvoker, AutoCloseable {
    /** Default for how often a command is re-sent to a wider set. */
    public static final int DEFAULT_MAX_RETRIES = 2;

    private final List<? extends CommandInvoker> partitions;
    private final CommandRouter oracle;
    private final int maxRetries;

    /**
     * @param partitions invoker i sends to partition i's replicas (partition i = multicast group i)
     * @param oracle     the destinations of a command (a superset of the partitions it touches)
     * @param maxRetries how many times a command refused with {@link WrongPartitions} is re-sent, &gt;= 0
     */
    public PartitionedInvoker(List<? extends CommandInvoker> partitions, CommandRouter oracle, int maxRetries) {
        if (partitions.isEmpty() || partitions.size() > GroupSet.MAX_GROUP + 1) {
            throw new IllegalArgumentException("partitions must be 1.." + (GroupSet.MAX_GROUP + 1) + ", got " + partitions.size());
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must be >= 0, got " + maxRetries);
        }
        this.partitions = List.copyOf(partitions);
        this.oracle = Objects.requireNonNull(oracle, "oracle");
        this.maxRetries = maxRetries;
    }

    /** The partitions this invoker's service is split into. */
    public int partitions() {
        return partitions.size();
    }

    /** The partitions the oracle chooses for {@code command} (the default group if it cannot route it). */
    @Override
    public GroupSet stream(ByteBuffer command) {
        return streamOf(oracle, command);
    }

    /** {@code router}'s groups for {@code command}, or the default group if it throws or chooses none. */
    static GroupSet streamOf(CommandRouter router, ByteBuffer command) {
        try {
            GroupSet groups = router.route(command.asReadOnlyBuffer());
            return groups == null ? GroupSet.DEFAULT : groups;
        } catch (RuntimeException e) {
            return GroupSet.DEFAULT;
        }
    }

    /** Sends {@code command} to the partitions the oracle names. */
    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        return routed(command, false);
    }

    /**
     * The read-only {@code query}: one partition's (the oracle names one) is asked of that
     * partition's replicas outside the order ({@link CommandInvoker#query(GroupSet, ByteBuffer)}:
     * read-index at the replica, or ordered to the partition where it cannot be answered so);
     * one that touches several partitions is ordered like a command. On {@link WrongPartitions},
     * it is ordered to the wider set.
     */
    @Override
    public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
        return routed(query, true);
    }

    /** Asks the oracle for {@code command}'s partitions, then orders it there, or asks one partition's query. */
    private CompletableFuture<ByteBuffer> routed(ByteBuffer command, boolean query) {
        GroupSet dests;
        try {
            dests = oracle.route(command.asReadOnlyBuffer());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (dests == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("the oracle chose no partition"));
        }
        ByteBuffer copy = ByteBuffer.allocate(command.remaining()).put(command.duplicate()).flip();
        return attempt(dests, copy, maxRetries, query && dests.size() == 1);
    }

    /**
     * Sends {@code command} to {@code dests} through a replica of one of them; on
     * {@link WrongPartitions}, again to the wider set.
     *
     * @throws IllegalArgumentException (in the future) if {@code dests} names a partition this
     *                                  invoker does not have
     */
    @Override
    public CompletableFuture<ByteBuffer> invoke(GroupSet dests, ByteBuffer command) {
        ByteBuffer copy = ByteBuffer.allocate(command.remaining()).put(command.duplicate()).flip();
        return attempt(dests, copy, maxRetries, false);
    }

    private CompletableFuture<ByteBuffer> attempt(GroupSet dests, ByteBuffer command, int retriesLeft, boolean query) {
        if (Long.numberOfTrailingZeros(Long.highestOneBit(dests.bits())) >= partitions.size()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "destinations " + dests + " name a partition beyond the " + partitions.size() + " this client has"));
        }
        CommandInvoker entry = partitions.get(entryPartition(dests));
        CompletableFuture<ByteBuffer> reply = query ? entry.query(dests, command.duplicate())
                : entry.invoke(dests, command.duplicate());
        if (retriesLeft == 0) {
            return reply;
        }
        return reply.handle((r, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(r);
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            Optional<GroupSet> needed = cause instanceof CommandRejectedException ? WrongPartitions.parse(cause.getMessage())
                    : Optional.empty();
            if (needed.isEmpty() || (needed.get().bits() & ~dests.bits()) == 0) {
                return CompletableFuture.<ByteBuffer>failedFuture(cause);
            }
            return attempt(GroupSet.ofBits(dests.bits() | needed.get().bits()), command, retriesLeft - 1, false);
        }).thenCompose(f -> f);
    }

    /** The partition whose replicas take commands to {@code dests}: one of them, fixed per set. */
    int entryPartition(GroupSet dests) {
        int size = dests.size();
        if (size == 1) {
            return dests.first();
        }
        int pick = Math.floorMod(Long.hashCode(dests.bits() * 0x9E3779B97F4A7C15L), size);
        int p = dests.first();
        for (int i = 0; i < pick; i++) {
            p = dests.next(p);
        }
        return p;
    }

    @Override
    public void close() {
        for (CommandInvoker p : partitions) {
            if (p instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    // closing the others matters more; SmrClient.close does not throw
                }
            }
        }
    }
}
