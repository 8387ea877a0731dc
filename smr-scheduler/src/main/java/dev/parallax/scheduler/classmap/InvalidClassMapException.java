package dev.parallax.scheduler.classmap;

import java.util.List;

/**
 * Thrown when a class-to-threads map breaks one of the five rules of seed 001 §4.2.2. The message
 * names the rule and the classes involved.
 *
 * <p>Immutable and thread-safe once constructed; thrown by {@link ClassMap.Builder#build()} on the
 * building thread, listed by {@link ClassMapValidator#violations}. Nothing in it blocks.
 */
public final class InvalidClassMapException extends IllegalArgumentException {
    private final int rule;
    private final List<String> classes;

    /**
     * @param rule    the broken rule, 1 to 5 (seed 001 §4.2.2 i–v)
     * @param classes the names of the classes that break it
     * @param message the full explanation
     */
    public InvalidClassMapException(int rule, List<String> classes, String message) {
        super(message);
        this.rule = rule;
        this.classes = List.copyOf(classes);
    }

    /** The broken rule, 1 to 5. */
    public int rule() {
        return rule;
    }

    /** The names of the classes that break the rule (one or two). */
    public List<String> classes() {
        return classes;
    }
}
