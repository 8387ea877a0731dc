package dev.parallax.paxos;

/**
 * Failure detection by heartbeats, driven by ticks (seed 000 §V-C3): the leader makes sure every
 * follower hears from it at least every heartbeat interval (any Propose counts); a follower that
 * hears nothing from the leader of its view for its suspect timeout suspects it.
 *
 * <p>Timeouts are staggered by rank so that the replica next in line (the leader of the next view)
 * suspects first, and the others then hear its Prepare instead of starting views of their own: a
 * follower's timeout is {@code suspect × (1 + rank/2)}, where rank 0 is the replica after the
 * leader. This replaces the randomized timeouts other protocols use, which a deterministic core
 * cannot draw.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class ViewMonitor {
    private final PaxosConfig config;
    private final int self;
    private long lastHeard;
    private long lastBroadcast;

    ViewMonitor(PaxosConfig config, int self, long now) {
        this.config = config;
        this.self = self;
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

    /** Whether a follower in {@code view} should suspect its leader now. */
    boolean suspect(long view, long now) {
        int n = config.members();
        int rank = Math.floorMod(self - config.leaderOf(view) - 1, n);
        long timeout = config.suspectNanos() + rank * (config.suspectNanos() / 2);
        return now - lastHeard >= timeout;
    }
}
