package dev.parallax.paxos;

import java.util.List;

/**
 * The messages replicas exchange. Immutable records with a deterministic {@code toString}; every
 * one carries the sender's view, so a replica that is behind adopts a newer view from any message.
 * Wire encoding lives at the transport edge, not here.
 */
public sealed interface PaxosMessage {

    /** The sender's view. */
    long view();

    /** Phase 1a: the leader of {@code view} asks for promises covering every instance from {@code fromInstance} on. */
    record Prepare(long view, long fromInstance) implements PaxosMessage {
    }

    /**
     * Phase 1b: a promise for {@code view}, with every vote this acceptor still holds at or above
     * the requested instance. {@code trimmedBelow} is the instance below which the acceptor dropped
     * its votes because a snapshot covers them: those instances are decided, and the new leader must
     * not re-propose (or no-op) them.
     */
    record PrepareOk(long view, long trimmedBelow, List<Accepted> accepted) implements PaxosMessage {
        public PrepareOk {
            accepted = List.copyOf(accepted);
        }
    }

    /** An accepted value reported in a {@link PrepareOk}. */
    record Accepted(long instance, long view, Value value) {
    }

    /** Phase 2a: the leader proposes {@code value} for {@code instance}. */
    record Propose(long view, long instance, Value value) implements PaxosMessage {
    }

    /** Phase 2b, sent to every replica so that all of them learn the decision (as JPaxos does). */
    record Accept(long view, long instance) implements PaxosMessage {
    }

    /** The leader is alive; every instance below {@code firstUndecided} is decided at the leader. */
    record Heartbeat(long view, long firstUndecided) implements PaxosMessage {
    }

    /** A lagging replica asks for the decided values of instances {@code [from, to)}. */
    record CatchUpQuery(long view, long from, long to) implements PaxosMessage {
    }

    /**
     * Decided values a peer had in the asked range; {@code firstAvailable} is the lowest instance
     * the peer still has (below it, the asker needs a snapshot).
     */
    record CatchUpReply(long view, long firstAvailable, List<Decided> decided) implements PaxosMessage {
        public CatchUpReply {
            decided = List.copyOf(decided);
        }
    }

    /** A decided instance in a {@link CatchUpReply}. */
    record Decided(long instance, Value value) {
    }
}
