package dev.parallax.core.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The {@link NodeSlot}s of a {@link Simulation}, by id. Iteration is in id order, so everything
 * that walks the nodes (the nemesis' choices, crash-all, heal) does so in the same order on every
 * replay.
 *
 * <p>Not thread-safe: only the simulation's single thread uses it.
 */
final class NodeTable<M> {
    /** Ids below this are also found through {@link #direct}, without boxing or a tree walk. */
    private static final int DIRECT_IDS = 4096;

    private final Map<Integer, NodeSlot<M>> slots = new TreeMap<>();
    /** {@code direct[id]} is node {@code id}'s slot for small ids (looked up on every message). */
    private NodeSlot<M>[] direct = newSlots(16);

    /** @throws IllegalArgumentException if the id is taken */
    NodeSlot<M> add(int id, NodeFactory<M> factory, boolean crashable) {
        if (slots.containsKey(id)) {
            throw new IllegalArgumentException("node " + id + " exists");
        }
        NodeSlot<M> s = new NodeSlot<>(id, factory, crashable);
        slots.put(id, s);
        if (id >= 0 && id < DIRECT_IDS) {
            if (id >= direct.length) {
                direct = Arrays.copyOf(direct, Math.min(DIRECT_IDS, Math.max(id + 1, direct.length * 2)));
            }
            direct[id] = s;
        }
        return s;
    }

    /** @throws IllegalArgumentException if there is no node {@code id} */
    NodeSlot<M> slot(int id) {
        NodeSlot<M> s = find(id);
        if (s == null) {
            throw new IllegalArgumentException("no node " + id);
        }
        return s;
    }

    /** Node {@code id}'s slot, or {@code null} if there is none. */
    NodeSlot<M> find(int id) {
        if (id >= 0 && id < DIRECT_IDS) {
            return id < direct.length ? direct[id] : null;
        }
        return slots.get(id);
    }

    @SuppressWarnings("unchecked")
    private static <M> NodeSlot<M>[] newSlots(int size) {
        return (NodeSlot<M>[]) new NodeSlot<?>[size];
    }

    /** Every slot, in id order (a live view). */
    Collection<NodeSlot<M>> all() {
        return slots.values();
    }

    /** Ids of every node, in order (a copy). */
    Set<Integer> ids() {
        return new TreeSet<>(slots.keySet());
    }

    /** Ids of the crashable nodes (replicas) not retired, in order. */
    List<Integer> crashableIds() {
        List<Integer> ids = new ArrayList<>();
        for (NodeSlot<M> s : slots.values()) {
            if (s.crashable && !s.retired) {
                ids.add(s.id);
            }
        }
        return ids;
    }
}
