package dev.parallax.core.testkit;

import dev.parallax.core.log.memory.InMemoryDurableLog;

import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * The crash half of a {@link Simulation}'s process-fault model, and the node lifecycle it acts on:
 * starting an incarnation (a fresh {@link SimNode} over what its durable storage kept, with its
 * own {@link SimContext}) and its periodic ticks, crashing it (its volatile state and group
 * memberships are dropped; its storage keeps every synced record and a random number of the
 * unsynced ones after them, as a disk would), restarting it, and crashing every replica at once
 * with a random downtime each. Pauses are {@link PauseModel}'s.
 *
 * <p>Random draws: a start draws its first tick's phase; a crash draws how many unsynced records
 * survive; a crash-all draws each replica's downtime right after crashing it, in id order. Not
 * thread-safe: only the simulation's single thread uses it.
 */
final class NodeProcesses<M> {
    private final NodeTable<M> nodes;
    private final EventLoop loop;
    private final SimulationStats stats;
    private final SplittableRandom random;
    private final Supplier<FaultPlan> plan;
    private final MessageNetwork<M> network;
    private final DatagramGroups<M> datagrams;

    NodeProcesses(NodeTable<M> nodes, EventLoop loop, SimulationStats stats, SplittableRandom random,
                  Supplier<FaultPlan> plan, MessageNetwork<M> network, DatagramGroups<M> datagrams) {
        this.nodes = nodes;
        this.loop = loop;
        this.stats = stats;
        this.random = random;
        this.plan = plan;
        this.network = network;
        this.datagrams = datagrams;
    }

    /** Adds a node and starts it now. @throws IllegalArgumentException if the id is taken */
    void add(int id, NodeFactory<M> factory, boolean crashable) {
        start(nodes.add(id, factory, crashable));
    }

    /** Crashes node {@code id} now (no-op if down). */
    void crash(int id) {
        NodeSlot<M> s = nodes.slot(id);
        if (s.node == null) {
            return;
        }
        s.node = null;
        s.incarnation++;
        s.clearPause();
        datagrams.leaveAll(id);
        s.storage.crash(random.nextInt(s.storage.unsyncedCount() + 1));
        stats.crashes++;
        loop.record("crash " + id);
    }

    /** Restarts node {@code id} now (no-op if up). */
    void restart(int id) {
        NodeSlot<M> s = nodes.slot(id);
        if (s.node != null || s.retired) {
            return;
        }
        stats.restarts++;
        start(s);
    }

    /** Crashes node {@code id} now and never restarts it (its disk died; no-op if already retired). */
    void retire(int id) {
        NodeSlot<M> s = nodes.slot(id);
        if (s.retired) {
            return;
        }
        crash(id);
        s.retired = true;
        loop.record("retire " + id);
    }

    /** Restarts every crashed node (except retired ones), in id order. */
    void restartAllDown() {
        for (NodeSlot<M> s : nodes.all()) {
            if (s.node == null) {
                restart(s.id);
            }
        }
    }

    /** Crashes every up crashable node now and schedules each one's restart after its own downtime. */
    void crashAll(long minDowntime, long maxDowntime) {
        if (minDowntime < 0 || maxDowntime < minDowntime) {
            throw new IllegalArgumentException("need 0 <= minDowntime <= maxDowntime");
        }
        stats.crashAlls++;
        loop.record("crash all");
        for (NodeSlot<M> s : nodes.all()) {
            if (s.crashable && s.node != null) {
                crash(s.id);
                long downtime = minDowntime + random.nextLong(maxDowntime - minDowntime + 1);
                int id = s.id;
                loop.schedule(downtime, "restart " + id + " after crash-all", () -> restart(id));
            }
        }
    }

    private void start(NodeSlot<M> s) {
        int incarnation = s.incarnation;
        SimContext<M> ctx = new SimContext<>(s, incarnation, loop.clock(), network, datagrams);
        s.log = InMemoryDurableLog.open(s.storage);
        s.node = s.factory.create(ctx);
        loop.record("start " + s.id + "#" + incarnation);
        s.node.onStart();
        scheduleTick(s, incarnation, random.nextLong(plan.get().tickInterval()) + 1);
    }

    private void scheduleTick(NodeSlot<M> s, int incarnation, long delay) {
        loop.push(new SimEvent(loop.now() + delay) {
            @Override
            String describe() {
                return s.node != null && s.incarnation == incarnation && !s.paused ? "tick " + s.id : null;
            }

            @Override
            void run() {
                if (s.node != null && s.incarnation == incarnation) {
                    if (!s.paused) {
                        s.node.onTick();
                    }
                    scheduleTick(s, incarnation, plan.get().tickInterval());
                }
            }
        });
    }
}
