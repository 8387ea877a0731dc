package dev.parallax.scheduler;

/**
 * Unwinds a worker out of a wait when its executor stops. Pre-allocated, without stack trace.
 */
final class StoppedSignal extends RuntimeException {
    static final StoppedSignal INSTANCE = new StoppedSignal();

    private StoppedSignal() {
        super("executor stopped", null, false, false);
    }
}
