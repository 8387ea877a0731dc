package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.smr.AmnesiaPlan;
import dev.parallax.core.testkit.smr.SmrNode;
import dev.parallax.paxos.MultiPaxosCore;
import dev.parallax.core.membership.MembershipChange;

/**
 * What the simulation harness ({@link PaxosSimulation}, {@link LeaderWatch}, {@link AmnesiaPlan})
 * reads of a simulated replica, whatever protocol it runs: Multi-Paxos ({@link SimReplica}) or
 * S-Paxos ({@link SPaxosSimReplica}, whose ids are ordered by a Multi-Paxos core too), and what
 * the {@link MembershipNemesis} asks of the leader. Owned by the simulation thread.
 */
interface SimulatedReplica extends SmrNode {
    /** The Multi-Paxos core that orders (leader, view, amnesia recovery, membership). */
    MultiPaxosCore ordering();

    /** Asks the ordering core to propose a membership change, effects applied; null if proposed, else why not. */
    String requestMembership(MembershipChange change);

    /** Asks the ordering core to hand leadership to {@code target}, effects applied; null if started. */
    String requestTransfer(int target);

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
