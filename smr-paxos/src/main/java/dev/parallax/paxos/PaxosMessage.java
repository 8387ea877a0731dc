package dev.parallax.paxos;

import java.util.List;

/**
 * The messages replicas exchange. Immutable records with a deterministic {@code toString}; every
 * one carries the sender's view, so a replica that is behind adopts a newer view from any message —
 * except a {@link PreVote}, which asks permission and must not move anyone (see there). Wire
 * encoding lives at the transport edge, not here.
 */
public sealed interface PaxosMessage {

    /** The sender's view. */
    long view();

    /**
     * Phase 1a: the leader of {@code view} asks for promises covering every instance from
     * {@code fromInstance} on; sent again to one acceptor with a higher {@code fromInstance} to fetch
     * the next page of its votes.
     */
    record Prepare(long view, long fromInstance) implements PaxosMessage {
    }

    /**
     * Phase 1b: a promise for {@code view}, with one page of the votes this acceptor holds at or
     * above the requested instance, in instance order. {@code trimmedBelow} is the instance below
     * which the acceptor dropped its votes because a snapshot covers them: those instances are
     * decided, and the new leader must not re-propose (or no-op) them. Pages are bounded so that a
     * reply fits in a frame: {@code continueFrom} is {@link #COMPLETE} if every vote was reported,
     * else the instance the leader asks again from with another {@link Prepare}.
     */
    record PrepareOk(long view, long trimmedBelow, List<Accepted> accepted, long continueFrom) implements PaxosMessage {
        /** {@code continueFrom} of a reply that reported every remaining vote. */
        public static final long COMPLETE = -1;

        public PrepareOk {
            accepted = List.copyOf(accepted);
        }

        /** A complete reply (the last or only page). */
        public PrepareOk(long view, long trimmedBelow, List<Accepted> accepted) {
            this(view, trimmedBelow, accepted, COMPLETE);
        }

        /** Whether this page reported every vote left. */
        public boolean isComplete() {
            return continueFrom == COMPLETE;
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

    /**
     * A follower's answer to the leader's {@link Heartbeat}: it hears the leader. With the Accepts
     * and PrepareOks of the leader's view it is what the leader's check-quorum counts (a leader
     * that hears no quorum within its suspect timeout steps down); {@code firstUndecided} tells the
     * leader how far decisions go at the follower.
     */
    record HeartbeatAck(long view, long firstUndecided) implements PaxosMessage {
    }

    /**
     * Pre-vote (Raft thesis §9.6, adapted to rotating views): a follower that suspects the leader of
     * {@code view} — its current view, which receivers do <em>not</em> adopt from this message —
     * asks whether it may start the next view it leads. {@code firstUndecided} shows how far its
     * decided prefix goes. It starts the view only once a quorum (itself included) granted.
     */
    record PreVote(long view, long firstUndecided) implements PaxosMessage {
    }

    /**
     * The answer to a {@link PreVote}: the answering replica's view, the candidate's view echoed
     * ({@code candidateView}, so that the candidate matches it to its round), and whether it grants
     * — only if it has not heard from the leader of its own view for the suspect timeout (less one
     * heartbeat interval), is not
     * leading or starting a view itself, is not recovering, and the candidate is not behind its own
     * decided prefix by more than the window.
     */
    record PreVoteReply(long view, long candidateView, boolean granted) implements PaxosMessage {
    }

    /**
     * The leader of {@code view} heard from no quorum within its suspect timeout and stopped
     * leading (check-quorum): its followers need not wait for their own suspect timeout to find it
     * silent. Sent to every follower; one that can hear it starts its pre-vote at once (rank-staggered).
     */
    record StepDown(long view) implements PaxosMessage {
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

    /**
     * A replica recovering from amnesia asks its peers for their state (see {@link AmnesiaRecovery}).
     * {@code view} is its current view and the round's fence: a peer whose promise is at most
     * {@code view} promises a higher view (one the asker does not lead) before answering, so it
     * never votes in a view up to the fence again.
     */
    record RecoveryQuery(long view) implements PaxosMessage {
    }

    /**
     * The answer to a {@link RecoveryQuery}: the peer's promise after answering ({@code view}), the
     * query's fence echoed, whether the peer's promise was at most the fence before it answered
     * ({@code fenced}; only then does the answer count), and the highest instance the peer has
     * voted in or knows decided ({@code -1} if none).
     */
    record RecoveryReply(long view, long fence, boolean fenced, long highest) implements PaxosMessage {
    }

    /**
     * Leadership transfer (Raft thesis §3.10, "TimeoutNow"): the leader of {@code view} stopped
     * proposing, saw every instance below {@code firstUndecided} decided at the receiver, and asks
     * it to start the next view it leads at once, without waiting for a suspicion or a pre-vote.
     */
    record TimeoutNow(long view, long firstUndecided) implements PaxosMessage {
    }

    /**
     * Read-index (Raft thesis §6.4): the leader of {@code view} asks its voters whether they still
     * follow it, for the reads that arrived before this round was sent ({@link ReadRounds}).
     */
    record ReadConfirm(long view, long round) implements PaxosMessage {
    }

    /**
     * The answer to a {@link ReadConfirm}: the sender's view (the leader counts it only if it is
     * its own) and the round echoed.
     */
    record ReadConfirmAck(long view, long round) implements PaxosMessage {
    }

    /** A follower asks the leader of {@code view} for the position of its read {@code read}. */
    record ReadIndexRequest(long view, long read) implements PaxosMessage {
    }

    /**
     * The leader's answer to a {@link ReadIndexRequest}: read {@code read} may run once every
     * decision below {@code position} was delivered, or, with {@code position} -1
     * ({@link #REFUSED}), the sender cannot confirm a position (it does not lead).
     */
    record ReadIndexReply(long view, long read, long position) implements PaxosMessage {
        /** {@code position} of a refusal. */
        public static final long REFUSED = dev.parallax.core.readindex.ReadIndexRounds.REFUSED;
    }
}
