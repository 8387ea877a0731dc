package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.Simulation;
import dev.parallax.ringpaxos.RingPaxosCore;

import java.util.HashSet;
import java.util.Set;

/**
 * Who coordinates a simulated Ring Paxos cluster, for the coordinator-hunting nemesis, and how often
 * the round changed: a round change is counted when some member finishes Phase 1 of a round other
 * than round 0 (a coordinator change or a ring re-formation). Owned by the simulation
 * thread.
 */
final class CoordinatorWatch {
    private final Simulation<Object> sim;
    /** The members watched: the first n, and every one added later ({@link #added}). */
    private final java.util.List<Integer> ids = new java.util.ArrayList<>();
    private final Set<Long> ledRounds = new HashSet<>();

    CoordinatorWatch(Simulation<Object> sim, int replicas) {
        this.sim = sim;
        for (int r = 0; r < replicas; r++) {
            ids.add(r);
        }
    }

    /** A member joined the run (a membership change's new replica): watch it too. */
    void added(int id) {
        ids.add(id);
    }

    /** Every member watched, in the order they joined. */
    java.util.List<Integer> ids() {
        return java.util.Collections.unmodifiableList(ids);
    }

    /** The up member that coordinates the highest round (it finished Phase 1), or -1 if none does. */
    int current() {
        int coordinator = -1;
        long round = -1;
        for (int r : ids) {
            RingPaxosCore core = coreOf(r);
            if (core != null && core.isCoordinator() && core.round() > round) {
                round = core.round();
                coordinator = r;
            }
        }
        return coordinator;
    }

    /** Notes rounds that gained a coordinator; run it after every event. */
    void observe() {
        for (int r : ids) {
            RingPaxosCore core = coreOf(r);
            if (core != null && core.isCoordinator()) {
                ledRounds.add(core.round());
            }
        }
    }

    /** Rounds other than round 0 in which a coordinator finished Phase 1. */
    long roundChanges() {
        return ledRounds.stream().filter(v -> v != 0).count();
    }

    private RingPaxosCore coreOf(int r) {
        if (!sim.isUp(r)) {
            return null;
        }
        return sim.<RingSimReplica>node(r).core();
    }
}
