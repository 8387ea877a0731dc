package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.smr.AmnesiaPlan;
import dev.parallax.core.testkit.smr.SmrNode;
import dev.parallax.paxos.MultiPaxosCore;

/**
 * What the simulation harness ({@link PaxosSimulation}, {@link LeaderWatch}, {@link AmnesiaPlan})
 * reads of a simulated replica, whatever protocol it runs: Multi-Paxos ({@link SimReplica}) or
 * S-Paxos ({@link SPaxosSimReplica}, whose ids are ordered by a Multi-Paxos core too). Owned by the
 * simulation thread.
 */
interface SimulatedReplica extends SmrNode {
    /** The Multi-Paxos core that orders (leader, view, amnesia recovery). */
    MultiPaxosCore ordering();

    /**
     * Whether the replica still recovers from amnesia (the core's {@code recovering()}): the
     * ordering layer's recovery, and for S-Paxos dissemination's too ({@link AmnesiaPlan} crashes
     * nobody meanwhile).
     */
    @Override
    default boolean recovering() {
        return ordering().recovering();
    }
}
