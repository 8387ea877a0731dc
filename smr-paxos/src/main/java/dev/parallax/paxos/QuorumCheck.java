package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;

import java.util.Arrays;

/**
 * Check-quorum (Raft thesis §6.2, "the leader steps down if an election timeout elapses without a
 * successful round of heartbeats to a majority"): a replica that leads a view, or
 * runs its Phase 1, remembers when each peer last showed that it hears it — a {@code HeartbeatAck},
 * an {@code Accept} or a {@code PrepareOk} of that view — and has lost its quorum once fewer than a
 * majority, itself included, did so within the suspect timeout (the shortest one, rank 0's). A
 * leader that can send but not receive keeps its followers quiet with heartbeats while it can
 * decide nothing; without this rule it would lead, and stall writes, forever.
 *
 * <p>The clock starts over when a view starts ({@link #reset}), so a new leader has a full timeout
 * to hear from its peers. A pure function of the inputs; not thread-safe, owned by
 * {@link MultiPaxosCore}.
 */
final class QuorumCheck {
    private final PaxosConfig config;
    private final int self;
    private final Group group;
    private final long[] lastAck = new long[Membership.ID_SPACE];

    QuorumCheck(PaxosConfig config, int self, Group group) {
        this.config = config;
        this.self = self;
        this.group = group;
    }

    /** A view this replica leads starts now: every peer counts as heard now. */
    void reset(long now) {
        Arrays.fill(lastAck, now);
    }

    /** {@code peer} showed it hears this leader (an ack, an Accept or a PrepareOk of its view). */
    void acked(int peer, long now) {
        if (peer != self) {
            lastAck[peer] = now;
        }
    }

    /** Whether fewer than a quorum, this replica included, acknowledged it within the suspect timeout. */
    boolean lost(long now) {
        return !group.current().isQuorum(heard(now));
    }

    /** The replicas that acknowledged within the suspect timeout, this one included (a mask of ids). */
    int heard(long now) {
        int heard = 1 << self;
        for (int p = 0; p < lastAck.length; p++) {
            if (p != self && now - lastAck[p] < config.suspectNanos()) {
                heard |= 1 << p;
            }
        }
        return heard;
    }
}
