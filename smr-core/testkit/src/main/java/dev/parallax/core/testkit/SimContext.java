package dev.parallax.core.testkit;

import dev.parallax.core.log.memory.InMemoryDurableLog;

/**
 * The {@link NodeContext} of one incarnation of a simulated node: sends go to the point-to-point
 * network and the datagram groups while that incarnation is up, and do nothing once it has crashed
 * (a stale context of a previous incarnation cannot reach the world).
 *
 * <p>Not thread-safe: used only on the simulation's single thread, inside the node's callbacks.
 */
final class SimContext<M> implements NodeContext<M> {
    private final NodeSlot<M> slot;
    private final int incarnation;
    private final VirtualClock clock;
    private final MessageNetwork<M> network;
    private final DatagramGroups<M> datagrams;

    SimContext(NodeSlot<M> slot, int incarnation, VirtualClock clock, MessageNetwork<M> network,
               DatagramGroups<M> datagrams) {
        this.slot = slot;
        this.incarnation = incarnation;
        this.clock = clock;
        this.network = network;
        this.datagrams = datagrams;
    }

    @Override
    public int id() {
        return slot.id;
    }

    @Override
    public long now() {
        return clock.nanoTime();
    }

    @Override
    public void send(int to, M message) {
        if (slot.incarnation == incarnation && slot.node != null) {
            network.send(slot, to, message);
        }
    }

    @Override
    public void joinGroup(int group) {
        if (live()) {
            datagrams.join(slot, group);
        }
    }

    @Override
    public void leaveGroup(int group) {
        if (live()) {
            datagrams.leave(slot, group);
        }
    }

    @Override
    public boolean sendDatagram(int group, M message) {
        return live() && datagrams.send(slot, group, message);
    }

    private boolean live() {
        return slot.incarnation == incarnation && slot.node != null;
    }

    @Override
    public InMemoryDurableLog log() {
        return slot.log;
    }

    @Override
    public int incarnation() {
        return incarnation;
    }
}
