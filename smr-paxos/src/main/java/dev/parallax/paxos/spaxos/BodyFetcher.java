package dev.parallax.paxos.spaxos;

import java.util.TreeMap;

/**
 * The bodies this replica lacks and is fetching (seed 002 (S-Paxos) Alg. 1 l.26–29): per origin
 * stream, the gap above the own watermark that some peer acked (asked after Δ, {@code
 * resendDelay}), and the decided ids execution waits for ({@code want}: asked at once). Each
 * entry remembers when it is next due and whom it asked last, so that retries rotate among the
 * ackers.
 *
 * <p>Not thread-safe: owned by {@link DisseminationCore}'s driver thread.
 */
final class BodyFetcher {
    /** One fetch in progress. */
    static final class Ask {
        /** The watermark the gap was seen at (gaps only): progress restarts the delay. */
        long watermark;
        long dueAt;
        int lastAsked = -1;
    }

    private final TreeMap<BatchId, Ask> wanted = new TreeMap<>();
    private final TreeMap<OriginStream, Ask> gaps = new TreeMap<>();

    /** Starts fetching decided {@code id} now, unless already fetching it. */
    void want(BatchId id, long now) {
        wanted.computeIfAbsent(id, k -> {
            Ask a = new Ask();
            a.dueAt = now;
            return a;
        });
    }

    boolean wanted(BatchId id) {
        return wanted.containsKey(id);
    }

    /** The body of {@code id} arrived. */
    void arrived(BatchId id) {
        wanted.remove(id);
    }

    /** Decided ids being fetched, in id order (a live view). */
    TreeMap<BatchId, Ask> wantedIds() {
        return wanted;
    }

    /**
     * The gap of {@code s} above {@code watermark}: created due at {@code now + delay}, or restarted
     * so when the watermark moved since.
     */
    Ask gap(OriginStream s, long watermark, long now, long delay) {
        Ask a = gaps.get(s);
        if (a == null || a.watermark != watermark) {
            int lastAsked = a == null ? -1 : a.lastAsked;
            a = new Ask();
            a.lastAsked = lastAsked;
            a.watermark = watermark;
            a.dueAt = now + delay;
            gaps.put(s, a);
        }
        return a;
    }

    /** {@code s} has no gap (any more). */
    void closeGap(OriginStream s) {
        gaps.remove(s);
    }

    int wantedCount() {
        return wanted.size();
    }
}
