package dev.parallax.ringpaxos;

import java.util.List;

/**
 * The messages of the engine both variants share (seed 003 (Ring Paxos) Alg. 2 and Alg. 3, the
 * "statements in gray"): Phase 1, liveness, catch-up, proposals and recovery from amnesia. Frame
 * types 1–11 of {@link RingCodec}. Immutable (lists are copied, byte buffers are read-only views
 * no one mutates: readers use absolute reads or {@code duplicate()}); thread-safe.
 */
public sealed interface RingMessage extends RingUnicast {

    /**
     * Type 1, coordinator → all members: Phase 1 of round {@code round} for every instance
     * {@code >= from} (Alg. 2/3 Task 1; §3.3.2 ¶4); re-sent to one acceptor with the
     * {@code continueFrom} of its last page.
     *
     * @param round the round, in {@code [0, 2^62-1]}
     * @param from the first instance covered
     */
    record Phase1A(long round, long from) implements RingMessage {
    }

    /**
     * Type 2, acceptor → coordinator: the Task 2 promise for {@code round} and one page of votes.
     *
     * @param round the promised round
     * @param trimmedBelow the acceptor holds no vote below it (compacted)
     * @param decidedBelow every instance below it is decided at the acceptor
     * @param votes the acceptor's highest vote per instance on this page
     * @param continueFrom where the next page starts, or {@link #COMPLETE}
     */
    record Phase1B(long round, long trimmedBelow, long decidedBelow, List<Vote> votes, long continueFrom)
            implements RingMessage {
        /** {@code continueFrom} of the last (or only) page. */
        public static final long COMPLETE = -1;

        /** Copies {@code votes}. */
        public Phase1B {
            votes = List.copyOf(votes);
        }

        /** Whether this is the last page. */
        public boolean isComplete() {
            return continueFrom == COMPLETE;
        }
    }

    /**
     * Type 3, coordinator → all members, every {@code ring.heartbeat.ms}: the coordinator lives,
     * the ring of the round (for members off it; {@code null} while Phase 1 runs), how far
     * decisions reach, and the garbage-collection floor (seed 003 (Ring Paxos) §3.3.7).
     *
     * @param round the coordinator's round
     * @param ring the round's ring, or {@code null} if none is formed yet
     * @param decidedBelow every instance below it is decided at the coordinator
     * @param versionFloor the quorum-th highest delivered version reported
     */
    record Heartbeat(long round, Ring ring, long decidedBelow, long versionFloor) implements RingMessage {
    }

    /**
     * Type 4, member → coordinator, every heartbeat and at once when {@code backlog} crosses
     * {@code mring.fc.threshold} (seed 003 (Ring Paxos) §3.3.6–§3.3.7; the route is our choice).
     *
     * @param round the member's round
     * @param decidedBelow every instance below it is decided at the member
     * @param delivered the member's version: every decision below it was delivered
     * @param backlog decided but not yet delivered instances
     * @param lastSeen the highest instance the member received a proposal for, or {@code -1}
     * @param wantsRing whether the member, off the ring, asks to be put back on it
     */
    record Alive(long round, long decidedBelow, long delivered, long backlog, long lastSeen, boolean wantsRing)
            implements RingMessage {
    }

    /**
     * Type 5, coordinator → all: it stopped coordinating {@code round}.
     *
     * @param round the round given up
     */
    record StepDown(long round) implements RingMessage {
    }

    /**
     * Type 6, learner → one peer: decisions and bodies of {@code [from, to)} are missing
     * (seed 003 §3.3.4).
     *
     * @param round the asker's round
     * @param from first missing instance
     * @param to end of the range (exclusive), {@code >= from}
     */
    record CatchUpQuery(long round, long from, long to) implements RingMessage {
    }

