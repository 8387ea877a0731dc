package dev.parallax.core.testkit.cluster;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that another thread or process brings about, with a deadline. Stateless and
 * thread-safe; {@link #until} blocks the calling thread (polling every 5 ms).
 */
public final class Await {
    private Await() {
    }

    /**
     * Blocks until {@code condition} holds.
     *
     * @throws AssertionError if it does not hold within {@code timeout}
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(5);
        }
    }
}
