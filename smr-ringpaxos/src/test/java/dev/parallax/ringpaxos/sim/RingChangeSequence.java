package dev.parallax.ringpaxos.sim;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.testkit.Simulation;
import dev.parallax.ringpaxos.RingPaxosCore;

import java.util.List;
import java.util.function.Consumer;

/**
 * One ring's part of a replica-level membership operation of {@link MultiRingMembershipNemesis}:
 * that ring's changes in order (add a learner, then promote it or let it replace a voter; or remove
 * a voter), each proposed at the ring's own coordinator ({@code RingPaxosCore#proposeMembership},
 * through {@link MultiRingProcess#requestMembership}) and retried every step until every live member
 * of the ring has it in effect, as an operator would; the rings of one operation move independently,
 * each one change at a time. When its last change is in effect it notes how far the ring had
 * decided then ({@link #settledFrom}): a replaced process is retired only once every remaining
 * member of every ring delivered that far ({@link #deliveredBy}).
 *
 * <p>Owned by the simulation thread.
 */
final class RingChangeSequence {
    /**
     * How long a proposed change may take to be in effect everywhere before it is proposed again
     * (at once if the ring's coordinator changed meanwhile: the change may have been lost with it).
     */
    static final long RETRY = 40 * MultiRingMembershipNemesis.STEP;

    private final Simulation<Object> sim;
    private final MultiRingSimulation.World world;
    private final int ring;
    private final List<MembershipChange> changes;
    private final Consumer<String> log;
    private int next;
    private long proposedAt = -1;
    /** When the current change was first proposed, -1 before. */
    private long firstProposedAt = -1;
    /** The round of the coordinator the current change was proposed at. */
    private long proposedIn = -1;
    private String lastRefusal;
    private long settledFrom = -1;

    /**
     * @param changes ring {@code ring}'s changes, in that ring's member ids, in order
     * @param log     where the sequence notes what it did (the nemesis' log)
     */
    RingChangeSequence(Simulation<Object> sim, MultiRingSimulation.World world, int ring, List<MembershipChange> changes,
                       Consumer<String> log) {
        this.sim = sim;
        this.world = world;
        this.ring = ring;
        this.changes = List.copyOf(changes);
        this.log = log;
    }

    /** Every change is in effect at every live member of the ring. */
    boolean done() {
        return next >= changes.size();
    }

    /**
     * Where the ring had decided when its last change was seen in effect (its coordinator's first
     * undecided instance, or the most advanced live member's without one); -1 before.
     */
    long settledFrom() {
        return settledFrom;
    }

    /** Takes the sequence one step: sees its current change in effect, or proposes it (again). */
    void step() {
        if (done()) {
            return;
        }
        MembershipChange c = changes.get(next);
        if (inEffect(c)) {
            log.accept("ring " + ring + " in effect " + c);
            countJoinedBySnapshot(c);
            next++;
            proposedAt = -1;
            firstProposedAt = -1;
            if (done()) {
                int coordinator = world.coordinatorOf(sim, ring);
                RingPaxosCore at = coordinator < 0 ? mostAdvanced() : coreOf(coordinator);
                settledFrom = at == null ? 0 : at.firstUndecided();
            }
            return;
        }
        int coordinator = world.coordinatorOf(sim, ring);
        RingPaxosCore core = coordinator < 0 ? null : coreOf(coordinator);
        if (proposedAt >= 0 && sim.now() - proposedAt < RETRY && (core == null || core.round() == proposedIn)) {
            return; // proposed: wait for it to be decided and in effect before proposing again
        }
        if (core == null) {
            lastRefusal = "no coordinator";
            return;
        }
        Membership latest = core.membershipHistory().latest();
        if (latest.refusal(c) != null && !latest.reflects(c)) {
            // One operation at a time, every ring's previous change in effect at every live member:
            // nothing overtakes a change here (the single ring's nemesis gives up then). A coordinator
            // fresh from Phase 1 may not have decided the previous change yet: ask again next step;
            // a change that never goes through fails the run at the end.
            lastRefusal = "process " + coordinator + " refuses: " + latest.refusal(c);
            return;
        }
        lastRefusal = sim.<MultiRingProcess>node(coordinator).requestMembership(ring, c);
        if (lastRefusal == null) {
            log.accept("ring " + ring + " proposed " + c + " at process " + coordinator + " in round " + core.round());
            proposedAt = sim.now();
            firstProposedAt = firstProposedAt < 0 ? proposedAt : firstProposedAt;
            proposedIn = core.round();
        }
    }

    /**
     * Whether every live member of the ring's current set, but process {@code except}, has its ring
     * decided through {@link #settledFrom} (false before the sequence is done).
     */
    boolean deliveredBy(int except) {
        if (!done()) {
            return false;
        }
        RingPaxosCore adv = mostAdvanced();
        if (adv == null) {
            return false;
        }
        Membership m = adv.membership();
        for (int p : world.processIds()) {
            RingPaxosCore core = coreOf(p);
            if (p != except && core != null && m.isMember(world.scenario.memberId(ring, p))
                    && core.firstUndecided() < settledFrom) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code c} is in effect: counts every live member that has it in effect and had joined the run by
     * installing a peer's snapshot before {@code c} was first proposed
     * ({@link MultiRingSnapshots#laterChanges}).
     */
    private void countJoinedBySnapshot(MembershipChange c) {
        Membership m = mostAdvanced().membership();
        for (int p : world.processIds()) {
            RingPaxosCore core = coreOf(p);
            if (core != null && m.isMember(world.scenario.memberId(ring, p)) && core.membership().reflects(c)
                    && world.snapshots.joinedBySnapshotBefore(p, firstProposedAt)) {
                world.snapshots.laterChanges++;
            }
        }
    }

    /** Whether every live member of the set the most advanced live member has in effect has {@code c} in effect. */
    private boolean inEffect(MembershipChange c) {
        RingPaxosCore adv = mostAdvanced();
        if (adv == null || !adv.membership().reflects(c)) {
            return false;
        }
        Membership m = adv.membership();
        for (int p : world.processIds()) {
            RingPaxosCore core = coreOf(p);
            if (core != null && m.isMember(world.scenario.memberId(ring, p)) && !core.membership().reflects(c)) {
                return false;
            }
        }
        return true;
    }

    /** The live member of the ring that decided furthest, or null. */
    RingPaxosCore mostAdvanced() {
        RingPaxosCore best = null;
        for (int p : world.processIds()) {
            RingPaxosCore c = coreOf(p);
            if (c != null && (best == null || c.firstUndecided() > best.firstUndecided())) {
                best = c;
            }
        }
        return best;
    }

    /** Process {@code p}'s core of this ring, or null if the process or its ring is down. */
    private RingPaxosCore coreOf(int p) {
        if (!sim.isUp(p)) {
            return null;
        }
        MultiRingProcess process = sim.node(p);
        return process.ringUp(ring) ? process.core(ring) : null;
    }

    @Override
    public String toString() {
        return "ring " + ring + (done() ? " done" : " at " + changes.get(next) + (proposedAt >= 0 ? " (proposed)" : "")
                + (lastRefusal == null ? "" : ", last refusal: " + lastRefusal));
    }
}
