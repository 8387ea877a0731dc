package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/**
 * Chooses the multicast groups a command goes to from its bytes (the KV example: the group of the
 * command's key, or every group its keys fall in). With an ordering protocol that orders each group
 * in a stream of its own (Multi-Ring Paxos, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2)
 * commands to different single groups are ordered in parallel, while a command to several groups
 * goes through the global stream.
 *
 * <p>Thread-safe: called by any thread that invokes commands; must not block, and must not move the
 * buffer's position or limit (read with absolute gets, or from a duplicate). A router that cannot
 * classify a command throws {@link IllegalArgumentException}; {@code dev.parallax.core.client.RoutingInvoker} fails that
 * command's future with it.
 */
@FunctionalInterface
public interface CommandRouter {

    /**
     * @param command the command bytes, position to limit
     * @return the non-empty group set the command must be delivered to
     */
    GroupSet route(ByteBuffer command);
}
