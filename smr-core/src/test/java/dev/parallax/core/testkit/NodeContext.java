package dev.parallax.core.testkit;

import dev.parallax.core.log.InMemoryDurableLog;

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

    /** This node's durable log: survives crashes with the {@link dev.parallax.core.spi.DurableLog} guarantees. */
    InMemoryDurableLog log();

    /** How many times this node has been restarted (0 on first start). */
    int incarnation();
}