    /**
     * Type 7, peer → asker: decided values, and the replier's highest vote per instance it does not
     * know decided (§3.3.4 case (b): id known, body missing); cut like a {@link Phase1B} page.
     *
     * @param round the replier's round
     * @param firstAvailable the replier holds nothing below it (compacted)
     * @param decided decisions, with the body where the replier has it
     * @param values the replier's votes for instances it does not know decided
     */
    record CatchUpReply(long round, long firstAvailable, List<DecisionEntry> decided, List<Phase2Entry> values)
            implements RingMessage {
        /** Copies the lists. */
        public CatchUpReply {
            decided = List.copyOf(decided);
            values = List.copyOf(values);
        }
    }

    /**
     * Type 8, proposer → coordinator: M-Ring's proposals (Alg. 2 Task 1); a U-Ring member sends them
     * only when it is off the ring or there is no ring.
     *
     * @param round the proposer's round
     * @param proposals the values
     */
    record Proposal(long round, List<ProposalEntry> proposals) implements RingMessage {
        /** Copies {@code proposals}. */
        public Proposal {
            proposals = List.copyOf(proposals);
        }
    }

    /**
     * Type 9, amnesiac → peers: recovery from amnesia (plan C10), asking every peer to promise
     * nothing above {@code fence} it has not already promised.
     *
     * @param fence the fence round
     */
    record RecoveryQuery(long fence) implements RingMessage {
    }

    /**
     * Type 10, peer → amnesiac: the peer's promise after answering ({@code round}), the query's
     * fence echoed, whether the peer's promise was at most the fence before it answered
     * ({@code fenced}; only then does the answer count), and the highest instance the peer voted in
     * or knows decided ({@code -1} if none).
     *
     * @param round the peer's promise
     * @param fence the query's fence
     * @param fenced whether the answer counts
     * @param highest the highest instance, or {@code -1}
     */
    record RecoveryReply(long round, long fence, boolean fenced, long highest) implements RingMessage {
    }

    /**
     * Type 11, coordinator → all members: it stopped coordinating {@code round} to hand the
     * coordination over to {@code successor} (a leadership transfer, {@link RingHandOver}), which
     * starts a round of its own at once; the others answer that round's Phase 1A although its
     * coordinator was heard lately (stickiness, rule C8, does not hold for the named successor).
     *
     * @param round the round given up
     * @param successor the member that takes over
     */
    record HandOver(long round, int successor) implements RingMessage {
    }

    /**
     * Type 12, coordinator → voters: read-index rule Q2 ({@link RingReads}): does the voter still
     * hold round {@code round}? Asked for the reads that arrived before confirmation
     * {@code sequence} was sent.
     *
     * @param round the coordinator's round
     * @param sequence the confirmation's number, increasing at the coordinator
     */
    record ReadConfirm(long round, long sequence) implements RingMessage {
    }

    /**
     * Type 13, voter → coordinator: the answer to {@link ReadConfirm} {@code sequence}, with the
     * voter's own round (the coordinator counts it only if it is its round).
     */
    record ReadConfirmAck(long round, long sequence) implements RingMessage {
    }

    /**
     * Type 14, member → coordinator of {@code round}: the read point for the member's read
     * {@code read} (rule Q1).
     */
    record ReadIndexRequest(long round, long read) implements RingMessage {
    }

    /**
     * Type 15, coordinator → member: read {@code read} may run once every instance below
     * {@code position} is delivered (Q4), or ({@code position} = -1) the coordinator cannot confirm
     * a point (Q5).
     */
    record ReadIndexReply(long round, long read, long position) implements RingMessage {
    }

    /**
     * Type 16, member → coordinator of {@code round} (Multi-Ring Paxos, skips on demand): another
     * ring of the sender's process opened or decided a client value up to logical instance
     * {@code upTo}, and the merge will wait on this ring until it passes it; the coordinator skips
     * now if it is idle ({@link RingOpening#skipOnDemand}). Advisory: a stale or lost one costs only
     * the wait until the next paced skip.
     */
    record SkipDemand(long round, long upTo) implements RingMessage {
    }
}
