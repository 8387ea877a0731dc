package dev.parallax.core.exec;

/**
 * Waiting for stopped worker threads (executors' workers, the multicast's threads) on close. Stateless;
 * blocks until the threads end.
 */
public final class Joins {
    private Joins() {
    }

    /**
     * Waits until {@code thread} has ended, even if the caller is interrupted meanwhile (the
     * interrupt is restored afterwards): a close must not return while its thread still runs.
     */
    public static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@link #joinUninterruptibly(Thread)} for each of {@code threads}, in order. */
    public static void joinAllUninterruptibly(Thread[] threads) {
        for (Thread t : threads) {
            joinUninterruptibly(t);
        }
    }
}
