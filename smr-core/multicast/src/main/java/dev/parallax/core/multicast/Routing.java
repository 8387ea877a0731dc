package dev.parallax.core.multicast;

/**
 * Where {@link StreamMulticast} hands a message for ordering in a stream. A strategy chosen once at
 * build time; immutable.
 */
public enum Routing {
    /**
     * To the stream's leader as this process knows it ({@code AtomicBroadcast.leaderHint()}): into
     * the local proposal queue if it leads, over the forward transport otherwise (the receiver
     * forwards again if it no longer leads); no leader known, the message is refused. For
     * leader-based streams, which order proposals at the leader only (Multi-Paxos). Needs a forward
     * transport.
     */
    LEADER,
    /**
     * Always to this process's own broadcast of the stream: for protocols in which every member
     * proposes (their {@code redirectHint()} is {@code AtomicBroadcast.ANY_REPLICA}: the ring
     * protocols, seed 003 (Ring Paxos / Multi-Ring / P-SMR) §3.3.1). No forward transport.
     */
    LOCAL
}
