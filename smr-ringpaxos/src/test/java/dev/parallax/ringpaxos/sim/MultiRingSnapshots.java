package dev.parallax.ringpaxos.sim;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * The snapshots of a Multi-Ring simulation run with {@link MultiRingSimulation.Scenario#snapshotEvery}
 * set: every process' latest (they survive crashes, like files on disk), the one a process that
 * needs a snapshot fetches (the most advanced live peer's; the simulated transfer always succeeds),
 * and what the run did with them, for reports and "snapshots were installed" assertions.
 *
 * <p>{@link #dropStreamStates} is the mutation of the check: an install hands the rings no state
 * (as if {@code MulticastBroadcast} or {@code StreamMulticast} dropped the per-stream states, or
 * {@code RingPaxosCore.skipTo(long, ByteBuffer)} ignored them), so a process that catches up by a
 * snapshot knows only the cluster file's member sets below it.
 *
 * <p>Owned by the simulation thread.
 */
final class MultiRingSnapshots {

    /**
     * A process' state after its learner delivered {@code sequence} (the simulated state machine:
     * the message ids in delivery order) and its snapshot's delivery state, as
     * {@code MulticastBroadcast.deliveryState()} forms it for several rings: the merge position
     * after the last delivery ({@code position}, per stream its next index) and per ring (-1 or
     * null where the learner merges no stream of it) what the snapshot covers of the ring
     * ({@code resume}: the instance the ring resumes at), the numbering there ({@code index} and
     * the message ids decided before it, {@code seen}: the position's duplicate record) and the
     * ring's delivered member history ({@code states}: {@code RingDeliveredMembership}'s, as
     * {@code StreamMulticast.streamStates()} collects them). Never modified once made.
     */
    record Snap(int process, long at, List<Long> sequence, long[] position, long[] resume, long[] index,
                List<Set<Long>> seen, List<byte[]> states) {
        /** How many messages the learner delivered: snapshots of one run are ordered by it. */
        long delivered() {
            return sequence.size();
        }
    }

    private final Map<Integer, Snap> latest = new HashMap<>();
    /** Processes that joined the run and installed a peer's snapshot, with when they first did. */
    private final Map<Integer, Long> joinedBySnapshot = new TreeMap<>();
    private IntPredicate up = p -> true;
    /** The mutation: installs hand the rings no state. */
    boolean dropStreamStates;
    long taken;
    /** Peer snapshots installed (a ring needed one). */
    long installs;
    /** Own snapshots a restarted process resumed from. */
    long restarts;
    /** Peer snapshots installed by processes that joined the run. */
    long joinedInstalls;
    /** A process needed a snapshot and no live peer had one ahead of it (it asks again). */
    long noneAhead;
    /**
     * Membership changes, proposed after a process that joined installed a peer's snapshot, that
     * went into effect with that process a member having it in effect (one per process and change).
     */
    long laterChanges;

    /** Which processes are up (the simulation's); set once the simulation exists. */
    void liveness(IntPredicate isUp) {
        this.up = isUp;
    }

    /** Stores {@code process}' latest snapshot. */
    void put(int process, Snap s) {
        latest.put(process, s);
        taken++;
    }

    /** {@code process}' latest snapshot (its own, or the last it installed), or null. */
    Snap own(int process) {
        return latest.get(process);
    }

    /**
     * The snapshot {@code process} fetches when one of its rings needs one: the latest of the live
     * peer whose learner delivered most (the lowest id among equals), or null if none has one.
     */
    Snap mostAdvancedPeer(int process, List<Integer> processes) {
        Snap best = null;
        for (int p : processes) {
            Snap s = latest.get(p);
            if (p != process && s != null && up.test(p) && (best == null || s.delivered() > best.delivered())) {
                best = s;
            }
        }
        return best;
    }

    /** {@code process} installed {@code s} (a peer's) at {@code now}; {@code joined}: it joined the run. */
    void installed(int process, Snap s, boolean joined, long now) {
        latest.put(process, s);
        installs++;
        if (joined) {
            joinedInstalls++;
            joinedBySnapshot.putIfAbsent(process, now);
        }
    }

    /** Whether {@code process} joined the run and installed a peer's snapshot before {@code time}. */
    boolean joinedBySnapshotBefore(int process, long time) {
        Long at = joinedBySnapshot.get(process);
        return at != null && at < time;
    }

    /** How many processes that joined installed a peer's snapshot. */
    int joinedBySnapshot() {
        return joinedBySnapshot.size();
    }

    @Override
    public String toString() {
        return taken + " snapshots taken, " + installs + " installed (" + joinedInstalls + " by processes that joined, "
                + joinedBySnapshot.size() + " of them), " + restarts + " resumed at a restart, " + noneAhead
                + " needed with none ahead, " + laterChanges + " later changes in effect at processes joined by snapshot";
    }
}
