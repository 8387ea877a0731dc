package dev.parallax.core.client;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Something that executes commands on a replicated state machine and returns their replies:
 * the {@code SmrClient}, or an in-process stand-in in tests.
 *
 * <p>Thread-safe; {@link #invoke} never blocks (it may return an already failed future).
 */
@FunctionalInterface
public interface CommandInvoker {

    /**
     * Submits one command to the {@link GroupSet#DEFAULT default group}. Commands submitted by one
     * invoker to one stream (group set) are executed in submission order (each exactly once, even
     * across retries and leader changes).
     *
     * @param command the command bytes (position to limit); copied before the call returns
     * @return the reply; completes exceptionally with {@link CommandRejectedException} if the state
     *         machine rejected the command, {@link OutcomeUnknownException} (a subtype of
     *         {@link ClusterUnavailableException}) if it was sent but not answered in time (it may
     *         or may not have executed), {@link ClusterUnavailableException} if it was not sent in
     *         time (it did not execute), or {@link IllegalStateException} once the invoker is closed
     */
    CompletableFuture<ByteBuffer> invoke(ByteBuffer command);

    /**
     * The stream {@code command} travels on through {@link #invoke}: the group set it is sent to.
     * Submission order is kept within a stream and only there (commands to different group sets
     * travel different rings of an atomic multicast, which may deliver them in either order), so a
     * caller that must keep one connection's commands in order across streams waits for the
     * commands in flight on one stream before it sends on another (the examples' ReadWriteGate).
     * Never throws: a command the invoker cannot route is on the default stream (its invoke then
     * fails). The default: every command on the default group's one stream.
     */
    default GroupSet stream(ByteBuffer command) {
        return GroupSet.DEFAULT;
    }

    /**
     * Submits one command to the multicast groups {@code groups}: its destination and its stream.
     * Commands to one group set are executed in submission order, each exactly once; commands to
     * different sets are ordered only as the ordering protocol orders them (not by submission).
     *
     * <p>The default implementation serves invokers of single-group systems: it sends the default
     * group's commands through {@link #invoke(ByteBuffer)} and fails any other set with
     * {@link IllegalArgumentException} (the system it talks to has one group).
     *
     * @param groups  where the command must be delivered
     * @param command the command bytes (position to limit); copied before the call returns
     * @return the reply, failing as {@link #invoke(ByteBuffer)}'s does
     */
    default CompletableFuture<ByteBuffer> invoke(GroupSet groups, ByteBuffer command) {
        if (groups.isDefault()) {
            return invoke(command);
        }
        return CompletableFuture.failedFuture(new IllegalArgumentException(
                getClass().getSimpleName() + " sends commands to the default group only, not to " + groups));
    }

    /**
     * Submits a read-only query to the default group, answered outside the order where the system
     * can (read-index: linearizable, on any replica), else ordered as a command. The default orders
     * it: {@link #invoke(ByteBuffer)}. A query has no place among the invoker's commands: one
     * submitted while commands are in flight may or may not see them.
     *
     * @param query the query bytes, also valid as a command (position to limit); copied before the call returns
     * @return the reply, failing as {@link #invoke(ByteBuffer)}'s does
     */
    default CompletableFuture<ByteBuffer> query(ByteBuffer query) {
        return invoke(query);
    }

    /**
     * {@link #query(ByteBuffer)} for a query of {@code groups}' state: where it cannot be answered
     * outside the order it is ordered to {@code groups}. The default: the default group's query,
     * else {@link #invoke(GroupSet, ByteBuffer)}.
     */
    default CompletableFuture<ByteBuffer> query(GroupSet groups, ByteBuffer query) {
        return groups.isDefault() ? query(query) : invoke(groups, query);
    }
}
