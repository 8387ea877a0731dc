package dev.parallax.paxos.replica;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition that another thread or process brings about, with a deadline. */
final class Await {
    private Await() {
    }

    static void until(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(5);
        }
    }
}
