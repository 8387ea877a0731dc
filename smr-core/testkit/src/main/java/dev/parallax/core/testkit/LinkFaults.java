package dev.parallax.core.testkit;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The link-fault model of a {@link Simulation}: which directed links between crashable nodes are
 * cut now. A two-sided partition splits the crashable nodes (replicas) into two sides; partial
 * partitions cut single directed links, which one-way cuts of a node's inbound or outbound links
 * and bridges are made of. Nodes that are not crashable (clients) are never cut. The point-to-point
 * network and the datagram groups ask {@link #cut} when a message is sent and again when it
 * arrives.
 *
 * <p>Draws no random numbers (the nemesis draws the shapes). Not thread-safe: only the
 * simulation's single thread uses it.
 */
final class LinkFaults<M> {
    private final NodeTable<M> nodes;
    private final EventLoop loop;
    private final SimulationStats stats;
    private Map<Integer, Integer> partitionSide;
    /** Directed cut links, {@code from << 32 | to}: partial partitions. */
    private final Set<Long> cutLinks = new TreeSet<>();

    LinkFaults(NodeTable<M> nodes, EventLoop loop, SimulationStats stats) {
        this.nodes = nodes;
        this.loop = loop;
        this.stats = stats;
    }

    /** Cuts the network between {@code side} and the other crashable nodes. */
    void partition(Collection<Integer> side) {
        Map<Integer, Integer> sides = new TreeMap<>();
        for (NodeSlot<M> s : nodes.all()) {
            if (s.crashable) {
                sides.put(s.id, side.contains(s.id) ? 1 : 0);
            }
        }
        partitionSide = sides;
        stats.partitionsStarted++;
        loop.record("partition " + side);
    }

    /** Removes any partition, two-sided or partial. */
    void heal() {
        if (partitionSide != null || !cutLinks.isEmpty()) {
            partitionSide = null;
            cutLinks.clear();
            loop.record("heal");
        }
    }

    /** @throws IllegalArgumentException if either is unknown or not crashable, or they are the same */
    void cutLink(int from, int to) {
        if (from == to || !nodes.slot(from).crashable || !nodes.slot(to).crashable) {
            throw new IllegalArgumentException("can cut only a link between two distinct crashable nodes: "
                    + from + "->" + to);
        }
        cutLinks.add(link(from, to));
        loop.record("cut " + from + "->" + to);
    }

    /** Cuts every link into {@code node} from the other crashable nodes. */
    void cutInbound(int node) {
        for (int other : nodes.crashableIds()) {
            if (other != node) {
                cutLink(other, node);
            }
        }
        stats.oneWayCuts++;
    }

    /** Cuts every link out of {@code node} to the other crashable nodes. */
    void cutOutbound(int node) {
        for (int other : nodes.crashableIds()) {
            if (other != node) {
                cutLink(node, other);
            }
        }
        stats.oneWayCuts++;
    }

    /** @throws IllegalArgumentException if the sides are empty or overlap */
    void bridge(Collection<Integer> sideA, Collection<Integer> sideB) {
        if (sideA.isEmpty() || sideB.isEmpty() || sideA.stream().anyMatch(sideB::contains)) {
            throw new IllegalArgumentException("a bridge needs two disjoint non-empty sides: " + sideA + " " + sideB);
        }
        for (int a : sideA) {
            for (int b : sideB) {
                cutLink(a, b);
                cutLink(b, a);
            }
        }
        stats.bridges++;
    }

    /** Whether no partition, two-sided or partial, is active. */
    boolean intact() {
        return partitionSide == null && cutLinks.isEmpty();
    }

    /** Whether what {@code a} sends {@code b} is lost to a partition now (two-sided or a cut link). */
    boolean cut(NodeSlot<M> a, NodeSlot<M> b) {
        return partitionSide != null && a.crashable && b.crashable
                && side(a.id) != side(b.id)
                || !cutLinks.isEmpty() && cutLinks.contains(link(a.id, b.id));
    }

    /** The side of a two-sided partition {@code id} is on: a node added after the partition began is on the far side (0). */
    private int side(int id) {
        return partitionSide.getOrDefault(id, 0);
    }

    private static long link(int from, int to) {
        return ((long) from << 32) | (to & 0xffffffffL);
    }
}
