package dev.parallax.core.testkit;

import dev.parallax.core.log.memory.InMemoryDurableLog;

import java.util.ArrayList;
import java.util.List;

/**
 * One node id of a {@link Simulation} across its incarnations: how to create it, whether the
 * nemesis may crash and partition it, its durable storage (which survives crashes), the running
 * incarnation ({@code node}, {@code null} while down) and its pause state with the arrivals queued
 * and the departures held while paused.
 *
 * <p>A plain mutable record of state. Not thread-safe: only the simulation's single thread reads
 * and writes it.
 */
final class NodeSlot<M> {
    final int id;
    final NodeFactory<M> factory;
    final boolean crashable;
    final InMemoryDurableLog.Storage storage = new InMemoryDurableLog.Storage();
    InMemoryDurableLog log;
    SimNode<M> node;
    int incarnation;
    /** Frozen by a pause: no ticks, arrivals queued in {@link #inbox}, departures held in {@link #outbox}. */
    boolean paused;
    /** Retired for good (a replica whose disk died and that a new one replaced): never restarted. */
    boolean retired;
    int pauseEpoch;
    final List<Runnable> inbox = new ArrayList<>();
    final List<Runnable> outbox = new ArrayList<>();

    NodeSlot(int id, NodeFactory<M> factory, boolean crashable) {
        this.id = id;
        this.factory = factory;
        this.crashable = crashable;
    }

    /** A crash ends a pause; what it queued and held is lost with the process. */
    void clearPause() {
        paused = false;
        inbox.clear();
        outbox.clear();
    }
}
