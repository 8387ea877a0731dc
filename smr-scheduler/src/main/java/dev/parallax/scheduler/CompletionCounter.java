package dev.parallax.scheduler;

/**
 * Counts the commands one worker completed. The worker increments a plain field per command and
 * publishes it with a volatile write when it goes idle, which keeps a fence off the per-command
 * path; quiescence is only reached when every worker has gone idle, so the published counts are
 * then complete. Padded against false sharing between workers.
 *
 * <p>{@link #increment()} and {@link #publish()} by the owning worker only; {@link #published()}
 * by any thread.
 */
@SuppressWarnings("unused")
final class CompletionCounter {
    private long p01, p02, p03, p04, p05, p06, p07;
    private long local;
    private volatile long published;
    private long p11, p12, p13, p14, p15, p16, p17;

    void increment() {
        local++;
    }

    /** @return whether the published value changed */
    boolean publish() {
        if (published != local) {
            published = local;
            return true;
        }
        return false;
    }

    long published() {
        return published;
    }
}
