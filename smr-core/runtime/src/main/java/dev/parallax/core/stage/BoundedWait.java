package dev.parallax.core.stage;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Waits for something a driver thread will do (finish, or retire a stage) for at most a close
 * timeout, ignoring interrupts while waiting and re-asserting them afterwards. Shared by
 * {@link StageRunner} and {@link CompositeStageRunner}.
 */
final class BoundedWait {

    /** One timed wait step; returns whether the awaited condition holds. */
    @FunctionalInterface
    interface Step {
        boolean awaitNanos(long nanos) throws InterruptedException;
    }

    private BoundedWait() {
    }

    /**
     * Calls {@code step} until it reports the condition or {@code timeout} has passed (wall-clock).
     *
     * @throws IllegalStateException with {@code timeoutMessage} if the timeout passed first
     */
    static void await(Duration timeout, Step step, Supplier<String> timeoutMessage) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                long remaining = deadline - System.nanoTime();
                try {
                    if (step.awaitNanos(Math.max(0, remaining))) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                    continue;
                }
                if (remaining <= 0) {
                    throw new IllegalStateException(timeoutMessage.get());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits up to {@code timeout} for {@code thread} to end.
     *
     * @throws IllegalStateException with {@code timeoutMessage} if it is still alive then
     */
    static void join(Thread thread, Duration timeout, Supplier<String> timeoutMessage) {
        await(timeout, nanos -> {
            java.util.concurrent.TimeUnit.NANOSECONDS.timedJoin(thread, nanos);
            return !thread.isAlive();
        }, timeoutMessage);
    }
}
