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
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class ViewMonitor {
    private final PaxosConfig config;
    private final SuspicionRule rule;
    private boolean delegated;
    private long lastHeard;
    private long lastBroadcast;

    ViewMonitor(PaxosConfig config, int self, long now) {
        this.config = config;
        this.rule = new SuspicionRule(config, self);
        this.lastHeard = now;
        this.lastBroadcast = Long.MIN_VALUE / 2;
    }

    /** The leader of the current view was heard from. */
    void heardFromLeader(long now) {
        lastHeard = now;
    }

    /** As leader we just sent something to every follower. */
    void broadcastSent(long now) {
        lastBroadcast = now;
    }

    /** A new view started: the suspicion clock starts over. */
    void viewChanged(long now) {
        lastHeard = now;
        lastBroadcast = Long.MIN_VALUE / 2;
    }

    /** Whether the leader should send a heartbeat now. */
    boolean heartbeatDue(long now) {
        return now - lastBroadcast >= config.heartbeatNanos();
    }

    /** From now on an external failure detector suspects; {@link #suspect} always says no. */
    void delegateSuspicion() {
        delegated = true;
    }

    /** Whether a follower in {@code view} should suspect its leader now (never once delegated). */
    boolean suspect(long view, long now) {
        return !delegated && rule.suspects(view, lastHeard, now);
    }
}
