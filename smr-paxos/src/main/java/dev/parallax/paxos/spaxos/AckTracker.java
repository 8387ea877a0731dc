package dev.parallax.paxos.spaxos;

import dev.parallax.core.membership.Membership;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What every peer acked: per origin stream, per replica id ({@code 0..}{@link Membership#MAX_ID}),
 * the highest watermark it reported (a monotone max: a restarted peer may report less, which is
 * safe to ignore since it held the bodies when it acked them). Answers stability ({@code f+1}
 * holders among the voters of each membership the id may be ordered under, seed 002 (S-Paxos)
 * Alg. 1 l.14–15, §IV-B a; {@link DisseminationGroup} membership rules M1–M2) and whom to ask for
 * a missing body (l.29: any replica that acked it, voter, learner or removed).
 *
 * <p>Not thread-safe: owned by {@link DisseminationCore}'s driver thread.
 */
final class AckTracker {
    private final int self;
    private final TreeMap<OriginStream, long[]> acked = new TreeMap<>();

    AckTracker(int self) {
        this.self = self;
    }

    /** Merges {@code from}'s vector; {@code raised} gets each stream whose entry for {@code from} rose. */
    void merge(int from, AckVector vector, Consumer<OriginStream> raised) {
        if (from == self || from < 0 || from > Membership.MAX_ID) {
            return;
        }
        for (AckVector.Entry e : vector.entries()) {
            OriginStream s = new OriginStream(e.origin(), e.incarnation());
            long[] w = acked.computeIfAbsent(s, k -> new long[Membership.ID_SPACE]);
            if (e.watermark() > w[from]) {
                w[from] = e.watermark();
                raised.accept(s);
            }
        }
    }

    /** What {@code peer} acked of {@code s} (0: nothing). */
    long acked(int peer, OriginStream s) {
        long[] w = acked.get(s);
        return w == null ? 0 : w[peer];
    }

    /** The highest watermark any peer acked of {@code s}. */
    long maxAcked(OriginStream s) {
        long[] w = acked.get(s);
        if (w == null) {
            return 0;
        }
        long max = 0;
        for (int p = 0; p < Membership.ID_SPACE; p++) {
            if (p != self) {
                max = Math.max(max, w[p]);
            }
        }
        return max;
    }

    /**
     * The highest sn of {@code s} held by {@code f+1} voters of every membership of
     * {@code memberships} ({@code f = (voters - 1) / 2} of each), this replica counting with
     * {@code own} where it votes: per membership the {@code (f+1)}-th largest of its voters'
     * watermarks, and the least of those.
     */
    long stableWatermark(OriginStream s, long own, List<Membership> memberships) {
        long[] w = acked.get(s);
        long stable = Long.MAX_VALUE;
        for (Membership m : memberships) {
            long[] votes = new long[m.voterCount()];
            int k = 0;
            for (int id = 0; id < Membership.ID_SPACE; id++) {
                if (m.isVoter(id)) {
                    votes[k++] = id == self ? own : w == null ? 0 : w[id];
                }
            }
            Arrays.sort(votes);
            int holders = (votes.length - 1) / 2 + 1;
            stable = Math.min(stable, votes[votes.length - holders]);
        }
        return stable == Long.MAX_VALUE ? 0 : stable;
    }

    /**
     * The next replica after {@code after} (cyclically over the id space, never this replica) whose
     * ack covers {@code sn}, so that retries rotate; {@code after} itself only when no other acker
     * exists; -1 when none.
     */
    int nextAcker(OriginStream s, long sn, int after) {
        long[] w = acked.get(s);
        if (w == null) {
            return -1;
        }
        for (int i = 1; i <= Membership.ID_SPACE; i++) {
            int p = Math.floorMod(after + i, Membership.ID_SPACE);
            if (p != self && w[p] >= sn) {
                return p;
            }
        }
        return -1;
    }

    /** The streams any peer acked, in (origin, incarnation) order (a live view). */
    Set<OriginStream> streams() {
        return acked.keySet();
    }
}
