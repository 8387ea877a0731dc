package dev.parallax.scheduler;

import java.util.concurrent.locks.LockSupport;

/**
 * The parking slot of one worker thread: the worker announces that it is about to park, re-checks
 * its wait condition, and parks; a thread that makes the condition true then calls {@link #wake()}.
 * Because both sides write then read volatile fields, one of them always sees the other's write,
 * so no wake-up is lost.
 *
 * <p>Thread-safe.
 */
final class Sleeper {
    private volatile boolean sleeping;
    private volatile boolean deep;
    private volatile Thread thread;

    void bind(Thread t) {
        thread = t;
    }

    /** Called by the owner before re-checking its condition and parking. */
    void announce() {
        sleeping = true;
    }

    /** Called by the owner after it woke up. */
    void clear() {
        sleeping = false;
    }

    /** Unparks the owner if it announced sleep; cheap (one volatile read) when it did not. */
    void wake() {
        if (sleeping) {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    boolean isSleeping() {
        return sleeping;
    }

    /** Marks (or unmarks) the owner as parked without a time limit, i.e. not polling for work to steal. */
    void deep(boolean value) {
        deep = value;
    }

    /** Whether the owner is parked without a time limit. */
    boolean isDeep() {
        return deep;
    }
}
