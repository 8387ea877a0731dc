package dev.parallax.core.testkit;

import dev.parallax.core.log.memory.InMemoryDurableLog;

/**
 * What a {@link SimNode} sees of the simulated world. Valid for one incarnation of the node: after
 * a crash, the restarted node gets a new context.
 *
 * <p>Use only from the simulator's thread, inside the node's callbacks.
 */
public interface NodeContext<M> {

    /** This node's id. */
    int id();

    /** Virtual time in nanoseconds. */
    long now();

    /** Sends a message through the simulated network (it may be lost, duplicated, delayed). */
    void send(int to, M message);

    /**
     * Joins datagram group {@code group}: from now on this node receives the datagrams
     * sent to it (through {@link SimNode#onDatagram}). Membership belongs to this incarnation, as
     * an IP multicast membership belongs to a socket: a crash ends it and the restarted node must
     * join again. Joining twice is a no-op.
     */
    void joinGroup(int group);

    /** Leaves datagram group {@code group}; datagrams still in flight to this node are not delivered. No-op if not a member. */
    void leaveGroup(int group);

    /**
     * Sends {@code message} as one datagram to every current member of {@code group} (this node too,
     * if it is a member; that loopback copy arrives at once and is never lost, like a send to
     * oneself). Each other member independently loses, duplicates or delays its copy by the fault
     * plan's {@link DatagramPlan}; members across a partition or down get nothing. The sender need
     * not be a member.
     *
     * @return {@code false} if the datagram was refused because it is larger than
     *         {@link DatagramPlan#maxPacketSize()} (nothing was sent; counted in
     *         {@link SimulationStats#datagramsRefused()}) or this context's incarnation has crashed;
     *         {@code true} otherwise, even if every copy is lost
     */
    boolean sendDatagram(int group, M message);

    /** This node's durable log: survives crashes with the {@link dev.parallax.core.spi.DurableLog} guarantees. */
    InMemoryDurableLog log();

    /** How many times this node has been restarted (0 on first start). */
    int incarnation();
}
