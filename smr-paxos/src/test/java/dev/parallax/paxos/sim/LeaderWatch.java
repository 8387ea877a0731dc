package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.Simulation;
import dev.parallax.paxos.MultiPaxosCore;

import java.util.HashSet;
import java.util.Set;

/**
 * Who leads a simulated Multi-Paxos cluster (or the ordering layer of an S-Paxos one), for the leader-hunting nemesis, and how often
 * leadership changed: a view change is counted when some replica finishes Phase 1 of a view
 * other than the initial view 0. Owned by the simulation thread.
 */
final class LeaderWatch {
    private final Simulation<Object> sim;
    private final Set<Long> ledViews = new HashSet<>();
    private int[] ids;

    LeaderWatch(Simulation<Object> sim, int replicas) {
        this.sim = sim;
        this.ids = java.util.stream.IntStream.range(0, replicas).toArray();
    }

    /** The up replica that leads the highest view (it finished Phase 1), or -1 if none leads. */
    int currentLeader() {
        int leader = -1;
        long view = -1;
        for (int r : replicaIds()) {
            if (sim.isUp(r)) {
                MultiPaxosCore rep = sim.<SimulatedReplica>node(r).ordering();
                if (rep.isLeader() && rep.view() > view) {
                    view = rep.view();
                    leader = r;
                }
            }
        }
        return leader;
    }

    /** Notes views that gained a leader; run it after every event. */
    void observe() {
        for (int r : replicaIds()) {
            if (sim.isUp(r)) {
                MultiPaxosCore rep = sim.<SimulatedReplica>node(r).ordering();
                if (rep.isLeader()) {
                    ledViews.add(rep.view());
                }
            }
        }
    }

    /** Replicas {@code 0 .. n-1}, and any replica a membership change added since ({@link #added}). */
    int[] replicaIds() {
        return ids;
    }

    /** A membership change brought replica {@code id} in: watch it too. */
    void added(int id) {
        ids = java.util.Arrays.copyOf(ids, ids.length + 1);
        ids[ids.length - 1] = id;
    }

    /** Views other than the initial one in which a leader finished Phase 1. */
    long viewChanges() {
        return ledViews.stream().filter(v -> v != 0).count();
    }
}
