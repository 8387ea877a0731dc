package dev.parallax.core.replica;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The gate in front of the per-worker delivery lanes ({@link WorkerLanes}): lanes pass it on every
 * delivery without a lock, and a snapshot install {@link #pause pauses} them all, waiting until no
 * lane is inside, so that it replaces the state with no command running.
 *
 * <p>Entering publishes "inside" and then reads "paused"; pausing publishes "paused" and then
 * reads every "inside" (all volatile): one of the two sees the other, so no lane slips in past a
 * pause unseen (the Dekker pattern).
 *
 * <p>Threads: lane i calls {@link #enter}/{@link #exit} from its own delivery thread only;
 * {@link #pause} and {@link #resume} come from one installing thread at a time.
 */
final class LaneGate {
    private final AtomicIntegerArray inside;
    private final Object monitor = new Object();
    private volatile boolean paused;

    LaneGate(int lanes) {
        this.inside = new AtomicIntegerArray(lanes);
    }

    /**
     * Lane {@code lane} enters; waits while paused.
     *
     * @throws InterruptedException if interrupted while waiting (its stream is being closed)
     */
    void enter(int lane) throws InterruptedException {
        while (true) {
            inside.set(lane, 1);
            if (!paused) {
                return;
            }
            exit(lane);
            synchronized (monitor) {
                while (paused) {
                    monitor.wait();
                }
            }
        }
    }

    /** Lane {@code lane} leaves. */
    void exit(int lane) {
        inside.set(lane, 0);
        if (paused) {
            synchronized (monitor) {
                monitor.notifyAll();
            }
        }
    }

    /** Whether a pause is in effect (a lane that failed inside a command may have been released by it). */
    boolean paused() {
        return paused;
    }

    /**
     * Stops lanes from entering, runs {@code release} (which must make the lanes inside return
     * soon, e.g. by releasing workers blocked in a shared command) and waits until none is inside.
     *
     * @throws InterruptedException if interrupted while waiting; the gate stays paused
     */
    void pause(Runnable release) throws InterruptedException {
        paused = true;
        release.run();
        synchronized (monitor) {
            while (anyInside()) {
                monitor.wait(10);
            }
        }
    }

    /** Lets lanes enter again. */
    void resume() {
        synchronized (monitor) {
            paused = false;
            monitor.notifyAll();
        }
    }

    private boolean anyInside() {
        for (int i = 0; i < inside.length(); i++) {
            if (inside.get(i) != 0) {
                return true;
            }
        }
        return false;
    }
}
