package dev.parallax.core.multicast;

/** Waiting for a stopped worker thread of the multicast. Stateless. */
final class Joins {
    private Joins() {
    }

    /**
     * Waits until {@code thread} has ended, even if the caller is interrupted meanwhile (the
     * interrupt is restored afterwards): a close must not return while its thread still runs.
     */
    static void joinUninterruptibly(Thread thread) {
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
}
