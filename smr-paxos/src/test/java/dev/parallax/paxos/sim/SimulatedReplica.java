package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimNode;
import dev.parallax.paxos.MultiPaxosCore;

import java.util.Map;

/**
 * What the simulation harness ({@link PaxosSimulation}, {@link LeaderWatch}, {@link AmnesiaPlan})
 * reads of a simulated replica, whatever protocol it runs: Multi-Paxos ({@link SimReplica}) or
 * S-Paxos ({@link SPaxosSimReplica}, whose ids are ordered by a Multi-Paxos core too). Owned by the
 * simulation thread.
 */
interface SimulatedReplica extends SimNode<Object> {
    /** The Multi-Paxos core that orders (leader, view, amnesia recovery). */
    MultiPaxosCore ordering();

    /** The next instance this replica executes: equal at every replica once they converged. */
    long applied();

    /** Whether nothing decided is held back here (S-Paxos: no instance waits for a body). */
    default boolean settled() {
        return true;
    }

    /** The state machine's data. */
    Map<String, String> state();
}
