package dev.parallax.scheduler.classmap;

/**
 * The synchronization mode of a request class in a class-to-threads map (seed 001 §4.2.2,
 * Definition 3).
 *
 * <p>Immutable and thread-safe (an enum constant).
 */
public enum ClassMode {
    /** Each request goes to every thread of the class; they synchronize and one executes it. */
    SEQ,
    /** Each request goes to one thread of the class (round-robin) and runs without synchronizing. */
    CONC
}
