package dev.parallax.core.log;

/**
 * Switches off Chronicle's usage analytics and its start-up announcement in code, before any
 * Chronicle class initialises. Chronicle Queue reads {@code chronicle.analytics.disable} and
 * {@code chronicle.announcer.disable} once, when its own classes initialise; an embedder who starts
 * a replica without those {@code -D} flags must not send anything anywhere. Every class of this
 * package that touches Chronicle calls {@link #ensure()} from its static initialiser, so the
 * properties are set before Chronicle's first class is initialised.
 *
 * <p>An explicit setting wins: a property the JVM already has (from {@code -D} or
 * {@link System#setProperty}) is left as it is. Thread-safe and idempotent; never blocks.
 */
public final class ChronicleQuiet {

    /** The system properties set to {@code "true"} unless already set. */
    static final String[] PROPERTIES = {"chronicle.analytics.disable", "chronicle.announcer.disable"};

    private ChronicleQuiet() {
    }

    /** Sets each of {@link #PROPERTIES} to {@code "true"} unless the JVM already has a value. */
    public static void ensure() {
        for (String key : PROPERTIES) {
            if (System.getProperty(key) == null) {
                System.setProperty(key, "true");
            }
        }
    }
}
