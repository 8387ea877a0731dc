package dev.parallax.core.stage;

import java.util.Optional;

/**
 * A stage that is running on some thread, whichever placement put it there. Thread-safe.
 */
public interface StageHandle extends AutoCloseable {
    String name();

    /** Wakes the thread running the stage. */
    void wake();

    /** The error that stopped the stage, if any. */
    Optional<Throwable> failure();

    /** Stops the stage (its onClose has run when this returns); idempotent. */
    @Override
    void close();
}
