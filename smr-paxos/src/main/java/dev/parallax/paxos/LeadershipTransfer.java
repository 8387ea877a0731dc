package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;

import java.util.Arrays;

/**
 * A leader's side of a leadership transfer (Raft thesis §3.10, adapted to views): while one runs
 * the leader takes no new value; once the target's heartbeat acknowledgement shows every instance
 * the leader proposed decided there, the leader sends it {@link PaxosMessage.TimeoutNow}, once.
 * The transfer ends when a new view starts or after the suspect timeout, when the leader resumes.
 * Also keeps how far each peer's decisions go, from its acknowledgements, which the membership
 * gate uses to tell whether a learner has caught up, and, from those and its votes, chooses the
 * target when the operator names none ({@link #bestTarget}).
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class LeadershipTransfer {
    private final PaxosConfig config;
    private final long[] progress = new long[Membership.ID_SPACE];
    private final long[] voted = new long[Membership.ID_SPACE];
    private int target = -1;
    private long deadline;
    private boolean timeoutSent;
    private long sent;

    LeadershipTransfer(PaxosConfig config) {
        this.config = config;
        Arrays.fill(progress, -1);
        Arrays.fill(voted, -1);
    }

    /** Starts a transfer to {@code target}; it runs until a view change or the suspect timeout. */
    void start(int target, long now) {
        this.target = target;
        this.deadline = now + config.suspectNanos();
        this.timeoutSent = false;
    }

    /** A view started or was adopted: any transfer is over. */
    void clear() {
        target = -1;
    }

    /** Whether a transfer runs. */
    boolean active() {
        return target >= 0;
    }

    /** Whether a running transfer timed out now (it is then over and the leader resumes). */
    boolean expired(long now) {
        if (target >= 0 && now - deadline >= 0) {
            target = -1;
            return true;
        }
        return false;
    }

    /** {@code peer} acknowledged a heartbeat with every instance below {@code firstUndecided} decided. */
    void acked(int peer, long firstUndecided) {
        progress[peer] = Math.max(progress[peer], firstUndecided);
    }

    /**
     * Whether to send TimeoutNow to {@code peer} now: it is the target, not yet told, and has
     * decided every instance below {@code proposedBelow} (all the leader proposed).
     */
    boolean ready(int peer, long proposedBelow) {
        if (peer != target || timeoutSent || progress[peer] < proposedBelow) {
            return false;
        }
        timeoutSent = true;
        sent++;
        return true;
    }

    /**
     * {@code peer} voted for {@code instance} (its {@code Accept}): it holds every value the leader
     * proposed up to there. Under load the leader sends no heartbeats, so votes are what keeps a
     * voter's position current for {@link #bestTarget}; they do not count for {@link #ready}, which
     * needs the target's own report that it decided everything.
     */
    void voted(int peer, long instance) {
        voted[peer] = Math.max(voted[peer], instance);
    }

    /**
     * The voter to hand leadership to when the operator names none
     * ({@code MembershipAdmin.transferLeadership(-1)}, a leader stopping on SIGTERM): of the voters
     * of {@code members} other than {@code self}, the one with the highest acknowledged position
     * (the first instance it has not acknowledged: its last heartbeat acknowledgement's first
     * undecided instance, or past its latest vote; the lowest id among equals), provided that
     * position is within the window of {@code firstUndecided}, the leader's: the rule a learner's
     * promotion meets ({@link MembershipGate}). -1 if there is no such voter: none other, none that
     * ever acknowledged, or the best one more than a window behind. Raft's thesis (§3.10) hands
     * leadership to a server whose log is up to date; one a window or more behind would keep the
     * paused leader waiting for its catch-up, past the suspect timeout that ends a transfer.
     *
     * <p>Positions only grow and carry no time: a voter that stopped acknowledging stays a candidate
     * until a window of instances is decided without it (at once under load; never while the
     * group is idle, where the transfer then times out and the leader resumes).
     */
    int bestTarget(Membership members, int self, long firstUndecided) {
        int best = -1;
        long bestPosition = -1;
        for (int id = 0; id <= Membership.MAX_ID; id++) {
            long position = Math.max(progress[id], voted[id] < 0 ? -1 : voted[id] + 1);
            if (id != self && members.isVoter(id) && position >= 0 && position > bestPosition) {
                best = id;
                bestPosition = position;
            }
        }
        return best >= 0 && bestPosition >= firstUndecided - config.window() ? best : -1;
    }

    /** The first undecided instance each peer last acknowledged (-1 if never), by id; a copy. */
    long[] progress() {
        return progress.clone();
    }

    /** TimeoutNow messages sent. */
    long sent() {
        return sent;
    }
}
