package dev.parallax.examples.volery;

/**
 * A Volery command without a path that goes to every partition and consumes a global zxid there
 * (seed 004 (S-SMR / Eyrie / Volery) §V-B sends create and delete to every partition; these go with
 * them): a {@link Multi}, or a {@link SessionCommand}. Immutable; safe from any thread; never blocks.
 */
public sealed interface GlobalCommand extends VoleryCommand permits Multi, SessionCommand {
    @Override
    default String path() {
        return "";
    }

    @Override
    default boolean isGlobal() {
        return true;
    }

    @Override
    default boolean isWrite() {
        return true;
    }
}
