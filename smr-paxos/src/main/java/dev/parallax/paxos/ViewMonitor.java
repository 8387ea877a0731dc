package dev.parallax.paxos;

/**
 * Failure detection by heartbeats, driven by ticks (seed 000 §V-C3): the leader makes sure every
 * follower hears from it at least every heartbeat interval (any Propose counts); a follower that
 * hears nothing from the leader of its view for its suspect timeout ({@link SuspicionRule})
 * suspects it.
 *
 * <p>When the runtime runs a failure detector thread ({@link #delegateSuspicion()}), ticks stop
 * suspecting: the detector applies the same {@link SuspicionRule} to the transport's arrival
 * stamps and the core hears of it through {@link MultiPaxosCore#onSuspect}.
 *
 * <p>A leader that steps down (check-quorum) says so ({@link PaxosMessage.StepDown}), and a leader
 * that asks for a pre-vote to replace itself shows it (it does not lead); a follower that hears
 * either counts the leader as silent for the suspect timeout already
 * ({@link #leaderSteppedDown}): the next in line suspects at once and the others half a suspect
 * timeout apart, as the rule staggers them, and nothing the leader sent before (a late heartbeat)
 * revives it. This suspicion is the core's own, on ticks, even when the detector thread suspects
 * otherwise: the detector reads arrival stamps, and a leader that stepped down may still send
 * other traffic.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class ViewMonitor {
    private final PaxosConfig config;
    private final SuspicionRule rule;
    private boolean delegated;
    private long lastHeard;
    private long lastBroadcast;
    /** The leader of the current view stepped down: it counts as silent, whatever arrives from it. */
    private boolean leaderGone;

    ViewMonitor(PaxosConfig config, int self, java.util.function.Supplier<dev.parallax.core.membership.Membership> members,
                long now) {
        this.config = config;
        this.rule = new SuspicionRule(config, self, members);
        this.lastHeard = now;
        this.lastBroadcast = Long.MIN_VALUE / 2;
    }

    /** The leader of the current view was heard from (ignored once it stepped down). */
    void heardFromLeader(long now) {
        if (!leaderGone) {
            lastHeard = now;
        }
    }

    /** The leader of the current view stepped down: it has been silent for the suspect timeout already. */
    void leaderSteppedDown(long now) {
        if (!leaderGone) {
            leaderGone = true;
            lastHeard = now - config.suspectNanos();
        }
    }

    /**
     * Whether the leader of the current view has been silent long enough to be replaced: for the
     * suspect timeout (rank 0's) less one heartbeat interval. A working leader is heard every
     * heartbeat interval, so this is still several missed heartbeats in a row; the margin absorbs
     * the difference between when a candidate and a granter heard the leader's last message, which
     * would otherwise make the first pre-vote round after a leader's death fail now and then.
     */
    boolean leaderSilent(long now) {
        return now - lastHeard >= config.suspectNanos() - config.heartbeatNanos();
    }

    /** As leader we just sent something to every follower. */
    void broadcastSent(long now) {
        lastBroadcast = now;
    }

    /** A new view started: the suspicion clock starts over. */
    void viewChanged(long now) {
        lastHeard = now;
        lastBroadcast = Long.MIN_VALUE / 2;
        leaderGone = false;
    }

    /** Whether the leader should send a heartbeat now. */
    boolean heartbeatDue(long now) {
        return now - lastBroadcast >= config.heartbeatNanos();
    }

    /** From now on an external failure detector suspects; {@link #suspect} always says no. */
    void delegateSuspicion() {
        delegated = true;
    }

    /**
     * Whether a follower in {@code view} should suspect its leader now: by the rule on ticks, or —
     * once delegated to the detector thread — only when the leader said it stepped down.
     */
    boolean suspect(long view, long now) {
        return (!delegated || leaderGone) && rule.suspects(view, lastHeard, now);
    }
}
