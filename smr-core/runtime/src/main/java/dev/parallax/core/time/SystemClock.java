package dev.parallax.core.time;

/**
 * The real clock: {@link System#nanoTime()}.
 *
 * <p>Stateless, thread-safe and non-blocking; use the shared {@link #INSTANCE}.
 */
public final class SystemClock implements Clock {

    /** The single instance. */
    public static final SystemClock INSTANCE = new SystemClock();

    private SystemClock() {
    }

    /**
     * Returns {@link System#nanoTime()}.
     *
     * <p>Thread-safe, non-blocking, never throws.
     *
     * @return the JVM's monotonic time in nanoseconds
     */
    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return "SystemClock";
    }
}
