package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.membership.Membership;

import java.util.ArrayList;
import java.util.List;

/**
 * Catch-up of a lagging replica from its peers' decided instances (seed 000 §III-C: the
 * ReplicationCore's catch-up service). A replica that knows of a decided instance it has not
 * decided, and made no progress for one catch-up period, asks one peer (the leader first, then the
 * others in turn) for the decided values from its first undecided instance on. A peer that has
 * trimmed the asked instances answers with its first available instance; the asker then needs a
 * snapshot, which {@link Effects} reports through {@code snapshotNeeded}.
 *
 * <p><b>Bounded replies.</b> A reply carries at most {@link PaxosConfig#catchUpMaxInstances()}
 * values and at most {@link PaxosConfig#catchUpMaxBytes()} bytes of them (the first value always
 * goes, alone if it is larger), so that it fits a frame whatever the size of the commands: the
 * same paging rule as a Phase 1 reply's votes ({@link Acceptor#onPrepare}). A reply that taught the
 * asker something while it is still behind makes it ask again at once, the same peer, from its new
 * first undecided instance: the next page follows one round trip later, not one catch-up period.
 * A reply with nothing new ends the chain; the periodic query (rotating peers) takes over.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class CatchUp {
    /** Bytes a decided value adds to a reply besides its content: instance 8, length 4. */
    static final int DECIDED_OVERHEAD = 13;

    private final PaxosConfig config;
    private final int self;
    private final Group group;
    private long lastQueryAt = Long.MIN_VALUE / 2;
    private long firstUndecidedAtLastQuery = -1;
    private long queriesSent;
    private long repliesSent;
    private int attempt;

    CatchUp(PaxosConfig config, int self, Group group) {
        this.config = config;
        this.self = self;
        this.group = group;
    }

    /** Asks a peer for missing decisions if we are behind and stalled. */
    void tick(long now, long view, Learner learner, Effects<PaxosMessage, PaxosRecord, Value> out) {
        long first = learner.firstUndecided();
        if (learner.knownDecided() < first || (group.recipients() & ~(1 << self)) == 0) {
            attempt = 0;
            return;
        }
        if (now - lastQueryAt < config.catchUpNanos()) {
            return;
        }
        if (first != firstUndecidedAtLastQuery) {
            attempt = 0;
        }
        query(peer(view, attempt++), view, now, learner, out);
    }

    /** Asks {@code peer} for the decided values from our first undecided instance on. */
    private void query(int peer, long view, long now, Learner learner, Effects<PaxosMessage, PaxosRecord, Value> out) {
        long first = learner.firstUndecided();
        lastQueryAt = now;
        firstUndecidedAtLastQuery = first;
        long to = Math.min(learner.knownDecided() + 1, first + config.catchUpMaxInstances());
        queriesSent++;
        out.send(peer, new PaxosMessage.CatchUpQuery(view, first, to));
    }

    /** The leader of {@code view} first (if not us), then the other replicas in turn. */
    private int peer(long view, int attempt) {
        int leader = Membership.leaderOf(view);
        // The leader of our view is asked even when we do not know it as a member yet: a replica
        // behind the change that added it knows the group only as it was.
        int peers = (group.recipients() | (1 << leader)) & ~(1 << self);
        int n = Integer.bitCount(peers);
        int start = (peers & (1 << leader)) != 0 ? leader : nextIn(peers, leader);
        int p = start;
        for (int k = 0; k < attempt % n; k++) {
            p = nextIn(peers, p);
        }
        return p;
    }

    /** The id after {@code id} in {@code mask}, wrapping (mask not empty). */
    private static int nextIn(int mask, int id) {
        for (int k = 1; k <= Membership.ID_SPACE; k++) {
            int c = Math.floorMod(id + k, Membership.ID_SPACE);
            if ((mask & (1 << c)) != 0) {
                return c;
            }
        }
        throw new IllegalArgumentException("empty mask");
    }

    /**
     * Answers a query with the decided values we have in its range, in instance order, as many as
     * the reply's count and byte bounds allow (the first always goes).
     */
    void onQuery(int from, PaxosMessage.CatchUpQuery q, long view, Learner learner,
                 Effects<PaxosMessage, PaxosRecord, Value> out) {
        long start = Math.max(q.from(), learner.firstAvailable());
        long end = Math.min(Math.min(q.to(), start + config.catchUpMaxInstances()), learner.knownDecided() + 1);
        List<PaxosMessage.Decided> decided = new ArrayList<>();
        long bytes = 0;
        for (long i = start; i < end; i++) {
            Value v = learner.decidedValue(i);
            if (v != null) {
                long size = DECIDED_OVERHEAD + (long) v.size();
                if (!decided.isEmpty() && bytes + size > config.catchUpMaxBytes()) {
                    break;
                }
                decided.add(new PaxosMessage.Decided(i, v));
                bytes += size;
            }
        }
        if (!decided.isEmpty() || q.from() < learner.firstAvailable()) {
            repliesSent++;
            out.send(from, new PaxosMessage.CatchUpReply(view, learner.firstAvailable(), decided));
        }
    }

    /** Catch-up queries this replica sent because it was behind. */
    long queriesSent() {
        return queriesSent;
    }

    /** Catch-up replies this replica sent to lagging peers. */
    long repliesSent() {
        return repliesSent;
    }

    /**
     * Learns the reply's decisions; if they were news and we are still behind, asks {@code from}
     * again at once from our new first undecided instance (the reply may have stopped at its byte
     * or count bound). @return the instances that were news, so the caller can release them from
     * the proposer's window
     */
    List<Long> onReply(int from, PaxosMessage.CatchUpReply r, long view, long now, Learner learner,
                       Effects<PaxosMessage, PaxosRecord, Value> out) {
        List<Long> learned = new ArrayList<>();
        for (PaxosMessage.Decided d : r.decided()) {
            if (learner.learn(from, r.view(), d.instance(), d.value(), out)) {
                learned.add(d.instance());
            }
        }
        if (learner.firstUndecided() < r.firstAvailable()) {
            out.snapshotNeeded(from, r.firstAvailable());
        } else if (!learned.isEmpty() && learner.knownDecided() >= learner.firstUndecided()) {
            query(from, view, now, learner, out);
        }
        return learned;
    }
}
