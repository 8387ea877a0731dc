package dev.parallax.core.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The fault-plan driver of a {@link Simulation}: at random intervals (uniform in (0, twice the
 * plan's nemesis interval]) it takes one action against the crashable nodes. If process faults are
 * on, the action may first be a crash-all or a pause; if a leader oracle is set, a share of the
 * actions then crash or isolate the named leader; otherwise it picks uniformly among a network fault
 * (a two-sided partition, or with the plan's partial partitions a one-way cut or a bridge) or a heal
 * when the network is already cut, a crash while the crash budget allows, and a restart of a
 * crashed node. It stops for good when {@link #stop} is called or the plan's interval becomes zero.
 *
 * <p>Every choice is drawn from the simulation's one random source, and an option that is off draws
 * nothing (no process faults, no leader oracle, no partial partitions), so a run without it replays
 * as before the option existed. Not thread-safe: runs as events of the simulation's loop, on its
 * single thread.
 */
final class Nemesis<M> {
    private final NodeTable<M> nodes;
    private final EventLoop loop;
    private final SimulationStats stats;
    private final SplittableRandom random;
    private final Supplier<FaultPlan> plan;
    private final LinkFaults<M> links;
    private final PauseModel<M> pauses;
    private final NodeProcesses<M> processes;
    private boolean nemesisOn;
    private IntSupplier leaderOracle;
    private double leaderShare;
    private ProcessFaults processFaults;

    Nemesis(NodeTable<M> nodes, EventLoop loop, SimulationStats stats, SplittableRandom random,
            Supplier<FaultPlan> plan, LinkFaults<M> links, PauseModel<M> pauses, NodeProcesses<M> processes) {
        this.nodes = nodes;
        this.loop = loop;
        this.stats = stats;
        this.random = random;
        this.plan = plan;
        this.links = links;
        this.pauses = pauses;
        this.processes = processes;
    }

    /** Turns the nemesis on and schedules its first action. */
    void start() {
        nemesisOn = true;
        scheduleNemesis();
    }

    /** Stops the nemesis for good: its next scheduled action does nothing and schedules no other. */
    void stop() {
        nemesisOn = false;
    }

    /** Hunts the leader {@code currentLeader} names in a {@code share} of the actions. */
    void targetLeader(IntSupplier currentLeader, double share) {
        this.leaderOracle = currentLeader;
        this.leaderShare = share;
    }

    /** Pauses and crash-alls as {@code faults} says; {@code null} turns them off. */
    void processFaults(ProcessFaults faults) {
        this.processFaults = faults;
    }

    private void scheduleNemesis() {
        loop.push(new SimEvent(loop.now() + 1 + random.nextLong(2 * plan.get().nemesisInterval())) {
            @Override
            String describe() {
                return null;
            }

            @Override
            void run() {
                if (nemesisOn && plan.get().nemesisInterval() > 0) {
                    nemesisAction();
                    scheduleNemesis();
                }
            }
        });
    }

    private void nemesisAction() {
        List<NodeSlot<M>> up = new ArrayList<>();
        List<NodeSlot<M>> down = new ArrayList<>();
        for (NodeSlot<M> s : nodes.all()) {
            if (s.crashable) {
                (s.node == null ? down : up).add(s);
            }
        }
        if (processFaults != null && processFault(up)) {
            return;
        }
        if (leaderOracle != null && random.nextDouble() < leaderShare && hitLeader(down.size())) {
            return;
        }
        FaultPlan plan = this.plan.get();
        List<Runnable> choices = new ArrayList<>();
        if (plan.partitions() && up.size() + down.size() > 1) {
            choices.add(links.intact() ? this::randomNetworkFault : links::heal);
        }
        if (down.size() < plan.maxCrashed() && !up.isEmpty()) {
            choices.add(() -> processes.crash(up.get(random.nextInt(up.size())).id));
        }
        if (!down.isEmpty()) {
            choices.add(() -> processes.restart(down.get(random.nextInt(down.size())).id));
        }
        if (!choices.isEmpty()) {
            choices.get(random.nextInt(choices.size())).run();
        }
    }

    /** Crashes or isolates the current leader, if there is one the plan lets us hit; whether it did. */
    private boolean hitLeader(int downCount) {
        int leader = leaderOracle.getAsInt();
        NodeSlot<M> s = leader < 0 ? null : nodes.find(leader);
        if (s == null || !s.crashable || s.node == null) {
            return false;
        }
        FaultPlan plan = this.plan.get();
        boolean canCrash = downCount < plan.maxCrashed();
        boolean canIsolate = plan.partitions() && nodes.all().stream().filter(x -> x.crashable).count() > 1;
        if (canCrash && (!canIsolate || random.nextBoolean())) {
            loop.record("nemesis: crash leader " + leader);
            processes.crash(leader);
            stats.leaderCrashes++;
            return true;
        }
        if (canIsolate) {
            if (plan.partialPartitions() && partialPartitionOf(leader)) {
                stats.leaderPartialCuts++;
                return true;
            }
            loop.record("nemesis: isolate leader " + leader);
            links.partition(Set.of(leader));
            stats.leaderIsolations++;
            return true;
        }
        return false;
    }

    /** The nemesis' network fault: a two-sided partition or, if the plan has them, a partial one. */
    private void randomNetworkFault() {
        if (!plan.get().partialPartitions() || !partialPartitionOf(-1)) {
            randomPartition();
        }
    }

    /**
     * With probability 3/4, a partial partition aimed at {@code target} (any node if negative):
     * its inbound or its outbound links cut one way, or a bridge that cuts it from part of the
     * others; returns false (drawing nothing more) for the remaining quarter, where the caller
     * makes a two-sided partition. A bridge needs three crashable nodes; with two, the draw falls
     * back to a one-way cut.
     */
    private boolean partialPartitionOf(int target) {
        List<Integer> ids = nodes.crashableIds();
        int shape = random.nextInt(4);
        if (shape == 0) {
            return false;
        }
        int node = target >= 0 ? target : ids.get(random.nextInt(ids.size()));
        if (shape == 3 && ids.size() >= 3) {
            // The bridge: one other node reaching both sides; the rest split with the target on side A.
            List<Integer> others = new ArrayList<>(ids);
            others.remove(Integer.valueOf(node));
            int bridgeNode = others.remove(random.nextInt(others.size()));
            Set<Integer> sideA = new TreeSet<>(Set.of(node));
            Set<Integer> sideB = new TreeSet<>();
            sideB.add(others.remove(random.nextInt(others.size())));
            for (int o : others) {
                (random.nextBoolean() ? sideA : sideB).add(o);
            }
            loop.record("nemesis: bridge " + sideA + " | " + sideB + " via " + bridgeNode);
            links.bridge(sideA, sideB);
        } else if (shape == 1) {
            loop.record("nemesis: cut inbound of " + node);
            links.cutInbound(node);
        } else {
            loop.record("nemesis: cut outbound of " + node);
            links.cutOutbound(node);
        }
        return true;
    }

    /** The {@link ProcessFaults} branch of a nemesis action: a crash-all or a pause; whether it did one. */
    private boolean processFault(List<NodeSlot<M>> up) {
        ProcessFaults pf = processFaults;
        double r = random.nextDouble();
        if (r < pf.crashAllShare()) {
            if (up.isEmpty()) {
                return false;
            }
            loop.record("nemesis: crash all");
            processes.crashAll(pf.minDowntime(), pf.maxDowntime());
            return true;
        }
        if (r >= pf.crashAllShare() + pf.pauseShare()) {
            return false;
        }
        List<NodeSlot<M>> running = new ArrayList<>();
        for (NodeSlot<M> s : up) {
            if (!s.paused) {
                running.add(s);
            }
        }
        if (running.isEmpty()) {
            return false;
        }
        NodeSlot<M> target = running.get(random.nextInt(running.size()));
        if (leaderOracle != null && random.nextBoolean()) {
            int leader = leaderOracle.getAsInt();
            NodeSlot<M> l = leader < 0 ? null : nodes.find(leader);
            if (l != null && running.contains(l)) {
                target = l;
            }
        }
        long duration = pf.minPause() + random.nextLong(pf.maxPause() - pf.minPause() + 1);
        loop.record("nemesis: pause " + target.id);
        pauses.pause(target.id, duration);
        return true;
    }

    private void randomPartition() {
        List<Integer> replicas = nodes.crashableIds();
        // A non-empty proper subset: pick a size, then that many distinct members.
        int size = 1 + random.nextInt(replicas.size() - 1);
        Set<Integer> side = new TreeSet<>();
        while (side.size() < size) {
            side.add(replicas.get(random.nextInt(replicas.size())));
        }
        links.partition(side);
    }
}
