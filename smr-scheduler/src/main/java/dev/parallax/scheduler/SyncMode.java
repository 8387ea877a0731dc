package dev.parallax.scheduler;

/**
 * How the worker threads of an early-scheduling executor synchronize on a sequential (Seq)
 * request, and whether idle or waiting workers steal concurrent work (seed 001 chapters 4 and 6).
 *
 * <p>Immutable and thread-safe (an enum constant); {@link #steals()} never blocks.
 */
public enum SyncMode {
    /** Two barriers per Seq request; the lowest thread id executes (seed 001 §4.3, Alg. 3). */
    BARRIER,
    /**
     * Two-cycle atomic counters per class; the last thread to arrive executes and resets the
     * counter, the others wait until it reads 0 (seed 001 §6.1, Alg. 4–5).
     */
    BUSY_WAIT,
    /**
     * Barrier synchronization; a worker whose queue is empty steals the whole ready queue of the
     * first victim with no Seq work, lowest id first (seed 001 §6.2.1, Alg. 6–8).
     */
    WS_QUEUE,
    /**
     * Arrival by counter, then workers that wait for the executor steal non-conflicting work, then
     * a barrier after execution (seed 001 §6.2.2.1, Alg. 9–11).
     */
    WS_SEMI_BLOCKED,
    /**
     * Two-cycle counters and no barrier; waiting workers steal, victim {@code (id + 1) mod n}
     * first (seed 001 §6.2.2.2–6.2.2.3, Alg. 12–13).
     */
    WS_NON_BLOCKED,
    /**
     * {@link #WS_NON_BLOCKED} whose stealing conditions are checked without the victim's lock
     * first and again under it (seed 001 §6.2.2.4, Alg. 14).
     */
    WS_OPT;

    /** Whether workers of this mode steal work. */
    public boolean steals() {
        return ordinal() >= WS_QUEUE.ordinal();
    }
}
