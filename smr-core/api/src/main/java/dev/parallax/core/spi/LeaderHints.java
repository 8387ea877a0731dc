package dev.parallax.core.spi;

/**
 * Where clients should send commands, and who leads ordering: the protocol's rule, which the
 * replica's client front end applies without knowing the protocol.
 *
 * <p>Threads: read without blocking, from any thread; the answers are hints, possibly stale.
 */
public interface LeaderHints {

    /** {@link #redirectHint()}'s answer when any replica takes clients, this one included. */
    int ANY_REPLICA = -1;

    /**
     * Where commands should be sent: the id of the replica clients should talk to instead of this
     * one, or {@link #ANY_REPLICA} when this replica takes them (a leader-based protocol's leader,
     * or every replica of S-Paxos and the ring protocols). The replica's client front end only
     * applies this rule (redirecting when the hint names another replica); the rule itself is the
     * protocol's. Read without blocking, from any thread; a hint, possibly stale.
     */
    int redirectHint();

    /**
     * The replica this one believes leads ordering, or -1 if none is known or the protocol has no
     * leader; for operators, tools and tests, read without blocking. Default: {@link #redirectHint()}.
     */
    default int leaderHint() {
        return redirectHint();
    }

    /**
     * Whether this replica knows who leads (or coordinates) its ordering now: the replica's
     * {@code parallax.replica.has.leader} gauge. Default: {@link #leaderHint()} names a replica.
     * An ordering of several streams, each with a leader of its own, answers whether every stream
     * this replica runs knows its leader. Read without blocking, from any thread; a hint.
     */
    default boolean leaderKnown() {
        return leaderHint() >= 0;
    }
}
