package dev.parallax.paxos.spaxos;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What every peer acked: per origin stream, per peer, the highest watermark it reported (a
 * monotone max: a restarted peer may report less, which is safe to ignore since it held the bodies
 * when it acked them). Answers stability ({@code f+1} holders, seed 002 (S-Paxos) Alg. 1 l.14–15,
 * §IV-B a) and whom to ask for a missing body (l.29).
 *
 * <p>Not thread-safe: owned by {@link DisseminationCore}'s driver thread.
 */
final class AckTracker {
    private final int members;
    private final int self;
    private final TreeMap<OriginStream, long[]> acked = new TreeMap<>();

    AckTracker(int members, int self) {
        this.members = members;
        this.self = self;
    }

    /** Merges {@code from}'s vector; {@code raised} gets each stream whose entry for {@code from} rose. */
    void merge(int from, AckVector vector, Consumer<OriginStream> raised) {
        if (from == self) {
            return;
        }
        for (AckVector.Entry e : vector.entries()) {
            OriginStream s = new OriginStream(e.origin(), e.incarnation());
            long[] w = acked.computeIfAbsent(s, k -> new long[members]);
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
        for (int p = 0; p < members; p++) {
            if (p != self) {
                max = Math.max(max, w[p]);
            }
        }
        return max;
    }

    /**
     * The highest sn of {@code s} held by at least {@code holders} replicas, this one counting with
     * {@code own}: the {@code holders}-th largest of all watermarks.
     */
    long stableWatermark(OriginStream s, long own, int holders) {
        long[] w = acked.get(s);
        long[] all = w == null ? new long[members] : w.clone();
        all[self] = own;
        Arrays.sort(all);
        return all[members - holders];
    }

    /**
     * The next peer after {@code after} (cyclically, never this replica) whose ack covers {@code sn},
     * so that retries rotate; {@code after} itself only when no other acker exists; -1 when none.
     */
    int nextAcker(OriginStream s, long sn, int after) {
        long[] w = acked.get(s);
        if (w == null) {
            return -1;
        }
        for (int i = 1; i <= members; i++) {
            int p = Math.floorMod(after + i, members);
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
