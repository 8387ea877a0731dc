package dev.parallax.ringpaxos;

/**
 * M-Ring's coordinator window (rule M6): how many consensus instances the coordinator may keep
 * open at once, additive-increase / multiplicative-decrease between {@code min} and {@code max}.
 * seed 003 (Ring Paxos) §3.3.6: learners whose buffer of decisions still to process reaches a
 * threshold notify the coordinator, which "reduces the window of outstanding consensus instances";
 * without new notifications it "gradually increases its window size".
 *
 * <p>Here the notification is a member's {@code Alive} whose {@code backlog} (decided in order
 * minus delivered, R3) is at least the threshold: the window halves, at most once per
 * {@code decreaseNanos} (a burst of reports from one slow learner counts once). Every
 * {@code increaseNanos} without such a report adds one, up to {@code max}. The seed gives no
 * constants; ours (÷2 per 10 ms, +1 per 5 ms, threshold 256) are documented in ring-paxos.md,
 * "Flow control".
 *
 * <p>Not thread-safe: owned by {@link MulticastPath} inside the core's single thread. Pure: time
 * comes in as an argument.
 */
final class FlowControl {
    private final int min;
    private final int max;
    private final long threshold;
    private final long decreaseNanos;
    private final long increaseNanos;
    private int window;
    /** When the window last stopped growing (a report, a decrease, or the last +1 step). */
    private long growthAnchor;
    private long lastDecrease = Long.MIN_VALUE;
    private long decreases;
    private long increases;

    /**
     * @param min           the smallest window ({@code mring.window.min}, at least 1)
     * @param max           the largest window and the initial one ({@code ring.window})
     * @param threshold     the backlog that counts as a notification ({@code mring.fc.threshold})
     * @param decreaseNanos the shortest time between two halvings ({@code mring.fc.decrease})
     * @param increaseNanos the time per +1 without a notification ({@code mring.fc.increase})
     * @param now           the current time
     * @throws IllegalArgumentException if {@code min < 1}, {@code min > max}, {@code threshold < 1}
     *         or a period is not positive
     */
    public FlowControl(int min, int max, long threshold, long decreaseNanos, long increaseNanos, long now) {
        if (min < 1 || min > max) {
            throw new IllegalArgumentException("need 1 <= min <= max: min=" + min + ", max=" + max);
        }
        if (threshold < 1 || decreaseNanos <= 0 || increaseNanos <= 0) {
            throw new IllegalArgumentException("threshold and periods must be positive");
        }
        this.min = min;
        this.max = max;
        this.threshold = threshold;
        this.decreaseNanos = decreaseNanos;
        this.increaseNanos = increaseNanos;
        this.window = max;
        this.growthAnchor = now;
    }

    /** The window at {@code now}, after the growth earned since the last notification. */
    public int window(long now) {
        if (window >= max) {
            growthAnchor = Math.max(growthAnchor, now);
            return window;
        }
        long elapsed = now - growthAnchor;
        if (elapsed >= increaseNanos) {
            long steps = elapsed / increaseNanos;
            int grown = (int) Math.min(max, window + steps);
            increases += grown - window;
            window = grown;
            growthAnchor = window >= max ? now : growthAnchor + steps * increaseNanos;
        }
        return window;
    }

    /**
     * A member reported {@code backlog} undelivered decisions at {@code now}.
     *
     * @return whether the window was halved by this report
     */
    public boolean report(long backlog, long now) {
        if (backlog < threshold) {
            return false;
        }
        window(now); // settle the growth earned before the report
        growthAnchor = now;
        if (lastDecrease != Long.MIN_VALUE && now - lastDecrease < decreaseNanos) {
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
}
