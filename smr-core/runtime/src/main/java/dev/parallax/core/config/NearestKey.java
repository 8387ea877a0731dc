package dev.parallax.core.config;

import java.util.Collection;
import java.util.Optional;

/**
 * The known key closest to a mistyped one, for "did you mean" in error messages: the smallest
 * edit distance (Levenshtein, over characters) not above a third of the key's length, ties to
 * the first in iteration order. Pure and thread-safe.
 */
public final class NearestKey {

    private NearestKey() {
    }

    /** The known key nearest to {@code unknown}, if one is near enough to be a likely typo. */
    public static Optional<String> suggest(String unknown, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        int limit = Math.max(2, unknown.length() / 3);
        for (String k : known) {
            int d = distance(unknown, k, limit);
            if (d < bestDistance) {
                bestDistance = d;
                best = k;
            }
        }
        return bestDistance <= limit ? Optional.of(best) : Optional.empty();
    }

    /** The edit distance of {@code a} and {@code b}, or a value above {@code limit} once it exceeds it. */
    static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) > limit) {
            return limit + 1;
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            int rowMin = cur[0];
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                rowMin = Math.min(rowMin, cur[j]);
            }
            if (rowMin > limit) {
                return limit + 1;
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
