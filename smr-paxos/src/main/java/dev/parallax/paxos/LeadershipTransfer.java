package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;

import java.util.Arrays;

/**
 * A leader's side of a leadership transfer (Raft thesis §3.10, adapted to views): while one runs
 * the leader takes no new value; once the target's heartbeat acknowledgement shows every instance
 * the leader proposed decided there, the leader sends it {@link PaxosMessage.TimeoutNow}, once.
 * The transfer ends when a new view starts or after the suspect timeout, when the leader resumes.
 * Also keeps how far each peer's decisions go, from its acknowledgements, which the membership
 * gate uses to tell whether a learner has caught up.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class LeadershipTransfer {
    private final PaxosConfig config;
    private final long[] progress = new long[Membership.ID_SPACE];
    private int target = -1;
    private long deadline;
    private boolean timeoutSent;
    private long sent;

    LeadershipTransfer(PaxosConfig config) {
        this.config = config;
        Arrays.fill(progress, -1);
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

    /** The first undecided instance each peer last acknowledged (-1 if never), by id; a copy. */
    long[] progress() {
        return progress.clone();
    }

    /** TimeoutNow messages sent. */
    long sent() {
        return sent;
    }
}
