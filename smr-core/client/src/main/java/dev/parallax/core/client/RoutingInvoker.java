package dev.parallax.core.client;

import dev.parallax.core.spi.CommandRouter;
import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link CommandInvoker} that addresses every plain {@link #invoke(ByteBuffer)} by a
 * {@link CommandRouter}: {@code invoke(cmd)} is {@code delegate.invoke(router.route(cmd), cmd)}. So an
 * application written against the single-group invoker runs unchanged over a multi-group ordering
 * (Multi-Ring Paxos). An explicit {@link #invoke(GroupSet, ByteBuffer)} goes to the delegate as it is;
 * a {@link #query} is routed alike and asked outside the order where the replica can.
 *
 * <p>Thread-safe if the delegate and the router are; never blocks. A router that throws, or returns
 * null, fails that command's future (with its exception, or an {@link IllegalArgumentException}) and
 * nothing is sent.
 */
public final class RoutingInvoker implements CommandInvoker {
    private final CommandInvoker delegate;
    private final CommandRouter router;

    /**
     * @param delegate sends the addressed commands (usually an {@code SmrClient})
     * @param router   addresses them
     */
    public RoutingInvoker(CommandInvoker delegate, CommandRouter router) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.router = Objects.requireNonNull(router, "router");
    }

    /** Routes {@code command} and sends it to the groups the router chose. */
    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        return routed(command, false);
    }

    /**
     * Routes {@code query} and asks it of the delegate's replica outside the order
     * ({@link CommandInvoker#query(GroupSet, ByteBuffer)}: the replica merges every group), ordered
     * to the groups the router chose where it cannot be answered so.
     */
    @Override
    public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
        return routed(query, true);
    }

    private CompletableFuture<ByteBuffer> routed(ByteBuffer command, boolean query) {
        GroupSet groups;
        try {
            groups = router.route(command.asReadOnlyBuffer());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (groups == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("the command router chose no group"));
        }
        return query ? delegate.query(groups, command) : delegate.invoke(groups, command);
    }

    /** The groups the router chooses for {@code command} (the default group if it cannot route it). */
    @Override
    public GroupSet stream(ByteBuffer command) {
        return PartitionedInvoker.streamOf(router, command);
    }

    /** Sends {@code command} to {@code groups}, as the delegate does. */
    @Override
    public CompletableFuture<ByteBuffer> invoke(GroupSet groups, ByteBuffer command) {
        return delegate.invoke(groups, command);
    }

    /** The router this invoker addresses commands with. */
    public CommandRouter router() {
        return router;
    }
}
