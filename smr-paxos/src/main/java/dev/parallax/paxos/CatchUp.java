package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;

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
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class CatchUp {
    private final PaxosConfig config;
    private final int self;
    private long lastQueryAt = Long.MIN_VALUE / 2;
    private long firstUndecidedAtLastQuery = -1;
    private long queriesSent;
    private long repliesSent;
    private int attempt;

    CatchUp(PaxosConfig config, int self) {
        this.config = config;
        this.self = self;
    }

    /** Asks a peer for missing decisions if we are behind and stalled. */
    void tick(long now, long view, Learner learner, Effects<PaxosMessage, PaxosRecord, Value> out) {
        long first = learner.firstUndecided();
        if (learner.knownDecided() < first || config.members() == 1) {
            attempt = 0;
            return;
        }
        if (now - lastQueryAt < config.catchUpNanos()) {
            return;
        }
        if (first != firstUndecidedAtLastQuery) {
            attempt = 0;
        }
        int peer = peer(view, attempt++);
        lastQueryAt = now;
        firstUndecidedAtLastQuery = first;
        long to = Math.min(learner.knownDecided() + 1, first + config.catchUpMaxInstances());
        queriesSent++;
        out.send(peer, new PaxosMessage.CatchUpQuery(view, first, to));
    }

    /** The leader of {@code view} first (if not us), then the other replicas in turn. */
    private int peer(long view, int attempt) {
        int n = config.members();
        int leader = config.leaderOf(view);
        int start = leader == self ? (self + 1) % n : leader;
        int p = start;
        for (int k = 0; k < attempt % (n - 1); k++) {
            p = (p + 1) % n;
            if (p == self) {
                p = (p + 1) % n;
            }
        }
        return p;
    }

    /** Answers a query with the decided values we have in its range. */
    void onQuery(int from, PaxosMessage.CatchUpQuery q, long view, Learner learner,
                 Effects<PaxosMessage, PaxosRecord, Value> out) {
        long start = Math.max(q.from(), learner.firstAvailable());
        long end = Math.min(Math.min(q.to(), start + config.catchUpMaxInstances()), learner.knownDecided() + 1);
        List<PaxosMessage.Decided> decided = new ArrayList<>();
        for (long i = start; i < end; i++) {
            Value v = learner.decidedValue(i);
            if (v != null) {
                decided.add(new PaxosMessage.Decided(i, v));
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
     * Learns the reply's decisions. @return the instances that were news, so the caller can
     * release them from the proposer's window
     */
    List<Long> onReply(int from, PaxosMessage.CatchUpReply r, Learner learner,
                       Effects<PaxosMessage, PaxosRecord, Value> out) {
        List<Long> learned = new ArrayList<>();
        for (PaxosMessage.Decided d : r.decided()) {
            if (learner.learn(d.instance(), d.value(), out)) {
                learned.add(d.instance());
            }
        }
        if (learner.firstUndecided() < r.firstAvailable()) {
            out.snapshotNeeded(from, r.firstAvailable());
        }
        return learned;
    }
}
