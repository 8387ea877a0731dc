package dev.parallax.ringpaxos;

import java.util.Arrays;

/**
 * M-Ring's coordinator window (rule M6): how many consensus instances the coordinator may keep
 * open at once, additive-increase / multiplicative-decrease between {@code min} and {@code max}.
 * seed 003 (Ring Paxos) §3.3.6: learners whose buffer of decisions still to process reaches a
 * threshold notify the coordinator, which "reduces the window of outstanding consensus instances";
 * without new notifications it "gradually increases its window size".
 *
 * <p>Here the notification is a member's {@code Alive} whose {@code backlog} (decided in order
 * minus delivered, R3) is at least the threshold. The coordinator keeps each member's latest
 * report with its arrival time:
 * <ul>
 *   <li><b>decrease</b>: a report at or above the threshold halves the window, at most once per
 *       {@code decreaseNanos} (a burst of reports counts once);</li>
 *   <li><b>hold</b>: while some member's latest report is at or above the threshold and still
 *       fresh (younger than {@code freshNanos}: two heartbeats, at most {@code ring.suspect}), the
 *       window does not grow. A slow learner reports once per heartbeat, so its backlog holds the
 *       window down until it reports a low one; a member that falls silent stops holding it after
 *       {@code freshNanos} (a stale report is ignored);</li>
 *   <li><b>increase</b>: otherwise every {@code increaseNanos} adds one, up to {@code max}; the
 *       first step comes one period after the hold ends.</li>
 * </ul>
 * The seed gives no constants; ours (÷2 per 10 ms, +1 per 5 ms, threshold 256) are documented in
 * ring-paxos.md, "Flow control".
 *
 * <p>Not thread-safe: owned by {@link DatagramPath} inside the core's single thread. Pure: time
 * comes in as an argument and never goes backwards.
 */
final class FlowControl {
    private static final long NONE = Long.MIN_VALUE;

    private final int min;
    private final int max;
    private final long threshold;
    private final long decreaseNanos;
    private final long increaseNanos;
    private final long freshNanos;
    /** Per member: the latest reported backlog and when it arrived ({@link #NONE}: never). */
    private final long[] backlogOf;
    private final long[] reportedAt;
    private int window;
    /** Growth is earned from here on, once no fresh high report holds it. */
    private long growthAnchor;
    private long lastDecrease = NONE;
    private long decreases;
    private long increases;
    private long ignoredReports;

    /**
     * @param members       the number of members (ids {@code 0 .. members-1})
     * @param min           the smallest window ({@code mring.window.min}, at least 1)
     * @param max           the largest window and the initial one ({@code ring.window})
     * @param threshold     the backlog that counts as a notification ({@code mring.fc.threshold})
     * @param decreaseNanos the shortest time between two halvings ({@code mring.fc.decrease})
     * @param increaseNanos the time per +1 while no fresh report is high ({@code mring.fc.increase})
     * @param freshNanos    how long a report holds the window (two {@code ring.heartbeat}s, at most
     *                      {@code ring.suspect})
     * @param now           the current time
     * @throws IllegalArgumentException if {@code members < 1}, {@code min < 1}, {@code min > max},
     *         {@code threshold < 1} or a period is not positive
     */
    public FlowControl(int members, int min, int max, long threshold, long decreaseNanos, long increaseNanos,
            long freshNanos, long now) {
        if (members < 1) {
            throw new IllegalArgumentException("need at least one member: members=" + members);
        }
        if (min < 1 || min > max) {
            throw new IllegalArgumentException("need 1 <= min <= max: min=" + min + ", max=" + max);
        }
        if (threshold < 1 || decreaseNanos <= 0 || increaseNanos <= 0 || freshNanos <= 0) {
            throw new IllegalArgumentException("threshold and periods must be positive");
        }
        this.min = min;
        this.max = max;
        this.threshold = threshold;
        this.decreaseNanos = decreaseNanos;
        this.increaseNanos = increaseNanos;
        this.freshNanos = freshNanos;
        this.backlogOf = new long[members];
        this.reportedAt = new long[members];
        Arrays.fill(reportedAt, NONE);
        this.window = max;
        this.growthAnchor = now;
    }

    /**
     * The time until which the latest reports hold the window: the latest arrival of a high
     * report plus {@code freshNanos}, or {@link #NONE} if no member's latest report is high.
     */
    private long heldUntil() {
        long until = NONE;
        for (int m = 0; m < backlogOf.length; m++) {
            if (reportedAt[m] != NONE && backlogOf[m] >= threshold) {
                until = Math.max(until, reportedAt[m] + freshNanos);
            }
        }
        return until;
    }

    /** The window at {@code now}, after the growth earned since the hold ended. */
    public int window(long now) {
        long held = heldUntil();
        if (window >= max || (held != NONE && now < held)) {
            growthAnchor = Math.max(growthAnchor, now);
            return window;
        }
        long from = held == NONE ? growthAnchor : Math.max(growthAnchor, held);
        long elapsed = now - from;
        if (elapsed >= increaseNanos) {
            long steps = elapsed / increaseNanos;
            int grown = (int) Math.min(max, window + steps);
            increases += grown - window;
            window = grown;
            growthAnchor = window >= max ? now : from + steps * increaseNanos;
        } else {
            growthAnchor = from;
        }
        return window;
    }

    /**
     * Member {@code member} reported {@code backlog} undelivered decisions at {@code now}; the
     * report replaces its previous one. An unknown member or a negative backlog is ignored
     * (counted in {@link #ignoredReports()}).
     *
     * @return whether the window was halved by this report
     */
    public boolean report(int member, long backlog, long now) {
        if (member < 0 || member >= backlogOf.length || backlog < 0) {
            ignoredReports++;
            return false;
        }
        window(now); // settle the growth earned before the report
        backlogOf[member] = backlog;
        reportedAt[member] = now;
        if (backlog < threshold) {
            return false;
        }
        growthAnchor = now;
        if (lastDecrease != NONE && now - lastDecrease < decreaseNanos) {
            return false;
        }
        lastDecrease = now;
        int halved = Math.max(min, window / 2);
        if (halved == window) {
            return false;
        }
        window = halved;
        decreases++;
        return true;
    }

    /** Halvings so far (event {@code fc.decreases}). */
    public long decreases() {
        return decreases;
    }

    /** +1 steps so far (event {@code fc.increases}). */
    public long increases() {
        return increases;
    }

    /** Reports refused as malformed (unknown member, negative backlog). */
    public long ignoredReports() {
        return ignoredReports;
    }
}
